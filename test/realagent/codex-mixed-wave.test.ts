// A mixed wave under one watchdog (issue 35): a state file with Claude Code and Codex rows, judged
// by the real CLI (`--once`), each row by its own harness. The Codex rows are real `codex exec`
// 0.171.0 sessions: one whose stream froze before headers (stalled once its 5 s window passed),
// one that finished (the row still says in progress: inconsistent); the Claude Code row is active.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { codexRowFields, codexSkip, startCodex, until, type CodexSession } from '../helpers/codex-session.js';
import { say, startResponsesServer, type ResponsesServer } from '../helpers/responses-server.js';
import { readWatchdogJson, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'MIX-1';

/** The row a launching script writes for a Codex agent (docs/codex.md). */
async function codexRow(taskId: string, s: CodexSession) {
  return { task_id: taskId, ticket_id: `T-${taskId}`, ...(await codexRowFields(s)), dispatched_at: new Date().toISOString() };
}

describe.skipIf(codexSkip !== undefined)(`a mixed wave (skipped: ${codexSkip ?? 'no'})`, () => {
  let server: ResponsesServer;
  beforeAll(async () => (server = await startResponsesServer()));
  afterAll(() => server.close());

  it('judges Claude Code and Codex rows in one state file, each by its own evidence', async () => {
    server.script('MIX-FROZEN', [{ freeze: 'before_headers' }]);
    server.script('MIX-DONE', [{ items: [say('finished')] }]);
    const frozen = startCodex({ server, prompt: 'MIX-FROZEN go' });
    const done = startCodex({ server, prompt: 'MIX-DONE go' });
    const rows = [await codexRow('cx-frozen', frozen), await codexRow('cx-done', done)];
    await server.waitFor((r) => r.agent === 'MIX-FROZEN', 30_000, 'the frozen request');
    expect((await done.exited).code).toBe(0);
    const stateDir = tempDir();
    // Past the frozen agent's window: its last record is the prompt, written before the request went out.
    const promptAt = Date.parse(frozen.rollout().at(-1)!.timestamp);
    await until(() => Date.now() > promptAt + 5_500 || undefined, "the frozen agent's window to pass", 20_000);
    // A Claude Code row that recorded its own activity just now (no transcript: the row is its evidence),
    // inside a 10-minute Bash call (the seed's row rule: its window is the call's timeout + 60 s), so a
    // CLI that starts slowly on a loaded machine still finds it healthy, whatever the 5 s window.
    const claudeRow = {
      task_id: 'cc-1',
      ticket_id: 'T-cc-1',
      status: 'in_progress',
      last_activity_ts: new Date().toISOString(),
      last_tool_name: 'Bash',
      last_tool_timeout_ms: 600_000,
      dispatched_at: new Date().toISOString(),
    };
    writeWave(stateDir, EPIC, new Date().toISOString(), [...rows, claudeRow]);
    const r = await runCli(['--epic-id', EPIC, '--state-dir', stateDir, '--once', '--timeout', '5', '--action', 'report', '--json'], {
      env: { CLAUDE_CONFIG_DIR: tempDir() },
    });
    expect(r.code, r.stderr).toBe(3);
    const byId = Object.fromEntries(readWatchdogJson(stateDir, EPIC).tasks.map((t: Record<string, any>) => [t.task_id, t]));
    expect(byId['cx-frozen']).toMatchObject({ verdict: 'stalled' });
    expect(byId['cx-frozen'].reason).toMatch(/no progress for/);
    expect(byId['cx-done']).toMatchObject({ verdict: 'inconsistent' });
    expect(byId['cx-done'].reason).toMatch(/task_complete/);
    expect(byId['cc-1']).toMatchObject({ verdict: 'healthy' });
  });
});
