// A turn stopped by an SDK program's interrupt request (`--input-format stream-json`), on the real
// Claude Code with this checkout's plugin: 2.1.335+ fires the `Interrupt` hook (who stopped the
// turn, with what, how), so the row waits for a human even with hooks alone, where before it
// looked like a silent agent; the next prompt ends the wait. Older versions know no such event:
// the plugin keeps it in hooks/newer-events.json, and their hooks.json handlers still run (2.1.197
// drops every hook of a file naming an event it does not know); the transcript's interruption
// record makes the row wait there too.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALL_VERSIONS, describeVersions, interruptRequest, NEWEST, startClaude, userMessage } from '../helpers/claude-session.js';
import { REPO_ROOT, until } from '../helpers/cli.js';
import { bash, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { judge } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const activityOf = (file: string) => {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
  } catch {
    return [];
  }
};

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
      const activity = () => activityOf(path.join(stateDir, 'activity', `${sessionId}.ndjson`));
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
        const hooksOnly = tempDir();
        writeWave(hooksOnly, epic, new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: sessionId }]);
        mkdirSync(path.join(hooksOnly, 'activity'));
        const lines = activity().map(({ transcript_path: _, ...l }) => `${JSON.stringify(l)}\n`);
        writeFileSync(path.join(hooksOnly, 'activity', `${sessionId}.ndjson`), lines.join(''));
        const noTranscripts = tempDir();
        mkdirSync(path.join(noTranscripts, 'projects'));
        // Ten minutes later: waiting for a human, not a silent agent.
        const [alone] = await judge({ stateDir: hooksOnly, epic, claudeDir: noTranscripts, aheadMs: 600_000, args: ['--timeout', '60'] });
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
