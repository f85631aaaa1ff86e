// A model turn that streams for more than four minutes is never called stalled (issue 19's goal on
// real sessions): a real `claude -p` gets one answer streamed at a delta a second for ~250 s. Claude
// Code writes nothing to its transcript until the message is complete, so the transcript is silent
// for twice the DEFAULT 120 s window; the watchdog (a real CLI process, real clock, the default
// window, `--check-interval 5`) finds the session's pid from ~/.claude/sessions/ and sees the bytes
// its API connection receives. Every check during the stream must say healthy, with checks made
// well past the window. Cost: ~4.5 min, so it lives in test/long/: `npm run test:long`, run by CI
// after `npm test`.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeSkip, startClaude } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { startWatchdog } from '../helpers/real-watchdog.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const hasSs = process.platform === 'linux' && ['/usr/bin/ss', '/bin/ss', '/usr/sbin/ss', '/sbin/ss'].some((p) => existsSync(p));
/** One delta a second for this many seconds: more than 4 minutes, twice the default window. */
const STREAM_S = 250;
const WINDOW_S = 120;

describe.skipIf(claudeSkip !== undefined || !hasSs)('a 4-minute streaming model turn on a real session', () => {
  it('is healthy at every check while it streams, past twice the default window, and never stalled', { timeout: (STREAM_S + 150) * 1000 }, async () => {
    const marker = 'STREAM4MIN-1';
    server.script(marker, [{ blocks: [text('abcd'.repeat(STREAM_S))], chunkMs: 1000, chunkChars: 4 }]);
    const stateDir = tempDir();
    const home = tempDir('dw-home-');
    const sessionId = crypto.randomUUID();
    writeWave(stateDir, marker, new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: sessionId }]);
    const w = startWatchdog({ stateDir, epic: marker, claudeDir: `${home}/.claude`, args: ['--check-interval', '5'] });
    await w.waitTask('t1', () => true, 'a first check');
    const s = startClaude({ server, prompt: `${marker}: explain the design at length`, home, sessionId });
    const request = await server.waitFor((r) => r.agent === marker && r.path.endsWith('/v1/messages'), 60_000, 'the long request');
    const startedAt = request.at;
    await until(() => request.outcome, (STREAM_S + 60) * 1000, 'the stream to end');
    const endedAt = request.endedAt!;
    expect(request.outcome).toBe('complete');
    expect(endedAt - startedAt).toBeGreaterThan(4 * 60_000);
    // Every check made while it streamed said healthy; some were made long past the window.
    const during = w
      .checks()
      .map((c) => ({ at: Date.parse(c.check_timestamp), t: c.tasks[0] }))
      .filter((c) => c.at > startedAt && c.at < endedAt && c.t);
    expect(during.filter((c) => c.t!.verdict !== 'healthy').map((c) => [c.at - startedAt, c.t!.verdict, c.t!.reason])).toEqual([]);
    const late = during.filter((c) => c.at - startedAt > (WINDOW_S + 30) * 1000);
    expect(late.length).toBeGreaterThan(10);
    expect(late.every((c) => c.t!.sources.includes('process'))).toBe(true);
    expect(Math.max(...during.map((c) => c.t!.effective_timeout_seconds as number))).toBe(WINDOW_S);
    expect(readEvents(stateDir).filter((e) => e.event === 'stall_detected')).toEqual([]);
    expect(await s.exited).toEqual({ code: 0, signal: null });
    w.stop();
  });
});
