// A turn stopped by an SDK program's interrupt request (`--input-format stream-json`), on the real
// Claude Code with this checkout's plugin: 2.1.335+ fires the `Interrupt` hook (who stopped the
// turn, with what, how), so the row waits for a human even with hooks alone, where before it
// looked like a silent agent; the next prompt ends the wait. Older versions know no such event:
// the plugin keeps it in hooks/newer-events.json, and their hooks.json handlers still run (2.1.197
// drops every hook of a file naming an event it does not know); the transcript's interruption
// record makes the row wait there too.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALL_VERSIONS, describeVersions, interruptRequest, NEWEST, OLDEST, readRecords, startClaude, userMessage } from '../helpers/claude-session.js';
import { REPO_ROOT, until } from '../helpers/cli.js';
import { agent, bash, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { judge, judgeHooksAlone } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

describeVersions(
  ALL_VERSIONS,
  'an SDK interrupt on a real session',
  (version) => {
    it(`the stopped turn waits for a human${version === NEWEST ? ', from the Interrupt hook alone,' : ''} until the next prompt`, async () => {
      const marker = `INTERRUPT-${version}`;
      server.script(marker, [{ blocks: [bash('node -e "setTimeout(() => {}, 120000)"')] }, { blocks: [text('Second turn done.')] }]);
      const stateDir = tempDir();
      const sessionId = crypto.randomUUID();
      const epic = `E-INT-${version}`;
      writeWave(stateDir, epic, new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: sessionId }]);
      const s = startClaude({
        server,
        version,
        sessionId,
        prompt: `${marker}: build`,
        streamInput: true,
        pluginDir: REPO_ROOT,
        env: { ONEX_STATE_DIR: stateDir },
      });
      const activity = () => readRecords(path.join(stateDir, 'activity', `${sessionId}.ndjson`));
      // The plugin's hooks.json handlers run on every version (newer-events.json beside them).
      await until(() => activity().some((l) => l.event === 'PreToolUse' && l.tool_name === 'Bash'), 60_000, 'the PreToolUse line of the long command');
      s.send(interruptRequest());
      await until(
        () => s.transcript().some((r) => r.type === 'user' && JSON.stringify(r.message?.content ?? '').includes('[Request interrupted by user')),
        30_000,
        'the interruption record',
      );
      if (version === NEWEST) {
        const line = await until(() => activity().find((l) => l.event === 'Interrupt'), 30_000, 'the Interrupt line');
        expect(line).toMatchObject({ session_id: sessionId, source: 'user', reason: 'stop', via: 'client' });
        // Hooks alone, as a watchdog sees a session whose transcripts are out of its reach (another
        // host, a container): the activity lines as written, without the transcript path they name.
        // Ten minutes later: waiting for a human, not a silent agent.
        const alone = await judgeHooksAlone({ sessionId, lines: activity(), aheadMs: 600_000, args: ['--timeout', '60'] });
        expect(alone, JSON.stringify(alone)).toMatchObject({ verdict: 'waiting_human', sources: ['hooks'] });
        expect(alone!.reason).toContain('Interrupt hook: the turn was stopped by a person');
      } else {
        expect(activity().some((l) => l.event === 'Interrupt')).toBe(false);
      }
      // With the transcript as well, on every version.
      const [both] = await judge({ stateDir, epic, claudeDir: s.claudeDir, aheadMs: 600_000, args: ['--timeout', '60'] });
      expect(both, JSON.stringify(both)).toMatchObject({ verdict: 'waiting_human' });
      // The next prompt ends the wait: the new turn finishes.
      s.send(userMessage(`${marker}: go on`));
      await until(() => activity().some((l) => l.event === 'Stop'), 60_000, "the next turn's Stop line");
      const [after] = await judge({ stateDir, epic, claudeDir: s.claudeDir, args: ['--timeout', '60'] });
      // Finished while its row still says in progress.
      expect(after, JSON.stringify(after)).toMatchObject({ verdict: 'inconsistent' });
      expect(after!.reason).toMatch(/^agent finished/);
      s.endInput();
      expect(await s.exited).toEqual({ code: 0, signal: null });
    });
  },
  { timeout: 120_000 },
);

// Background subagents by default: 2.1.332 and later (2.1.197's `-p` runs them in the foreground).
describeVersions(
  ALL_VERSIONS.filter((v) => v !== OLDEST),
  'a background subagent stopped by an SDK interrupt',
  (version) => {
    it('waits for a human: Claude Code marks its interruption as its own (rowSource harness), but its lead was told the task was killed, not that it stalled', async () => {
      const lead = `STOPPED-LEAD-${version}`;
      const sub = `STOPPED-SUB-${version}`;
      server.script(lead, [{ blocks: [agent(`${sub}: build`, { background: true })] }, { blocks: [text('Waiting on it.')] }, { blocks: [text('Done.')] }]);
      server.script(sub, [{ blocks: [bash('node -e "setTimeout(() => {}, 120000)"')] }, { blocks: [text('Built.')] }]);
      const s = startClaude({ server, version, prompt: `${lead}: dispatch`, streamInput: true });
      const [agentId] = await until(() => (s.subagentIds().length ? s.subagentIds() : undefined), 60_000, 'the subagent transcript');
      const file = path.join(s.subagentsDir, `agent-${agentId}.jsonl`);
      const records = () => readRecords(file);
      await until(() => records().some((r) => JSON.stringify(r.message?.content ?? '').includes('setTimeout')), 60_000, "the subagent's long command");
      // The lead's turn is over (it waits on the subagent); the interrupt stops the background work.
      s.send(interruptRequest());
      const stop = await until(
        () => records().find((r) => r.type === 'user' && JSON.stringify(r.message?.content ?? '').includes('[Request interrupted by user')),
        30_000,
        "the subagent's interruption record",
      );
      expect(stop.rowSource).toBe('harness');
      await until(() => readFileSync(s.transcriptPath, 'utf8').includes('<status>killed</status>'), 30_000, "the lead's killed notification");
      const stateDir = tempDir();
      writeWave(stateDir, 'E-STOPPED', new Date().toISOString(), [
        { task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', agent_id: agentId, session_id: s.sessionId },
      ]);
      // Before this was read from the lead's notification: "killed by Claude Code's own stall watchdog", acted on at once.
      const [now] = await judge({ stateDir, epic: 'E-STOPPED', claudeDir: s.claudeDir, args: ['--timeout', '60'] });
      expect(now, JSON.stringify(now)).toMatchObject({ verdict: 'waiting_human' });
      expect(now!.reason).toContain('stopped by the user or by the app connected to its session');
    });
  },
  { timeout: 120_000 },
);
