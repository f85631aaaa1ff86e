// Process liveness on real sessions (issue 19 item 1): a real `claude -p` streams a long answer
// slowly (its transcript silent until the message completes) or freezes mid-message; the watch
// loop, on a manual clock that runs ahead of the wall clock, samples its process between checks.
// A slow stream is healthy for three windows; a frozen one stalls one window after its last bytes.
// The session is found the way a skill row names it: session_id alone (its pid from
// ~/.claude/sessions/<pid>.json).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeSkip, startClaude } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { readEvents, readWatchdogJson, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startWatch } from '../helpers/watch-harness.js';
import { realObservers } from '../../src/wiring.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const S = 1000;
const hasSs = process.platform === 'linux' && ['/usr/bin/ss', '/bin/ss', '/usr/sbin/ss', '/sbin/ss'].some((p) => existsSync(p));

/** A session whose first reply streams (or freezes), its watch loop, and a way to step both. */
async function watched(marker: string, reply: Parameters<ModelServer['script']>[1][number]) {
  server.script(marker, [reply]);
  const s = startClaude({ server, prompt: `${marker}: explain the design at length` });
  await server.waitFor((r) => r.agent === marker && r.path.endsWith('/v1/messages'), 60_000, `${marker}'s request`);
  await until(() => existsSync(path.join(s.claudeDir, 'sessions', `${s.pid}.json`)), 30_000, 'the session file naming its pid');
  // Its transcript too (2.1.197 writes the prompt record a moment after the request): the loop's
  // clock runs ahead of real time, and a check before it exists rightly says "never started".
  await until(() => s.transcript().length > 0, 30_000, 'the session transcript');
  const stateDir = tempDir();
  writeWave(stateDir, 'E-PL', new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: s.sessionId }]);
  const observers = realObservers({ ...process.env, CLAUDE_CONFIG_DIR: s.claudeDir });
  const h = await startWatch({ epicId: 'E-PL', stateDir, action: 'report', timeout: 10, checkInterval: 5 }, Date.now(), { makeObservers: observers });
  const task = () => readWatchdogJson(stateDir, 'E-PL').tasks[0];
  return { s, h, task, stalls: () => readEvents(stateDir).filter((e) => e.event === 'stall_detected') as Record<string, any>[] };
}

describe.skipIf(claudeSkip !== undefined || !hasSs)('process liveness on a real claude -p session', () => {
  it('a stream still delivering tokens is healthy past three windows while its transcript is silent', async () => {
    const marker = 'SLOWSTREAM-1';
    const words = 'word '.repeat(400);
    const { s, h, task, stalls } = await watched(marker, { blocks: [text(words)], chunkMs: 150, chunkChars: 5 });
    const request = server.of(marker)[0]!;
    // Each step: real bytes arrive (the server keeps streaming, one delta per 150 ms), then the
    // loop's clock jumps 6 s: 36 s of loop time, more than three 10 s windows with no record written.
    for (let i = 0; i < 6; i++) {
      const before = Date.now();
      await until(() => Date.now() - before >= 400 || undefined, 5_000, 'a few more deltas');
      await h.advance(6 * S);
      expect(task(), JSON.stringify(task())).toMatchObject({ verdict: 'healthy' });
    }
    expect(request.outcome).toBeUndefined(); // still streaming
    expect(task().sources).toContain('process');
    expect(stalls()).toEqual([]);
    h.stop();
    await h.done;
    s.kill();
  });

  it('a frozen stream stalls one window after its last bytes', async () => {
    const marker = 'FROZENSTREAM-1';
    const { s, h, task, stalls } = await watched(marker, { blocks: [text('Let me think about this carefully.')], chunkChars: 4, freeze: 'mid_message' });
    for (let i = 0; i < 4 && stalls().length === 0; i++) await h.advance(6 * S);
    const stall = stalls()[0];
    expect(stall, JSON.stringify(task())).toMatchObject({ stall_reason: 'inactivity' });
    // Judged on the loop's clock, which wakes at the deadline: idle past the 10 s window (rounded
    // to 10) by at most one 6 s step.
    expect(stall!.idle_seconds).toBeGreaterThanOrEqual(10);
    expect(stall!.idle_seconds).toBeLessThanOrEqual(17);
    h.stop();
    await h.done;
    s.kill();
  });
});
