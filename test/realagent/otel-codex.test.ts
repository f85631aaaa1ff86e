// Codex's OpenTelemetry as evidence for a Codex row (issue 35 item 2), on real `codex exec --json`
// 0.171.0 sessions whose scratch CODEX_HOME/config.toml has an `[otel]` block exporting to our own
// OTLP receiver (docs/codex.md). The rollout is silent while the model streams (reference §0.2):
// from it alone a long healthy answer and a frozen stream look the same, and both are stalled a
// window after the prompt. Codex logs each SSE event (`codex.sse_event`, about a second late), so
// with the telemetry observer the streaming agent is healthy throughout, and its frozen twin is
// flagged a window after its last event arrived. The window is 8 s so the suite stays quick.
import { appendFileSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodexObserver } from '../../src/agents/codex/read/codex-observer.js';
import { codexHarness } from '../../src/agents/codex/harness.js';
import { normalizeTask, type Task } from '../../src/contracts/state-file.js';
import { assess, type Verdict } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { StatePaths } from '../../src/files/paths.js';
import type { PartialObservation } from '../../src/observe/parse/observation.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import type { TaskObserver } from '../../src/observe/read/observer.js';
import { createTelemetryObserver } from '../../src/observe/read/telemetry-observer.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../src/receive/otlp-receiver.js';
import { codexRowFields, codexSkip, jsonLines, startCodex, until, writeCodexConfig, type CodexSession } from '../helpers/codex-session.js';
import { tempDir } from '../helpers/temp-dir.js';
import { say, startResponsesServer, type ResponsesServer } from '../helpers/responses-server.js';

const WINDOW_MS = 8_000;
const policy = { ...DEFAULT_POLICY, baseTimeoutMs: WINDOW_MS };

async function rowOf(s: CodexSession): Promise<Task> {
  return normalizeTask({ ticket_id: 'CX-OTEL', ...(await codexRowFields(s)) } as never, Date.now());
}

/** One judgment of the row now, from the row and `observers`, merged through the Codex harness as the check does. */
async function judge(task: Task, observers: TaskObserver[], nowMs = Date.now()): Promise<Verdict> {
  const parts: PartialObservation[] = [{ source: 'row' }];
  for (const o of observers) {
    await o.beginCheck?.(nowMs);
    parts.push(...(await o.observe(task, nowMs)));
  }
  return assess(task, mergeObservations(parts, codexHarness), policy, nowMs);
}

describe.skipIf(codexSkip !== undefined)(`Codex OpenTelemetry as evidence (skipped: ${codexSkip ?? 'no'})`, () => {
  let server: ResponsesServer;
  let receiver: OtlpReceiver;
  let paths: StatePaths;
  beforeAll(async () => {
    server = await startResponsesServer();
    paths = new StatePaths(realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dw-cxotel-state-'))));
    receiver = await startOtlpReceiver({
      listen: { host: '127.0.0.1', port: 0, isLoopback: true },
      paths,
      maxRequestBytes: 4 << 20,
      maxRequestsPerSecond: 1000,
      nowMs: () => Date.now(),
    });
  });
  afterAll(async () => {
    await receiver.close();
    await server.close();
    rmSync(paths.root, { recursive: true, force: true });
  });

  /** A scratch CODEX_HOME whose config exports Codex's logs to our receiver (docs/codex.md). */
  const homeWithOtel = () => {
    const home = tempDir('dw-cxotel-home-');
    writeCodexConfig(home, server);
    appendFileSync(path.join(home, 'config.toml'), `[otel]\nexporter = { otlp-http = { endpoint = "${receiver.url}/v1/logs", protocol = "json" } }\n`);
    return home;
  };

  it('a model streaming longer than the window is healthy throughout with its telemetry; from its rollout alone it is stalled', async () => {
    // 48 characters, one every 400 ms: about 19 s of streaming, more than twice the window.
    server.script('CX-OTEL-STREAM', [{ items: [say('a slow and steady answer, one letter at a time..')], chunkMs: 400 }]);
    const s = startCodex({ server, prompt: 'CX-OTEL-STREAM answer', codexHome: homeWithOtel() });
    const task = await rowOf(s);
    const rolloutOnly = [createCodexObserver({ env: {} })];
    const withTelemetry = [createCodexObserver({ env: {} }), createTelemetryObserver({ paths, isPersistent: false })];
    const seen: { alone: Verdict; otel: Verdict }[] = [];
    let done = false;
    void s.exited.then(() => (done = true));
    while (!done) {
      const now = Date.now();
      seen.push({ alone: await judge(task, rolloutOnly, now), otel: await judge(task, withTelemetry, now) });
      await new Promise((r) => setTimeout(r, 250));
    }
    expect((await s.exited).code).toBe(0);
    const during = seen.filter((v) => v.otel.kind !== 'inconsistent'); // the finish itself: the row not updated yet
    expect(during.map((v) => v.otel.kind)).not.toContain('stalled');
    // Its telemetry was the evidence: progress newer than the rollout's, with a silence past the window on disk.
    expect(during.some((v) => v.alone.kind === 'stalled' && v.alone.stallReason === 'inactivity')).toBe(true);
    expect(during.some((v) => v.otel.sources.includes('telemetry') && v.otel.lastProgressMs! > v.alone.lastProgressMs! + WINDOW_MS)).toBe(true);
  });

  it('its frozen twin (a stream that stops mid-answer) is flagged a window after its last event arrived, not before', async () => {
    server.script('CX-OTEL-FROZEN', [{ freeze: 'mid_stream' }]);
    const s = startCodex({ server, prompt: 'CX-OTEL-FROZEN answer', codexHome: homeWithOtel() });
    const task = await rowOf(s);
    const observers = [createCodexObserver({ env: {} }), createTelemetryObserver({ paths, isPersistent: false })];
    // The stream's one delta (and its first-token event after it), received through Codex's telemetry about a second later.
    const thread = await s.threadId;
    await until(
      () => jsonLines(paths.telemetryFile(thread)).some((l) => l.kind === 'response.output_text.delta' || l.name === 'codex.turn_ttft'),
      "the frozen stream's delta in telemetry",
    );
    const first = await judge(task, observers);
    expect(first).toMatchObject({ kind: 'healthy', sources: expect.arrayContaining(['telemetry']) });
    // Codex's own idle timeout is 300 s: nothing more arrives while we wait out the window.
    const last = first.lastProgressMs!;
    await until(() => Date.now() > last + WINDOW_MS + 1 || undefined, 'the window', 30_000);
    const v = await judge(task, observers);
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
    expect(v.lastProgressMs).toBe(last);
    expect((await judge(task, observers, v.deadlineMs!)).kind).toBe('healthy');
    expect(server.of('CX-OTEL-FROZEN')).toHaveLength(1);
  });
});
