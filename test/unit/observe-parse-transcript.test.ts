import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  backgroundWaits,
  childCompletion,
  parseTranscriptLine,
  parseTranscriptText,
  runningTasks,
  summarizeTranscript,
  transcriptContradictions,
} from '../../src/agents/claude-code/parse/parse-transcript.js';
import { RECENT_CALLS_MAX, runningAgents } from '../../src/agents/claude-code/parse/transcript-state.js';
import { inferredBackground } from '../../src/agents/claude-code/parse/observe-transcript.js';
import { apiError, assistant, jsonl, ms, notification, progress, system, text, toolResult, toolUse, user } from '../helpers/claude-lines.js';

const summarize = (...lines: string[]) => {
  const { state, diagnostics } = parseTranscriptText(jsonl(...lines), 'a.jsonl');
  return { part: summarizeTranscript(state), state, diagnostics };
};

describe('parseTranscriptText → summarizeTranscript', () => {
  it("keeps the session's own first cwd, never a later record's that may point elsewhere: where a replacement must work (issue 36 item 5)", () => {
    const { part } = summarize(user(0, 'go', { cwd: '/repo/wt-1' }), assistant(1, [text('cd done')], { cwd: '/repo/wt-2-another-ticket' }));
    expect(part.cwd).toBe('/repo/wt-1');
    expect(summarize(user(0, 'go')).part.cwd).toBeUndefined();
  });

  it.each([
    {
      name: 'an open Bash call with its timeout and command',
      lines: [assistant(0, [toolUse('t1', 'Bash', { command: 'mix test', timeout: 600000 })])],
      expected: {
        lastProgressMs: ms(0),
        lastTool: { name: 'Bash', command: 'mix test', timeoutMs: 600000, isOpen: true, startedAtMs: ms(0), toolUseId: 't1', inputSummary: 'mix test' },
      },
    },
    {
      name: 'a call paired with its result by tool_use_id',
      lines: [assistant(0, [toolUse('t1', 'Read', { file_path: '/a.ts' })]), user(2, [toolResult('t1')])],
      expected: { lastProgressMs: ms(2), lastTool: { name: 'Read', isOpen: false, inputSummary: '/a.ts' } },
    },
    {
      name: 'an is_error result carries its text',
      lines: [assistant(0, [toolUse('t1', 'Bash', { command: 'git add x' })]), user(1, [toolResult('t1', 'Exit code 1\nignored path', true)])],
      expected: { lastTool: { name: 'Bash', isOpen: false, error: 'Exit code 1\nignored path' } },
    },
    {
      name: 'run_in_background marks the call as background',
      lines: [assistant(0, [toolUse('t1', 'Bash', { command: 'mix phx.server', run_in_background: true })])],
      expected: { lastTool: { name: 'Bash', isBackground: true, isOpen: true } },
    },
    {
      name: 'Task (≤2.1.62) launches a subagent',
      lines: [assistant(0, [toolUse('t1', 'Task', { subagent_type: 'Explore', description: 'Explore code', prompt: 'p' })])],
      expected: { lastTool: { name: 'Task', inputSummary: 'Explore: Explore code', isOpen: true } },
    },
    {
      name: 'Agent (≥2.1.63) launches a subagent',
      lines: [assistant(0, [toolUse('t1', 'Agent', { subagent_type: 'general-purpose', description: 'Fix bug', prompt: 'p' })])],
      expected: { lastTool: { name: 'Agent', inputSummary: 'general-purpose: Fix bug', isOpen: true } },
    },
    {
      name: 'API retry records while they are the newest',
      lines: [assistant(0, [text('working')]), apiError(5, 1), apiError(6, 2)],
      expected: { isApiRetrying: true, lastProgressMs: ms(6) },
    },
    {
      name: 'API retries followed by a reply are over',
      lines: [apiError(5, 1), assistant(9, [text('back')])],
      expected: { lastOutput: 'back' },
      absent: ['isApiRetrying'],
    },
    {
      name: 'bash_progress lines are liveness',
      lines: [
        assistant(0, [toolUse('t1', 'Bash', { command: 'mix test', timeout: 60000 })]),
        progress(40, { type: 'bash_progress', elapsedTimeSeconds: 40, timeoutMs: 60000 }, 't1'),
      ],
      expected: { lastProgressMs: ms(40), lastTool: { name: 'Bash', isOpen: true, startedAtMs: ms(0) } },
    },
    {
      name: 'bash_progress of a call before a tail start rebuilds the open call',
      lines: [progress(100, { type: 'bash_progress', elapsedTimeSeconds: 90, timeoutMs: 600000 }, 't9')],
      expected: { lastTool: { name: 'Bash', isOpen: true, startedAtMs: ms(10), timeoutMs: 600000, toolUseId: 't9' } },
    },
    {
      name: 'compaction is liveness',
      lines: [
        assistant(0, [text('x')]),
        system(30, 'compact_boundary', { compactMetadata: { trigger: 'auto', preTokens: 170251 } }),
        user(30, 'This session is being continued…', { isCompactSummary: true }),
      ],
      expected: { lastProgressMs: ms(30) },
    },
    {
      name: 'the last assistant text is lastOutput',
      lines: [assistant(0, [text('first')]), assistant(1, [text('second'), toolUse('t1', 'Read', { file_path: '/x' })])],
      expected: { lastOutput: 'second', outputGrewAtMs: ms(1) },
    },
    {
      name: 'a final stream-json result record means finished',
      lines: [
        assistant(0, [text('done')]),
        JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'All done', timestamp: '2026-02-12T10:00:05.000Z' }),
      ],
      expected: { finished: { kind: 'result success', atMs: ms(5) }, lastOutput: 'All done' },
    },
    {
      name: 'a turn that ended with nothing pending means finished',
      lines: [assistant(0, [text('done')]), system(1, 'stop_hook_summary'), system(1, 'turn_duration', { durationMs: 900 })],
      expected: { finished: { kind: 'turn ended', atMs: ms(1) } },
    },
    {
      name: 'an open AskUserQuestion waits for a human',
      lines: [assistant(0, [toolUse('t1', 'AskUserQuestion', { questions: [{ question: 'Which DB?' }] })])],
      expected: { waitingHuman: { kind: 'ask_user_question', sinceMs: ms(0) } },
    },
    {
      name: 'unknown record types are ignored',
      lines: [
        assistant(0, [text('x')]),
        JSON.stringify({ type: 'brand-new-thing', timestamp: '2026-02-12T11:00:00Z' }),
        JSON.stringify({ type: 'file-history-snapshot', snapshot: {} }),
      ],
      expected: { lastProgressMs: ms(0) },
    },
    {
      name: 'an interruption ([Request interrupted by user]) is not progress',
      lines: [assistant(0, [text('working')]), user(600, [text('[Request interrupted by user]')])],
      expected: { lastProgressMs: ms(0) },
    },
    {
      name: 'Claude Code\'s kill records at a run\'s end ("User rejected tool use", [Request interrupted by user for tool use], 2.1.332) are not progress; the call is closed',
      lines: [
        assistant(0, [toolUse('t1', 'Bash', { command: 'node build.js', timeout: 600000 })], { isSidechain: true, agentId: 'a1' }),
        user(600, [toolResult('t1', 'User rejected tool use', true)], { isSidechain: true, agentId: 'a1' }),
        user(600, [text('[Request interrupted by user for tool use]')], { isSidechain: true, agentId: 'a1' }),
      ],
      expected: { lastProgressMs: ms(0), lastTool: { name: 'Bash', toolUseId: 't1', isOpen: false } },
    },
    {
      name: 'a long Bash still open is the last tool even when a parallel call returned later',
      lines: [
        assistant(0, [toolUse('t1', 'Bash', { command: 'make test', timeout: 600000 })]),
        assistant(0, [toolUse('t2', 'Read', { file_path: '/x' })]),
        user(1, [toolResult('t2')]),
      ],
      expected: { lastTool: { name: 'Bash', toolUseId: 't1', isOpen: true } },
    },
  ] as { name: string; lines: string[]; expected: object; absent?: string[] }[])('$name', ({ lines, expected, absent }) => {
    const { part, diagnostics } = summarize(...lines);
    expect(diagnostics).toEqual([]);
    expect(part).toMatchObject({ source: 'transcript', ...expected });
    for (const key of absent ?? []) expect(part).not.toHaveProperty(key);
  });

  it('calls a turn finished while a background shell still runs (a dev server never exits), and says so', () => {
    const lines = [
      assistant(0, [toolUse('t1', 'Bash', { command: 'mix test', timeout: 60000 })]),
      user(61, [toolResult('t1', 'Command running in background with ID: b1.')], { toolUseResult: { stdout: '', backgroundTaskId: 'b1' } }),
      system(62, 'turn_duration'),
    ];
    const running = summarize(...lines);
    expect(runningTasks(running.state)).toEqual(['b1']);
    expect(running.part.finished).toEqual({ kind: 'turn ended, 1 background task still running', atMs: ms(62) });
    const done = summarize(...lines, user(200, notification('b1', 'completed')), assistant(201, [text('tests pass')]), system(202, 'turn_duration'));
    expect(runningTasks(done.state)).toEqual([]);
    expect(done.part.finished).toMatchObject({ kind: 'turn ended' });
  });

  it('reports a child agent completed by its Task result or a task-notification', () => {
    const { state } = summarize(
      assistant(0, [toolUse('t1', 'Task', { subagent_type: 'Explore', description: 'd', prompt: 'p' })]),
      user(58, [toolResult('t1', [text('summary')])], { toolUseResult: { status: 'completed', agentId: 'a93ccab', totalDurationMs: 58000 } }),
      assistant(60, [toolUse('t2', 'Agent', { description: 'bg', prompt: 'p', run_in_background: true })]),
      user(61, [toolResult('t2', 'launched')], { toolUseResult: { status: 'async_launched', agentId: 'abg', outputFile: '/tmp/o' } }),
    );
    expect(childCompletion(state, 'a93ccab')).toEqual({ atMs: ms(58) });
    expect(childCompletion(state, 'abg')).toBeUndefined();
    const later = parseTranscriptText(jsonl(user(90, notification('abg', 'completed')))).state;
    expect(childCompletion(later, 'abg')).toEqual({ atMs: ms(90) });
  });

  describe('a turn that ended while a background subagent runs', () => {
    const launched = [
      assistant(0, [toolUse('t1', 'Agent', { description: 'review', prompt: 'p', run_in_background: true })]),
      // 2.1.x writes the launch as text too; a record without toolUseResult is recognised by it.
      user(1, [
        toolResult('t1', [
          text(
            'Async agent launched successfully.\nagentId: aa713ded844f2cbf7 (internal ID - do not mention to user.)\nThe agent is working in the background.',
          ),
        ]),
      ]),
      assistant(2, [text('Started the review in the background.')]),
      system(3, 'turn_duration'),
    ];

    it('is not finished: the agent waits on it', () => {
      const { part, state } = summarize(...launched);
      expect(runningAgents(state)).toEqual(['aa713ded844f2cbf7']);
      expect(backgroundWaits(state)).toEqual(['aa713ded844f2cbf7']);
      expect(part).not.toHaveProperty('finished');
    });

    it.each([
      ['a <task-notification> (queued or delivered)', user(300, notification('aa713ded844f2cbf7', 'completed'))],
      [
        'an <agent-notification> (earlier builds)',
        user(
          300,
          '<agent-notification>\n<agent-id>aa713ded844f2cbf7</agent-id>\n<output-file>/tmp/claude/x/tasks/aa713ded844f2cbf7.output</output-file>\n<status>completed</status>\n<summary>Agent "review" completed.</summary>\nRead the output file to retrieve the full result.\n</agent-notification>',
        ),
      ],
      [
        'a TaskOutput result of the agent (AgentOutput)',
        user(300, [toolResult('t7', 'failed')], { toolUseResult: { status: 'failed', agentId: 'aa713ded844f2cbf7', content: [] } }),
      ],
      ['a stream-json task_notification', system(300, 'task_notification', { task_id: 'aa713ded844f2cbf7', status: 'failed' })],
      ['a stream-json task_updated', system(300, 'task_updated', { task_id: 'aa713ded844f2cbf7', patch: { status: 'killed' } })],
    ])('its end in %s wakes the agent: a new turn begins (progress now, not finished), finished when it has answered', (_, end) => {
      const woken = summarize(...launched, end);
      expect(backgroundWaits(woken.state)).toEqual([]);
      expect(woken.part).toMatchObject({ lastProgressMs: ms(300) });
      expect(woken.part).not.toHaveProperty('finished');
      const answered = summarize(...launched, end, assistant(305, [text('The review found nothing.')]), system(306, 'turn_duration'));
      expect(answered.part.finished).toEqual({ kind: 'turn ended', atMs: ms(306) });
    });

    it('a notification that names the launching call (<tool-use-id>) ends the agent whatever its task id', () => {
      const lines = [
        assistant(0, [toolUse('t1', 'Agent', { description: 'review', prompt: 'p', run_in_background: true })]),
        user(1, [toolResult('t1', 'launched')], { toolUseResult: { isAsync: true, status: 'async_launched', agentId: 'aa713ded844f2cbf7' } }),
        system(3, 'turn_duration'),
      ];
      const text = notification('task-42', 'completed').replace('</task-id>', '</task-id>\n<tool-use-id>t1</tool-use-id>');
      const { state, part } = summarize(...lines, user(300, text));
      expect(runningAgents(state)).toEqual([]);
      expect(part).toMatchObject({ lastProgressMs: ms(300) });
      expect(part).not.toHaveProperty('finished');
    });

    it('its agent_progress lines never reopen the launch as a foreground call: past the 20 recent calls, or in a cold tail that begins at the turn end', () => {
      const progressOf = (s: number) =>
        progress(s, { type: 'agent_progress', agentId: 'aa713ded844f2cbf7', prompt: 'p', message: { type: 'assistant' } }, 't1');
      const edits = Array.from({ length: 25 }, (_, i) => [
        assistant(10 + i * 2, [toolUse(`e${i}`, 'Edit', { file_path: `/f${i}` })]),
        user(11 + i * 2, [toolResult(`e${i}`)]),
      ]).flat();
      const after = [assistant(70, [text('Edits done.')]), system(71, 'turn_duration'), progressOf(80), progressOf(90)];
      const whole = summarize(...launched.slice(0, 2), ...edits, ...after);
      // The tail a cold start may trust alone (it holds a turn boundary): the launch is before it.
      const tail = summarize(...after.slice(1));
      for (const { state } of [whole, tail]) {
        expect(state.open).toEqual([]);
        expect(runningAgents(state)).toEqual(['aa713ded844f2cbf7']);
        expect(state.recent.some((c) => c.toolUseId === 't1')).toBe(false);
      }
      expect(tail.part.waitingOnChildren).toEqual(whole.part.waitingOnChildren);
      expect(tail.part.finished).toEqual(whole.part.finished);
    });

    it('agents_killed (the user stopped every background agent) ends the wait without waking the agent', () => {
      const { part } = summarize(...launched, system(300, 'agents_killed'));
      expect(part.finished).toEqual({ kind: 'turn ended', atMs: ms(3) });
    });

    it("a cold read that missed the launch is woken by an agent-shaped task id only; a shell's end wakes nothing", () => {
      const tail = [assistant(2, [text('Started.')]), system(3, 'turn_duration')];
      expect(summarize(...tail, user(300, notification('aa713ded844f2cbf7', 'completed'))).part).not.toHaveProperty('finished');
      expect(summarize(...tail, user(300, notification('b7636e2', 'completed'))).part.finished).toMatchObject({ kind: 'turn ended' });
    });
  });

  describe('a cold tail start that missed a background launch (inferredBackground)', () => {
    const id = 'aa713ded844f2cbf7';
    const tail = [assistant(200, [text('Started the review.')]), system(201, 'turn_duration')];
    const parentOf = (lines: string[], isTailStart = true) => ({
      ...parseTranscriptText(jsonl(...lines)).state,
      ...(isTailStart ? { isTailStart: true } : {}),
    });
    const childOf = (agentId: string, lines: string[], startedAtMs = ms(1)) => ({ agentId, startedAtMs, state: parseTranscriptText(jsonl(...lines)).state });
    const working = [assistant(150, [toolUse('c1', 'Read', { file_path: '/x' })]), user(151, [toolResult('c1')])];

    // Beyond the read-back bound (no `launch`): only a child at work during the part read, without a final answer.
    it('waits on a child that began before the part read, is not named in it, and is at work during it', () => {
      expect(inferredBackground(parentOf(tail), [childOf(id, [...working, assistant(250, [toolUse('c2', 'Read', { file_path: '/y' })])])])).toEqual([id]);
    });

    it.each([
      ['the parent was read from its first byte', parentOf(tail, false), childOf(id, working)],
      [
        'the child answered before the part read began (its end was reported there too)',
        parentOf(tail),
        childOf(id, [...working, assistant(160, [text('done')])]),
      ],
      ['the child has written its final answer', parentOf(tail), childOf(id, [...working, assistant(250, [text('done')])])],
      ['the child has been silent since before the part read (it may have died long ago)', parentOf(tail), childOf(id, working)],
      ['the part read names the child (its notification)', parentOf([...tail, user(300, notification(id, 'completed'))]), childOf(id, working)],
      ['the child began inside the part read', parentOf(tail), childOf(id, working, ms(200))],
      ['the child is not agent-shaped (a teammate)', parentOf(tail), childOf('researcher@team', working)],
      ['the parent is still in its turn', parentOf([assistant(200, [toolUse('t9', 'Bash', { command: 'make' })])]), childOf(id, working)],
    ])('infers nothing when %s', (_, parent, child) => {
      expect(inferredBackground(parent, [child])).toEqual([]);
    });

    it("the parent's earlier bytes, when read back, decide: launched and not ended, or not", () => {
      const answered = [...working, assistant(160, [text('done')])];
      expect(inferredBackground(parentOf(tail), [{ ...childOf(id, answered), launch: 'running' }])).toEqual([id]);
      expect(inferredBackground(parentOf(tail), [{ ...childOf(id, working), launch: 'ended' }])).toEqual([]);
      expect(inferredBackground(parentOf(tail), [{ ...childOf(id, working), launch: 'none' }])).toEqual([]);
    });
  });

  describe('a stream-json run (claude -p) resumed into the same file after its result', () => {
    // `--output-format stream-json` records: `session_id`, a `system/init` per run, a final `result`.
    const sj = (o: Record<string, unknown>, s?: number) =>
      JSON.stringify({ session_id: 'run-1', ...o, ...(s === undefined ? {} : { timestamp: new Date(ms(s)).toISOString() }) });
    const init = (s: number) => sj({ type: 'system', subtype: 'init', cwd: '/w', tools: ['Read', 'Bash'], model: 'm' }, s);
    const result = (s: number) => sj({ type: 'result', subtype: 'success', is_error: false, result: 'Done.' }, s);
    const say = (s: number, content: Record<string, unknown>[], id: string) => sj({ type: 'assistant', message: { id, role: 'assistant', content } }, s);
    const firstRun = [
      init(0),
      say(1, [toolUse('t1', 'Read', { file_path: '/a' })], 'm1'),
      sj({ type: 'user', message: { role: 'user', content: [toolResult('t1')] } }, 2),
      say(3, [text('All done.')], 'm2'),
      result(4),
    ];

    it('the result finishes the first run', () => {
      expect(summarize(...firstRun).part.finished).toEqual({ kind: 'result success', atMs: ms(4) });
    });

    it.each([
      { name: 'its system/init', more: [init(100)] },
      { name: 'the agent at work', more: [init(100), say(101, [toolUse('t2', 'Bash', { command: 'npm test' })], 'm3')] },
      { name: 'a new prompt', more: [user(100, 'Now fix the failing test.')] },
    ])('no longer finished once the resumed run shows: $name (a run that hangs then stalls)', ({ more }) => {
      const { part, state } = summarize(...firstRun, ...more);
      expect(part.finished).toBeUndefined();
      expect(state.result).toBeUndefined();
    });

    it("finished again by the resumed run's own result", () => {
      const { part } = summarize(...firstRun, init(100), say(101, [text('Fixed.')], 'm3'), result(102));
      expect(part.finished).toEqual({ kind: 'result success', atMs: ms(102) });
    });
  });

  it('shares its calls with the state it summarized, and keeps them as they were when the state goes on', () => {
    const { state, part } = summarize(
      assistant(0, [toolUse('t1', 'Read', { file_path: '/a.ts' })]),
      user(1, [toolResult('t1')]),
      assistant(2, [toolUse('t2', 'Task', { description: 'd', prompt: 'p' })]),
    );
    // No copy of each call per observation: the same objects.
    expect(part.recentCalls).toHaveLength(2);
    part.recentCalls!.forEach((c, i) => expect(c).toBe(state.recent[i]));
    // The subagent's progress and then the call's result arrive: the state's call is replaced, the observation's is not touched.
    let ref = { offset: 1000, lineNo: 4 };
    for (const line of [
      progress(
        3,
        {
          type: 'agent_progress',
          agentId: 'a9',
          message: { type: 'assistant', message: { content: [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'ls' } }] } },
        },
        't2',
      ),
      user(4, [toolResult('t2', 'Exit 1', true)]),
    ]) {
      parseTranscriptLine(state, line, 'a.jsonl', ref);
      ref = { offset: ref.offset + 1000, lineNo: ref.lineNo + 1 };
    }
    const t2 = state.recent.find((c) => c.toolUseId === 't2')!;
    expect(t2).toMatchObject({ isOpen: false, error: 'Exit 1', childAgentId: 'a9', childCall: { name: 'Bash', isOpen: true } });
    expect(part.recentCalls![1]).toMatchObject({ toolUseId: 't2', isOpen: true });
    expect(part.recentCalls![1]!.error).toBeUndefined();
    expect(part.recentCalls![1]!.childAgentId).toBeUndefined();
    expect(part.recentCalls![0]).toBe(state.recent[0]);
  });

  it('keeps only the last RECENT_CALLS_MAX calls, oldest first', () => {
    const lines = Array.from({ length: 30 }, (_, i) => assistant(i, [toolUse(`t${i}`, 'Read', { file_path: `/f${i}` })]));
    const { part } = summarize(...lines);
    expect(part.recentCalls).toHaveLength(RECENT_CALLS_MAX);
    expect(part.recentCalls?.[0]?.inputSummary).toBe('/f10');
    expect(part.recentCalls?.at(-1)?.inputSummary).toBe('/f29');
  });

  it('reports a line that is not JSON with its file and line number, and keeps going', () => {
    const { state, diagnostics } = parseTranscriptText(jsonl(assistant(0, [text('a')]), '{"type":"user",', assistant(1, [text('b')])), 'agent-x.jsonl');
    expect(diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/^agent-x\.jsonl:2: not a JSON record \(.*\); line skipped$/)]);
    expect(state.lastOutput).toBe('b');
  });

  it('ignores a torn last line (no newline yet)', () => {
    const { state } = parseTranscriptText(jsonl(assistant(0, [text('a')])) + '{"type":"assistant","timest');
    expect(state.records).toBe(1);
  });

  it.each([
    { task: { agentId: 'a1' }, rec: { agentId: 'a2' }, expected: [/belongs to agent "a2", but the task's agent_id is "a1"/] },
    { task: { sessionId: 's1' }, rec: { sessionId: 's2' }, expected: [/belongs to session "s2", but the task's session_id is "s1"/] },
    { task: { agentId: 'a1', sessionId: 'sess-1' }, rec: { agentId: 'a1' }, expected: [] },
    { task: { agentId: 'a1' }, rec: {}, expected: [] },
  ])('contradiction check: task $task, transcript $rec', ({ task, rec, expected }) => {
    const { state } = parseTranscriptText(jsonl(assistant(0, [text('x')], rec)), 'f.jsonl');
    const found = transcriptContradictions(state, task, 'f.jsonl');
    expect(found).toHaveLength(expected.length);
    expected.forEach((re, i) => expect(found[i]).toMatch(re));
    if (expected.length) expect(found[0]).toContain('f.jsonl (line 1)');
  });
});

describe('an interruption by the human (Esc) waits for the human, from the real 2.1.37 records', () => {
  // test/fixtures/real/agentping-2.1.37-interrupted-twice.jsonl: a Bash result (line 4), then
  // `[Request interrupted by user]` (line 5), then the human's next prompt (line 7).
  const real = readFileSync(new URL('../fixtures/real/agentping-2.1.37-interrupted-twice.jsonl', import.meta.url), 'utf8').split('\n');
  const [result, interruption, prompt] = [real[3]!, real[4]!, real[6]!];
  const parse = (...lines: string[]) => summarize(...lines).part;
  const variant = (patch: (rec: Record<string, unknown>) => void) => {
    const rec = JSON.parse(interruption) as Record<string, unknown>;
    patch(rec);
    return JSON.stringify(rec);
  };

  it('[Request interrupted by user] in a main session: waiting_human (interrupted) from its time, not progress', () => {
    const part = parse(result, interruption);
    expect(part.waitingHuman).toMatchObject({ kind: 'interrupted', sinceMs: Date.parse('2026-02-08T23:33:21.621Z') });
    expect(part.lastProgressMs).toBe(Date.parse('2026-02-08T23:33:19.352Z'));
    expect(part.finished).toBeUndefined();
  });

  it('the "for tool use" variant (Esc during a call, written after the rejected result) waits the same way', () => {
    const forToolUse = variant((r) => ((r.message as { content: { text: string }[] }).content[0]!.text = '[Request interrupted by user for tool use]'));
    expect(parse(result, forToolUse).waitingHuman).toMatchObject({ kind: 'interrupted' });
  });

  it("the human's next prompt starts a normal turn: no longer waiting", () => {
    const part = parse(result, interruption, prompt);
    expect(part.waitingHuman).toBeUndefined();
    expect(part.lastProgressMs).toBe(Date.parse('2026-02-08T23:33:30.151Z'));
  });

  it('a local command (/model) after it is not a prompt: still waiting', () => {
    expect(parse(result, interruption, user(0, '<command-name>/model</command-name>')).waitingHuman).toMatchObject({ kind: 'interrupted' });
  });

  it("in a subagent transcript (isSidechain, where Claude Code's own stall watchdog writes the same text) it is not a human to wait on", () => {
    const sidechain = variant((r) => (r.isSidechain = true));
    expect(parse(result, sidechain).waitingHuman).toBeUndefined();
  });
});
