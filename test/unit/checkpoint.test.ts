// Recovery ids, checkpoint content and the recovery prompt: pure, plain data in and out.
import { describe, expect, it } from 'vitest';
import {
  buildCheckpoint,
  recoveredSubagents,
  recoveryTaskId,
  renderCheckpointYaml,
  renderRecoveryPrompt,
  type CheckpointInput,
} from '../../src/act/recovery/checkpoint.js';
import { parse as parseYamlText } from 'yaml';
import { completedFromCalls, workItems } from '../../src/act/recovery/work-items.js';
import { claudeCodeHarness } from '../../src/agents/claude-code/harness.js';
import { codexHarness } from '../../src/agents/codex/harness.js';
import { CheckpointSchema, type Checkpoint } from '../../src/contracts/checkpoint.js';
import type { ToolCall } from '../../src/observe/parse/observation.js';
import { makeTask, T0 } from '../helpers/builders.js';

describe('recoveryTaskId', () => {
  it.each([
    ['t1', 1, 't1-r1'],
    ['t1', 2, 't1-r2'],
    ['t1-r1', 2, 't1-r2'],
    ['task-abc-r12', 3, 'task-abc-r12-r3'], // -r12 is not attempt 2's suffix: part of the id
    ['feature-rx', 1, 'feature-rx-r1'],
    ['PROJ-1001', 1, 'PROJ-1001-r1'],
    ['t1-r2', 0, 't1'],
    ['a'.repeat(128), 1, 'a'.repeat(125) + '-r1'],
  ])('%s, attempt %i → %s', (id, attempt, want) => {
    expect(recoveryTaskId(id, attempt)).toBe(want);
  });
});

describe('workItems', () => {
  it.each<[string, unknown[], string[]]>([
    ['a list of strings', [['Write tests', 'Fix lint']], ['Write tests', 'Fix lint']],
    ['a bulleted string', ['- one\n* two\n1. three\n[x] four\n\n'], ['one', 'two', 'three', 'four']],
    ['objects with a title or description', [[{ title: 'A' }, { description: 'B' }, { id: 3 }]], ['A', 'B']],
    ['duplicates across sources', [['A'], 'A\nB'], ['A', 'B']],
    ['nothing usable', [undefined, 42, { a: 1 }], []],
  ])('takes %s', (_, sources, want) => {
    expect(workItems(sources)).toEqual(want);
  });

  it('caps long items', () => {
    expect(workItems([['x'.repeat(400)]])[0]).toHaveLength(300);
  });
});

describe('completedFromCalls', () => {
  const call = (c: Partial<ToolCall>): ToolCall => ({ name: 'Edit', isOpen: false, ...c });
  it('keeps finished edits and commits, not reads, open calls or errors', () => {
    const calls = [
      call({ inputSummary: 'src/a.ts' }),
      call({ name: 'Read', inputSummary: 'src/b.ts' }),
      call({ name: 'Write', inputSummary: 'src/c.ts', isOpen: true }),
      call({ name: 'MultiEdit', inputSummary: 'src/d.ts', error: 'old_string not found' }),
      call({ name: 'Bash', kind: 'shell', command: 'git commit -m "retry"\nmore', inputSummary: 'git commit' }),
      call({ name: 'Bash', kind: 'shell', command: 'npm test' }),
      // Any CLI's shell call (its harness gave the kind), never a tool that merely carries a command.
      call({ name: 'exec_command', kind: 'shell', command: 'git push origin HEAD' }),
      call({ name: 'Monitor', kind: 'other', command: 'git push' }),
    ];
    expect(completedFromCalls(calls, claudeCodeHarness)).toEqual(['Edit: src/a.ts', 'Bash: git commit -m "retry"', 'exec_command: git push origin HEAD']);
    expect(completedFromCalls([call({ name: 'apply_patch', inputSummary: 'src/x.rs' })], codexHarness)).toEqual(['apply_patch: src/x.rs']);
  });
});

const input = (over: Partial<CheckpointInput> = {}): CheckpointInput => ({
  epicId: 'PROJ-1000',
  task: makeTask({ lastOutput: 'Running the suite, rate limit?' }),
  attempt: 1,
  stallReason: 'inactivity',
  idleSeconds: 145.4,
  nowMs: T0 + 300_000,
  ...over,
});

describe('buildCheckpoint', () => {
  it('builds a valid checkpoint from the row and the observed calls', () => {
    const cp = buildCheckpoint(
      input({
        row: { completed_items: ['Implement retry'], remaining_work: '- Add the retry test\n- Update the changelog' },
        observation: {
          recentCalls: [{ name: 'Edit', inputSummary: 'src/retry.ts', isOpen: false }],
          lastTool: { name: 'Bash', command: 'npm test', timeoutMs: 600000, isOpen: true, inputSummary: 'npm test' },
          lastOutput: 'x'.repeat(1500),
        },
      }),
    );
    expect(CheckpointSchema.parse(cp)).toEqual(cp);
    expect(cp).toMatchObject({
      ticket_id: 'PROJ-1001',
      task_id: 't1',
      recovery_task_id: 't1-r1',
      attempt: 1,
      created_at: '2026-04-02T10:05:00Z',
      idle_seconds: 145,
      completed_work: ['Implement retry', 'Edit: src/retry.ts'],
      remaining_work: ['Add the retry test', 'Update the changelog'],
      last_tool: { name: 'Bash', command: 'npm test', input_summary: 'npm test', is_open: true },
      supersedes: null,
    });
    expect(cp.last_output).toHaveLength(1001);
  });

  it('leaves out of the remaining work what is done, however it is written (case, spacing, punctuation, a bullet or checkbox)', () => {
    const cp = buildCheckpoint(
      input({
        row: {
          completed_items: ['- [x] add the RETRY test.', 'Update  the changelog'],
          remaining_work: ['Add the retry test', 'update the changelog!', '2) [ ] Bump the version', 'Bump the version'],
        },
      }),
    );
    expect(cp.remaining_work).toEqual(['Bump the version']);
    expect(cp.completed_work).toEqual(['add the RETRY test.', 'Update  the changelog']);
    // The previous checkpoint's remaining work is matched the same way.
    const next = buildCheckpoint(
      input({
        attempt: 2,
        row: { completed_work: '* Add the retry test' },
        previous: { completed_work: [], remaining_work: ['Add the retry test.', 'Write the docs'] },
      }),
    );
    expect(next.remaining_work).toEqual(['Write the docs']);
  });

  it("carries the original prompt: the row's, else the previous checkpoint's, else the transcript's first prompt; redacted and capped", () => {
    expect(buildCheckpoint(input({ row: { prompt: 'Implement PROJ-1001: retries for the payment client' }, transcriptPrompt: 'other' })).original_prompt).toBe(
      'Implement PROJ-1001: retries for the payment client',
    );
    expect(
      buildCheckpoint(
        input({
          attempt: 2,
          previous: { completed_work: [], remaining_work: [], original_prompt: 'the first task' },
          transcriptPrompt: 'a replacement prompt',
        }),
      ).original_prompt,
    ).toBe('the first task');
    expect(buildCheckpoint(input({ transcriptPrompt: 'Fix it. Use LINEAR_API_KEY=lin_api_0123456789abcdef' })).original_prompt).toBe(
      'Fix it. Use LINEAR_API_KEY=[redacted]',
    );
    expect(buildCheckpoint(input({ transcriptPrompt: 'y'.repeat(20_000) })).original_prompt!.length).toBeLessThanOrEqual(8000);
    expect(buildCheckpoint(input({})).original_prompt).toBeUndefined();
  });

  it('falls back to the row for the last tool and output, and supersedes the previous attempt', () => {
    const cp = buildCheckpoint(input({ task: makeTask({ taskId: 't1-r1', lastToolName: 'Bash', lastToolCommand: 'make', lastOutput: 'done?' }), attempt: 2 }));
    expect(cp).toMatchObject({
      recovery_task_id: 't1-r2',
      last_tool: { name: 'Bash', command: 'make', is_open: false },
      last_output: 'done?',
      completed_work: [],
      remaining_work: [],
      supersedes: 'pipeline_checkpoints/PROJ-1001/recovery-1.yaml',
    });
  });
});

describe('renderRecoveryPrompt with the original task', () => {
  it('gives the original prompt first, then the narrowing: what is done and only what remains', () => {
    const cp = buildCheckpoint(input({ row: { prompt: 'Implement retries for the payment client.', remaining_work: ['Add the retry test'] } }));
    const prompt = renderRecoveryPrompt(cp, { checkpointPath: '/state/pipeline_checkpoints/PROJ-1001/recovery-1.yaml' });
    expect(prompt).toContain(
      'The original task, as the first agent was given it (for context: do only the remaining work below):\n<original-task>\nImplement retries for the payment client.\n</original-task>\n',
    );
    expect(prompt.indexOf('<original-task>')).toBeLessThan(prompt.indexOf('Remaining work (ONLY do these):\n1. Add the retry test'));
  });
});

describe('renderRecoveryPrompt', () => {
  const cp: Checkpoint = buildCheckpoint(
    input({
      row: { completed_items: ['Implement retry'], remaining_work: ['Add the retry test', 'Update the changelog'] },
      observation: { recentCalls: [], lastTool: { name: 'Bash', command: 'npm test -- --watch', isOpen: true } },
    }),
  );
  const prompt = renderRecoveryPrompt(cp, { checkpointPath: '/state/pipeline_checkpoints/PROJ-1001/recovery-1.yaml' });

  it.each([
    ['the attempt and ticket', 'Recovery redispatch #1 for PROJ-1001 (you are t1-r1; you replace t1).'],
    ['the checkpoint path', 'Checkpoint: /state/pipeline_checkpoints/PROJ-1001/recovery-1.yaml'],
    ['only the remaining work, numbered', 'Remaining work (ONLY do these):\n1. Add the retry test\n2. Update the changelog'],
    ['what was done', 'Already done (do NOT redo it; check it only if the remaining work depends on it):\n- Implement retry'],
    [
      'the stall',
      'The previous agent stalled (inactivity) after 145 s without progress; its last tool call was Bash (npm test -- --watch), which never returned.',
    ],
    ['no redo', '- Do NOT re-do completed work; read the checkpoint for details.'],
    ['targeted reads', 'Read with offset/limit'],
    [
      'the diagnosis stop',
      'write a diagnosis doc to /state/pipeline_checkpoints/PROJ-1001/diagnosis-1.md (what you tried, what failed, what you suspect) and stop.',
    ],
  ])('states %s', (_, text) => {
    expect(prompt).toContain(text);
  });

  it('context exhaustion narrows the scope harder; an API give-up is not called a stall of N s', () => {
    const out = renderRecoveryPrompt(buildCheckpoint(input({ stallReason: 'context_exhausted' })), { checkpointPath: '/c.yaml' });
    expect(out).toContain('The previous agent ran out of context ("Prompt is too long") and stopped');
    expect(out).toContain('- CONTEXT IS THE CONSTRAINT: take the remaining items one at a time, and commit after each one.');
    expect(prompt).not.toContain('CONTEXT IS THE CONSTRAINT');
    const api = renderRecoveryPrompt(buildCheckpoint(input({ stallReason: 'api_gave_up' })), { checkpointPath: '/c.yaml' });
    expect(api).toContain('The previous agent stopped on an API error it gave up on');
    expect(api).not.toContain('CONTEXT IS THE CONSTRAINT');
  });

  it('says what to do when the evidence lists no work', () => {
    const bare = renderRecoveryPrompt(buildCheckpoint(input()), { checkpointPath: '/c.yaml' });
    expect(bare).toContain('Remaining work: not recorded. Work out what is still missing for PROJ-1001');
    expect(bare).toContain('Already done: the evidence does not list finished items. Check `git status`');
    expect(bare).not.toContain('its last tool call');
  });
});

describe('completed work from tool calls', () => {
  it('names the edited file, not the edit text', () => {
    const calls = [
      { name: 'Edit', inputSummary: 'src/a.ts {"new_string":"x","old_string":"y"}', isOpen: false },
      { name: 'Write', inputSummary: 'src/b.ts #1a2b3c', isOpen: false },
      { name: 'Edit', inputSummary: 'src/c.ts {"new_string":"z"}', isOpen: true },
      { name: 'Bash', command: 'git commit -m "wip"', inputSummary: 'git commit -m "wip"', isOpen: false },
    ];
    // The calls as the merge leaves them (unclassified but the newest): the harness classifies the rest.
    expect(completedFromCalls(calls, claudeCodeHarness)).toEqual(['Edit: src/a.ts', 'Write: src/b.ts', 'Bash: git commit -m "wip"']);
    expect(completedFromCalls(calls, undefined)).toEqual([]);
  });
});

describe('renderCheckpointYaml', () => {
  it('quotes created_at, so a YAML 1.1 reader (which loads bare timestamps as dates) still gets a string', () => {
    const cp = buildCheckpoint(input({}));
    const text = renderCheckpointYaml(cp);
    expect(text).toContain('created_at: "2026-04-02T10:05:00Z"\n');
    const asYaml11 = parseYamlText(text, { version: '1.1' }) as Record<string, unknown>;
    expect(asYaml11.created_at).toBe('2026-04-02T10:05:00Z');
    expect(parseYamlText(text.replace('"2026-04-02T10:05:00Z"', '2026-04-02T10:05:00Z'), { version: '1.1' }).created_at).toBeInstanceOf(Date);
    expect(CheckpointSchema.parse(asYaml11)).toEqual(cp);
  });
});

describe('subagents recovered on rows of their own (a lead deferred to its child, recovered after it)', () => {
  const started = (task_id: string, agent_id: string, action: string, ticket_id = `P-${task_id}`) => ({
    started: { event: 'action_started', task_id, agent_id, ticket_id, action, key: `E:${task_id}:${action}` },
  });
  const history = (...records: ReturnType<typeof started>[]) =>
    ({ actions: new Map(records.map((r) => [r.started.key, r])) }) as unknown as Parameters<typeof recoveredSubagents>[0];

  it('names the children the agent waits on whose rows were redispatched or escalated, in the order it waits on them', () => {
    const h = history(
      started('sub2', 'a2', 'escalate'),
      started('sub1', 'a1', 'redispatch'),
      started('other', 'a9', 'redispatch'), // not a child of this agent
      started('sub3', 'a3', 'cancel'), // cancelled, not recovered: its work is still the lead's
      started('lead', 'a1', 'redispatch'), // the agent itself, never its own child
    );
    expect(recoveredSubagents(h, ['a1', 'a2', 'a3'], 'lead')).toEqual([
      { agent_id: 'a1', ticket_id: 'P-sub1', task_id: 'sub1', recovered_by: 'redispatch' },
      { agent_id: 'a2', ticket_id: 'P-sub2', task_id: 'sub2', recovered_by: 'escalate' },
    ]);
    expect(recoveredSubagents(h, [], 'lead')).toEqual([]);
  });

  it('are written into the checkpoint, carried over to the next one, and ruled out in the prompt', () => {
    const sub = { agent_id: 'a1', ticket_id: 'PROJ-1001', task_id: 'sub1', recovered_by: 'redispatch' as const };
    const cp = buildCheckpoint(input({ recoveredSubagents: [sub] }));
    expect(cp.recovered_subagents).toEqual([sub]);
    expect(CheckpointSchema.parse(parseYamlText(renderCheckpointYaml(cp)))).toEqual(cp);
    const prompt = renderRecoveryPrompt(cp, { checkpointPath: '/c.yaml' });
    expect(prompt).toContain('were recovered on rows of their own, and their tickets are taken care of: PROJ-1001 (row sub1, subagent a1).');
    expect(prompt).toContain('- Do NOT dispatch, start or redo the work of PROJ-1001: it is not yours.');
    const later = { agent_id: 'a2', ticket_id: 'PROJ-1002', task_id: 'sub2', recovered_by: 'escalate' as const };
    expect(renderRecoveryPrompt(buildCheckpoint(input({ recoveredSubagents: [later] })), { checkpointPath: '/c.yaml' })).toContain(
      'PROJ-1002 (row sub2, subagent a2: escalated, it waits on a person)',
    );
    expect(buildCheckpoint(input({ attempt: 2, previous: { ...cp }, recoveredSubagents: [later, sub] })).recovered_subagents).toEqual([sub, later]);
    // None: no field, no paragraph.
    const bare = buildCheckpoint(input());
    expect(bare).not.toHaveProperty('recovered_subagents');
    expect(renderRecoveryPrompt(bare, { checkpointPath: '/c.yaml' })).not.toContain('Do NOT dispatch');
  });
});
