// Real Claude Code 2.1.197 sessions exporting their OpenTelemetry straight to the watchdog's OTLP
// receiver (`--otlp`), with no shared filesystem: each session has its own HOME, and the watchdog's
// CLAUDE_CONFIG_DIR is an empty dir, so it judges them from telemetry alone. A second watchdog
// judges the same sessions from their transcripts; verdicts, stalls and recovery requests agree.
// And the partition rule: a session whose host falls silent with it is never called stalled.
import { mkdirSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeSkip, startClaude, type ClaudeSession } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { bash, startModelServer, type ModelServer } from '../helpers/model-server.js';
import { startWatchdog, type RunningWatchdog, type TaskView } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const WINDOW = '20';
const telemetryEnv = (port: number, host: string) => ({
  CLAUDE_CODE_ENABLE_TELEMETRY: '1',
  OTEL_LOGS_EXPORTER: 'otlp',
  OTEL_METRICS_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_PROTOCOL: host === 'agenthost-2' ? 'http/json' : 'http/protobuf',
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
  OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer t0ken-for-the-test',
  OTEL_LOGS_EXPORT_INTERVAL: '500',
  OTEL_LOG_TOOL_DETAILS: '1',
  OTEL_RESOURCE_ATTRIBUTES: `host.name=${host}`,
});

const requests = (stateDir: string, epic: string) => {
  const dir = path.join(stateDir, 'epics', epic, 'requests');
  return existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith('.')) : [];
};
const task = (w: RunningWatchdog, id: string): TaskView | undefined => w.tasks().find((t) => t.task_id === id);

describe.skipIf(claudeSkip !== undefined)('real sessions judged from their OpenTelemetry alone', { timeout: 240_000 }, () => {
  it('open call healthy, frozen stream stalled and recovered like from the transcript; a silent host is no stall', async () => {
    const otelDir = tempDir();
    const trDir = tempDir();
    const blind = tempDir(); // the telemetry watchdog's CLAUDE_CONFIG_DIR: it holds no transcript
    mkdirSync(path.join(blind, 'projects'), { recursive: true });
    const gate = tempDir();
    const args = ['--timeout', WINDOW, '--action', 'redispatch'];
    // Both waves exist before any session starts: rows written as the orchestrator dispatches.
    const dispatchedAt = new Date().toISOString();
    writeWave(otelDir, 'E-OT', dispatchedAt, []);
    const w = startWatchdog({
      stateDir: otelDir,
      epic: 'E-OT',
      claudeDir: blind,
      args: [...args, '--otlp', '127.0.0.1:0'],
      env: { DISPATCH_WATCHDOG_OTLP_TOKEN: 't0ken-for-the-test' },
    });
    const port = Number(
      (await until(() => /OTLP\/HTTP receiver on http:\/\/127\.0\.0\.1:(\d+)/.exec(w.output()) ?? undefined, 30_000, "the receiver's port"))[1],
    );

    // A: one long Bash call (open until the gate), then a response frozen after its headers.
    server.script('OTEL-A', [{ blocks: [bash(`while [ ! -e ${gate}/go ]; do sleep 0.1; done; echo built`)] }, { freeze: 'after_headers' }]);
    // B: the same host, busy throughout: its traffic shows host 1's link is up.
    server.script(
      'OTEL-B',
      Array.from({ length: 80 }, () => ({ blocks: [bash('sleep 1')] })),
    );
    // C: alone on host 2, frozen after one call: the host falls silent with it.
    server.script('OTEL-C', [{ blocks: [bash('echo hi')] }, { freeze: 'after_headers' }]);
    const start = (marker: string, host: string): ClaudeSession =>
      startClaude({ server, prompt: `${marker}: build the project`, env: telemetryEnv(port, host) });
    const a = start('OTEL-A', 'agenthost-1');
    const b = start('OTEL-B', 'agenthost-1');
    const c = start('OTEL-C', 'agenthost-2');
    const rows = (withTranscripts: boolean) =>
      [a, c].map((s, i) => ({
        task_id: `t${i + 1}`,
        ticket_id: `P-${i + 1}`,
        status: 'in_progress',
        session_id: s.sessionId,
        ...(withTranscripts ? { transcript_path: s.transcriptPath } : {}),
      }));
    writeWave(otelDir, 'E-OT', dispatchedAt, rows(false));
    writeWave(trDir, 'E-TR', dispatchedAt, rows(true));
    const wt = startWatchdog({ stateDir: trDir, epic: 'E-TR', claudeDir: blind, args });

    // A's Bash call is open past the window: healthy from both sources.
    const decided = await server.waitFor((r) => r.agent === 'OTEL-A' && r.turn === 0 && r.outcome === 'complete', 60_000, 'A asked for its Bash call');
    await w.waitTask(
      't1',
      (t) => t.verdict === 'healthy' && t.sources.includes('telemetry') && t.last_tool === 'Bash',
      'A healthy from telemetry, its Bash call seen',
      60_000,
    );
    await until(() => Date.now() - decided.endedAt! > 25_000, 40_000, 'the call open past the window');
    for (const wd of [w, wt]) expect(task(wd, 't1'), wd.output().slice(-400)).toMatchObject({ verdict: 'healthy' });
    expect(task(w, 't1')!.sources).toEqual(['telemetry']);
    expect(task(wt, 't1')!.sources).toContain('transcript');

    // The call returns and the model freezes: stalled from telemetry, as from the transcript.
    mkdirSync(path.join(gate, 'go'));
    const stalledOtel = await w.waitTask('t1', (t) => t.verdict === 'stalled', 'A stalled from telemetry', 90_000);
    const stalledTr = await wt.waitTask('t1', (t) => t.verdict === 'stalled', 'A stalled from its transcript', 90_000);
    for (const k of ['stall_reason', 'effective_timeout_seconds', 'exemptions', 'last_tool'] as const) expect(stalledOtel[k], k).toEqual(stalledTr[k]);
    // The same recovery request from each (a frozen stream: resume in the session).
    const reqOtel = await until(
      () => requests(otelDir, 'E-OT').find((f) => f.includes(':t1:') || f.includes('__t1__')),
      30_000,
      "the telemetry watchdog's request for t1",
    );
    const reqTr = await until(
      () => requests(trDir, 'E-TR').find((f) => f.includes(':t1:') || f.includes('__t1__')),
      30_000,
      "the transcript watchdog's request for t1",
    );
    expect(reqOtel.replace('E-OT', 'E')).toBe(reqTr.replace('E-TR', 'E'));

    // C's host went silent with C: never concluded from the telemetry; its transcript shows the stall.
    await wt.waitTask('t2', (t) => t.verdict === 'stalled', 'C stalled from its transcript', 90_000);
    const held = await w.waitTask('t2', (t) => t.verdict === 'unknown', 'C held by the partition rule', 30_000);
    expect(held.reason).toMatch(/the receiver has heard nothing at all from host agenthost-2 since .*: a network partition looks the same as a stall/);
    expect(requests(otelDir, 'E-OT').filter((f) => f.includes('t2'))).toEqual([]);
    expect(b.sessionId).toBeTruthy();
  });
});
