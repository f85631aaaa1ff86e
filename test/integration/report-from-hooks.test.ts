// End to end through the hook: payloads go through the real `dispatch-watchdog hook`
// command; the real CLI judges the task from that activity alone (no transcript is found).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const base = { session_id: 'sess-h1', agent_id: 'a1h', cwd: '/repo', transcript_path: '/nowhere/sess-h1.jsonl' };

describe('hook activity as the only evidence', () => {
  it('an open 10-minute Bash call is healthy, a permission prompt is waiting_human, a closed call then silence is a stall', async () => {
    const dir = tempDir();
    const claudeDir = tempDir();
    const env = { CLAUDE_CONFIG_DIR: claudeDir };
    mkdirSync(path.join(dir, 'activity'), { recursive: true });
    const hook = (payload: object) => runCli(['hook', '--state-dir', dir], { input: JSON.stringify({ ...base, ...payload }), env });
    const judge = async (afterSeconds: number) => {
      const r = await runCli(
        ['--epic-id', 'E-H', '--state-dir', dir, '--action', 'report', '--json', '--now', new Date(Date.now() + afterSeconds * 1000).toISOString()],
        { env },
      );
      return { code: r.code, task: JSON.parse(r.stdout).tasks[0] };
    };
    writeWave(dir, 'E-H', new Date(Date.now() - 60_000).toISOString(), [
      { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', agent_id: 'a1h', session_id: 'sess-h1' },
    ]);

    const pre = await hook({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_use_id: 'toolu_b1',
      tool_input: { command: 'npm run build', timeout: 600000 },
    });
    expect(pre).toEqual({ code: 0, stdout: '', stderr: '' });
    const open = await judge(400);
    expect(open.code).toBe(0);
    expect(open.task).toMatchObject({ verdict: 'healthy', exemptions: ['bash_long_timeout', 'open_tool_call'], last_tool: 'Bash', sources: ['hooks'] });
    expect(open.task.reason).toContain('transcript');

    await hook({ hook_event_name: 'Notification', notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' });
    expect((await judge(400)).task).toMatchObject({ verdict: 'waiting_human' });

    await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_use_id: 'toolu_b1',
      tool_input: { command: 'npm run build', timeout: 600000 },
      tool_response: { stdout: 'ok' },
    });
    await hook({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_use_id: 'toolu_r1', tool_input: { file_path: '/repo/a.ts' } });
    await hook({ hook_event_name: 'PostToolUse', tool_name: 'Read', tool_use_id: 'toolu_r1', tool_input: { file_path: '/repo/a.ts' }, tool_response: {} });
    const stalled = await judge(400);
    expect(stalled.code).toBe(3);
    expect(stalled.task).toMatchObject({ verdict: 'stalled', last_tool: 'Read' });
  });
});
