// The process adapter on a real `claude -p` agent working in its own worktree: its response
// freezes, the watchdog stalls it at the window, kills the real pid and launches the replacement
// in the agent's own cwd (issue 17 item 3) with the recovery prompt, as the server's log shows.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { CLAUDE_BIN, claudeEnv, claudeSkip, startClaude } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { bash, contentText, lastToolResults, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { startWatchdog } from '../helpers/real-watchdog.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

describe.skipIf(claudeSkip !== undefined)('the process adapter on a real agent', { timeout: 120_000 }, () => {
  it("kills the real pid and relaunches in the agent's own cwd with the recovery prompt", async () => {
    const recovery = 'Recovery redispatch #1 for P-PROC';
    server.script(recovery, [{ blocks: [bash('pwd')] }, { blocks: [text('recovered')] }]);
    server.script('PROC-AGENT', [{ freeze: 'before_bytes' }]);
    const stateDir = tempDir();
    const home = tempDir('dw-home-');
    const worktree = tempDir('dw-worktree-');
    const s = startClaude({ server, prompt: 'PROC-AGENT: implement P-PROC', home, cwd: worktree });
    await server.waitFor((r) => r.agent === 'PROC-AGENT', 60_000, 'the agent asking the model');
    writeWave(stateDir, 'E-P', new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-PROC', status: 'in_progress', session_id: s.sessionId, pid: s.pid }]);
    const argv = [CLAUDE_BIN, '-p', '{prompt}', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'];
    writeFileSync(
      path.join(stateDir, 'watchdog.config.yaml'),
      `agents:\n  adapter: process\n  kill_grace_ms: 2000\n  redispatch_argv: ${JSON.stringify(argv)}\n`,
    );
    onTestFinished(() => {
      // The replacement was launched by the watchdog, detached: stop its group too.
      for (const e of readEvents(stateDir))
        if (e.event === 'redispatch' && typeof e.pid === 'number')
          for (const p of [-e.pid, e.pid])
            try {
              process.kill(p, 'SIGKILL');
            } catch {
              /* gone */
            }
    });
    const w = startWatchdog({
      stateDir,
      epic: 'E-P',
      claudeDir: s.claudeDir,
      args: ['--timeout', '10', '--action', 'redispatch', '--max-redispatches', '1'],
      env: claudeEnv(server, home),
    });
    // The stalled agent is stopped: the real process exits.
    expect((await s.exited).signal ?? 'exited').toBeTruthy();
    const killed = await until(() => readEvents(stateDir).find((e) => e.event === 'agent_killed'), 30_000, 'agent_killed');
    expect(killed).toMatchObject({ key: 'E-P:t1:redispatch' });
    // The replacement asks the model with the recovery prompt, runs pwd in the agent's worktree.
    const second = await server.waitFor(
      (r) => r.agent === recovery && r.turn === 1,
      60_000,
      `the replacement's second request (watchdog: ${w.output().slice(-400)})`,
    );
    expect(contentText(second.body.messages[0].content)).toContain('Recovery redispatch #1 for P-PROC (you are t1-r1; you replace t1)');
    expect(lastToolResults(second)[0]?.text.trim()).toBe(worktree);
    expect(readEvents(stateDir).find((e) => e.event === 'redispatch')).toMatchObject({
      recovery_task_id: 't1-r1',
      detail: expect.stringContaining(` in ${worktree}`),
    });
  });
});
