// The commands a Codex agent runs, as the exemptions see them (issue 35): CI polling on
// `exec_command` (a plain command or `bash -lc '…'`), carried by the `write_stdin` polls of the
// yielded process; and code mode (catalog models), where the command is a string literal inside
// the JavaScript of a `custom_tool_call exec` (reference §8 h), carried by the `wait` polls of a
// yielded script. Records shaped as 0.171.0 writes them.
import { describe, expect, it } from 'vitest';
import { codexCallBudget, scriptCommands } from '../../src/agents/codex/parse/call-budget.js';
import { observeCodexThread } from '../../src/agents/codex/parse/observe-rollout.js';
import { emptyRollout, foldRolloutLine } from '../../src/agents/codex/parse/rollout.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { normalizeTask } from '../../src/contracts/state-file.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';

const T0 = Date.parse('2026-12-05T12:10:00.000Z');
const THREAD = '01a2461c-a06c-7772-8000-000000000002';
let ord = 0;
const rec = (atS: number, type: string, payload: Record<string, unknown>) =>
  JSON.stringify({ timestamp: new Date(T0 + atS * 1000).toISOString(), ordinal: ord++, type, payload });
const head = [rec(0, 'session_meta', { id: THREAD, cwd: '/w' }), rec(0.2, 'event_msg', { type: 'task_started', turn_id: 't1' })];
const fcall = (at: number, name: string, args: Record<string, unknown>, id: string) =>
  rec(at, 'response_item', { type: 'function_call', name, arguments: JSON.stringify(args), call_id: id });
const out = (at: number, id: string, output: string, type = 'function_call_output') => rec(at, 'response_item', { type, call_id: id, output });
const script = (at: number, input: string, id: string) => rec(at, 'response_item', { type: 'custom_tool_call', name: 'exec', call_id: id, input });
const task = normalizeTask({ ticket_id: 'CX-1', status: 'in_progress', session_id: THREAD, agent: 'codex' } as never, T0);
const policy = { ...DEFAULT_POLICY, baseTimeoutMs: 30_000 };
const judge = (lines: string[], atS: number) =>
  assess(
    task,
    mergeObservations([observeCodexThread(lines.reduce(foldRolloutLine, emptyRollout()), '/x.jsonl', { owner: 'alive', ownerPid: 1 })]),
    policy,
    T0 + atS * 1000,
  );

describe('codex commands: CI polling', () => {
  it('a yielded `gh pr checks --watch` is CI polling through its write_stdin polls', () => {
    const lines = [
      ...head,
      fcall(1, 'exec_command', { cmd: 'gh pr checks 42 --watch', yield_time_ms: 30_000 }, 'c1'),
      out(31, 'c1', 'Chunk ID: 1\nWall time: 30.0 seconds\nProcess running with session ID 7\nOutput:\n'),
      fcall(31.2, 'write_stdin', { session_id: 7, chars: '', yield_time_ms: 300_000 }, 'c2'),
    ];
    const v = judge(lines, 100);
    expect(v).toMatchObject({ kind: 'healthy', lastTool: 'write_stdin' });
    expect(v.exemptions).toContain('ci_polling');
    // Another command's poll is not.
    const other = lines.map((l) => l.replace('gh pr checks 42 --watch', 'npm run build'));
    expect(judge(other, 100).exemptions).not.toContain('ci_polling');
  });

  it.each([
    ["bash -lc 'gh run watch 123'", 'the string form'],
    [['/bin/bash', '-lc', 'gh run watch 123'], 'an argv'],
  ] as [string | string[], string][])('%s is CI polling (%s)', (cmd) => {
    const v = judge([...head, fcall(1, 'exec_command', { cmd, yield_time_ms: 30_000 }, 'c1')], 20);
    expect(v.exemptions).toContain('ci_polling');
  });
});

describe('codex commands: code mode', () => {
  const js = '// @exec: {"yield_time_ms": 5000}\nconst r = await tools.exec_command({cmd: "gh pr checks 7 --watch", yield_time_ms: 30000});\ntext(r.output);';

  it('the commands of a script are the string literals its tools.exec_command calls name', () => {
    expect(scriptCommands(js)).toEqual(['gh pr checks 7 --watch']);
    expect(scriptCommands(`await tools.exec_command({ "cmd": 'make -j4' });\nawait tools.exec_command({yield_time_ms: 5, cmd: \`echo "a\\tb"\`})`)).toEqual([
      'make -j4',
      'echo "a\tb"',
    ]);
    // Built at run time: not seen.
    expect(scriptCommands('const c = ["gh", "run", "watch"].join(" "); await tools.exec_command({cmd: c});')).toEqual([]);
    expect(codexCallBudget('exec', {}, js)).toMatchObject({ kind: 'shell', command: 'gh pr checks 7 --watch', timeoutMs: 5000 });
  });

  it('a script waiting on CI is CI polling, open and through the wait polls of its cell', () => {
    const open = [...head, script(1, js, 'call_c1')];
    expect(judge(open, 3)).toMatchObject({ kind: 'healthy', lastTool: 'exec' });
    expect(judge(open, 3).exemptions).toContain('ci_polling');
    const polled = [
      ...open,
      out(6, 'call_c1', 'Script running with cell ID 1\nWall time 5.0 seconds\n', 'custom_tool_call_output'),
      fcall(6.2, 'wait', { cell_id: '1', yield_time_ms: 30_000 }, 'call_w1'),
    ];
    const v = judge(polled, 100);
    expect(v).toMatchObject({ lastTool: 'wait' });
    expect(v.exemptions).toContain('ci_polling');
  });
});
