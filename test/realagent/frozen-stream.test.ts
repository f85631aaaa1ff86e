// A response that freezes (mid-message, after headers only, before any byte) on a real
// `claude -p` session: Claude Code writes no record while it waits, so the watchdog says
// stalled at the window's end, and healthy again once the request is sent again and answered.
// Claude Code's own ~300 s abandon is shortened: before any byte with API_TIMEOUT_MS (10 s; a
// real resend by Claude Code), once headers came by the server dropping the connection after
// 10 s (CLAUDE_STREAM_IDLE_TIMEOUT_MS cannot go below 300 s in 2.1.197, and its byte watchdog
// did not fire against a custom base URL here).
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeSkip, startClaude } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { bash, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { startWatchdog } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const WINDOW_S = 4;

describe.skipIf(claudeSkip !== undefined)('a frozen response on a real session', { timeout: 120_000 }, () => {
  it.each(['mid_message', 'after_headers', 'before_bytes'] as const)('frozen %s: stalled at the window, healthy again after the resend', async (freeze) => {
    const marker = `FROZEN-${freeze}`;
    const gate = tempDir();
    const frozen = { freeze, blocks: [text('thinking about it…')], ...(freeze === 'before_bytes' ? {} : { freezeMs: 10_000 }) };
    server.script(marker, [[frozen, { blocks: [bash(`while [ ! -e ${gate}/go ]; do sleep 0.1; done; echo ok`)] }], { blocks: [text('done')] }]);
    const stateDir = tempDir();
    const home = tempDir('dw-home-');
    const sessionId = crypto.randomUUID();
    writeWave(stateDir, marker, new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: sessionId }]);
    const w = startWatchdog({ stateDir, epic: marker, claudeDir: `${home}/.claude`, args: ['--timeout', String(WINDOW_S)] });
    await w.waitTask('t1', () => true, 'a first check');
    const s = startClaude({ server, prompt: `${marker}: work`, home, sessionId, env: { API_TIMEOUT_MS: '10000' } });
    await server.waitFor((r) => r.agent === marker && r.attempt === 0, 60_000, 'the first request');
    await w.waitTask('t1', (t) => t.verdict === 'stalled', 'stalled while the response is frozen');
    expect(server.of(marker)).toHaveLength(1);
    // The first check that says stalled is the first past the deadline (last record + window),
    // within 1 s of it at the load the suite is specified for (2 cores at load 8).
    await until(() => w.checks().some((c) => c.tasks[0]?.verdict === 'stalled'), 10_000, 'the check on stdout');
    const checks = w.checks();
    const i = checks.findIndex((c) => c.tasks[0]?.verdict === 'stalled');
    const deadline = Date.parse(checks[i]!.stalls_detected[0]!.last_activity) + WINDOW_S * 1000;
    const lateMs = Date.parse(checks[i]!.check_timestamp) - deadline;
    expect(lateMs).toBeGreaterThanOrEqual(0);
    // A check at the deadline itself is healthy (a stall is strictly longer); one past it only
    // when the watchdog woke late itself (a loaded machine): that time is nobody's silence.
    const before = checks[i - 1];
    if (before && Date.parse(before.check_timestamp) > deadline) expect(before.tasks[0]!.reason, JSON.stringify(before.tasks[0])).toContain('did not see pass');
    if (os.loadavg()[0]! <= 8) expect(lateMs, `flagged ${lateMs} ms after the deadline`).toBeLessThanOrEqual(1000);
    // The request is sent again (no record of the stall or the resend is written) and answered.
    const resent = await server.waitFor((r) => r.agent === marker && r.attempt === 1, 60_000, 'the resend');
    expect(resent.turn).toBe(0);
    const healthy = await w.waitTask('t1', (t) => t.verdict === 'healthy' && t.last_tool === 'Bash', 'healthy again after the resend');
    expect(healthy.exemptions).toContain('open_tool_call');
    mkdirSync(`${gate}/go`);
    expect(await s.exited).toEqual({ code: 0, signal: null });
  });
});
