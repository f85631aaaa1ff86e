// The harness proven on the real thing: a real `claude -p` session runs a Bash call longer than
// the stall window against the scripted model server; the watchdog, judging the wave from the
// session's real transcript, says healthy while the call runs and finished after the final answer
// (`inconsistent` while its row still says in_progress).
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALL_VERSIONS, describeVersions, startClaude } from '../helpers/claude-session.js';
import { runCli, until } from '../helpers/cli.js';
import { bash, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

describeVersions(
  ALL_VERSIONS,
  'a real claude -p session',
  (version) => {
    it('a Bash call longer than the window is healthy throughout, the session finished after its final answer', async () => {
      const marker = `LONGBASH-${version}`;
      const gate = tempDir();
      server.script(marker, [{ blocks: [bash(`while [ ! -e ${gate}/go ]; do sleep 0.1; done; echo built`)] }, { blocks: [text('All done: built.')] }]);
      const stateDir = tempDir();
      mkdirSync(stateDir, { recursive: true });
      const s = startClaude({ server, prompt: `${marker}: build the project`, version });
      writeWave(stateDir, 'E-LB', new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: s.sessionId }]);
      const judge = async (aheadMs = 0) => {
        const args = ['--epic-id', 'E-LB', '--state-dir', stateDir, '--action', 'report', '--json', '--timeout', '30'];
        const r = await runCli(aheadMs ? [...args, '--now', new Date(Date.now() + aheadMs).toISOString()] : [...args, '--once'], {
          env: { CLAUDE_CONFIG_DIR: s.claudeDir },
        });
        return JSON.parse(r.stdout).tasks[0];
      };
      // The Bash call is open in the transcript: judged now and as of 100 s later (past the 30 s window, inside Bash's 2-minute timeout), it is healthy.
      await until(
        () => s.transcript().some((r) => r.type === 'assistant' && JSON.stringify(r.message?.content).includes('tool_use')),
        60_000,
        'the Bash tool_use in the transcript',
      );
      const now = await judge();
      expect(now).toMatchObject({ verdict: 'healthy' });
      const later = await judge(100_000);
      // The seed's Bash rule (issue 33 item 7): Claude Code's own 120 s limit on the call (+ 5 s for it
      // to write the result), not the 30 s window (a false alarm) nor 120 s + 60 s (a crash a minute late).
      expect(later, JSON.stringify(later)).toMatchObject({ verdict: 'healthy', effective_timeout_seconds: 125, exemptions: ['bash_long_timeout'] });
      mkdirSync(`${gate}/go`);
      expect(await s.exited).toEqual({ code: 0, signal: null });
      expect(s.stream().at(-1)).toMatchObject({ type: 'result', is_error: false, result: 'All done: built.' });
      // Without hooks the transcript's end is an inferred finish: it counts once the window has
      // passed, and a row still in_progress then is `inconsistent` (the agent finished, the row lags).
      const done = await judge(31_000);
      expect(done, JSON.stringify(done)).toMatchObject({ verdict: 'inconsistent', sources: ['transcript'] });
      expect(done.reason).toMatch(/^agent finished/);
      // The server saw the tool result of the real Bash run.
      expect(JSON.stringify(server.of(marker)[1]?.body.messages.at(-1))).toContain('built');
    });
  },
  { timeout: 120_000 },
);
