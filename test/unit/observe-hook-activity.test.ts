import { describe, expect, it } from 'vitest';
import { SAFE_ID_PATTERN } from '../../src/contracts/ids.js';
import { buildHookLine, HOOK_LINE_MAX_BYTES, HOOK_SAFE_ID } from '../../src/agents/claude-code/parse/hook-line.js';
import { emptyHookState, inheritSessionPrompt, parseHookLine, summarizeHooks } from '../../src/agents/claude-code/parse/parse-hook-activity.js';
import { ms, payload } from '../helpers/claude-lines.js';

type Obj = Record<string, unknown>;
/** Payloads fired `s` seconds after T0, run through the writer and the reader. */
function activity(events: [number, string, Obj?][]) {
  const state = emptyHookState();
  for (const [s, event, extra] of events) {
    const built = buildHookLine(payload(event, extra), ms(s));
    expect(built).toBeDefined();
    expect(parseHookLine(state, JSON.stringify(built!.line), 'a.ndjson', { offset: 0 })).toBeUndefined();
  }
  return { state, part: summarizeHooks(state) };
}

const pre = (id: string, tool = 'Bash', input: Obj = { command: 'npm test' }): Obj => ({ agent_id: 'a1', tool_name: tool, tool_input: input, tool_use_id: id });
const post = (id: string, tool = 'Bash'): Obj => ({
  agent_id: 'a1',
  tool_name: tool,
  tool_input: {},
  tool_use_id: id,
  tool_response: { stdout: 'x' },
  duration_ms: 5,
});

describe('hook activity → PartialObservation', () => {
  it.each([
    {
      name: 'PreToolUse opens a call',
      events: [[0, 'PreToolUse', pre('t1', 'Bash', { command: 'npm test', timeout: 300000 })]],
      expected: { lastProgressMs: ms(0), lastTool: { name: 'Bash', isOpen: true, timeoutMs: 300000, command: 'npm test', toolUseId: 't1' } },
    },
    {
      name: 'PostToolUse closes it',
      events: [
        [0, 'PreToolUse', pre('t1')],
        [3, 'PostToolUse', post('t1')],
      ],
      expected: { lastProgressMs: ms(3), lastTool: { isOpen: false } },
    },
    {
      name: 'PostToolUseFailure closes it with the error',
      events: [
        [0, 'PreToolUse', pre('t1')],
        [1, 'PostToolUseFailure', { ...post('t1'), error: 'Exit code 2' }],
      ],
      expected: { lastTool: { isOpen: false, error: 'Exit code 2' } },
    },
    {
      name: 'an async Post logged before its Pre leaves the call closed',
      events: [
        [1, 'PostToolUse', post('t1')],
        [0, 'PreToolUse', pre('t1')],
      ],
      expected: { lastProgressMs: ms(1), recentCalls: [] },
    },
    {
      name: 'a permission prompt waits for a human',
      events: [
        [0, 'PreToolUse', pre('t1')],
        [1, 'Notification', { agent_id: 'a1', notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' }],
      ],
      expected: { waitingHuman: { kind: 'permission_prompt', sinceMs: ms(1), detail: 'Claude needs your permission to use Bash' } },
    },
    {
      name: 'an idle prompt is a notification',
      events: [[0, 'Notification', { notification_type: 'idle_prompt', message: 'Claude is waiting for your input' }]],
      expected: { waitingHuman: { kind: 'notification' } },
    },
    {
      name: 'an open AskUserQuestion waits for a human',
      events: [[0, 'PreToolUse', pre('t1', 'AskUserQuestion', { questions: [] })]],
      expected: { waitingHuman: { kind: 'ask_user_question', sinceMs: ms(0) } },
    },
    {
      name: 'SubagentStop means finished',
      events: [
        [0, 'SubagentStart', { agent_id: 'a1', agent_type: 'Explore' }],
        [9, 'SubagentStop', { agent_id: 'a1', agent_transcript_path: '/p/s/subagents/agent-a1.jsonl' }],
      ],
      expected: { finished: { kind: 'SubagentStop', atMs: ms(9) } },
    },
    { name: 'Stop means finished', events: [[9, 'Stop', { stop_hook_active: false }]], expected: { finished: { kind: 'Stop', atMs: ms(9) } } },
  ] as { name: string; events: [number, string, Obj?][]; expected: Obj }[])('$name', ({ events, expected }) => {
    expect(activity(events).part).toMatchObject({ source: 'hooks', ...expected });
  });

  it.each([
    {
      name: 'the Post of the prompted call answers the prompt',
      events: [
        [0, 'PreToolUse', pre('t1')],
        [1, 'Notification', { agent_id: 'a1', notification_type: 'permission_prompt' }],
        [20, 'PostToolUse', post('t1')],
      ],
    },
    {
      name: 'a new turn answers it',
      events: [
        [0, 'PreToolUse', pre('t1')],
        [1, 'Notification', { agent_id: 'a1', notification_type: 'permission_prompt' }],
        [20, 'SubagentStop', { agent_id: 'a1' }],
      ],
    },
  ] as { name: string; events: [number, string, Obj?][] }[])('no longer waiting: $name', ({ events }) => {
    expect(activity(events).part.waitingHuman).toBeUndefined();
  });

  it('a late async Post of an earlier call does not answer a prompt raised for a later one', () => {
    const { part } = activity([
      [0, 'PreToolUse', pre('t1', 'Read', { file_path: '/x' })],
      [1, 'PreToolUse', pre('t2')],
      [2, 'Notification', { agent_id: 'a1', notification_type: 'permission_prompt' }],
      [2, 'PostToolUse', post('t1', 'Read')],
    ]);
    expect(part.waitingHuman).toMatchObject({ kind: 'permission_prompt' });
  });

  it('is working again after a new turn starts, and a late Post does not undo a stop', () => {
    expect(
      activity([
        [0, 'SubagentStop', { agent_id: 'a1' }],
        [5, 'SubagentStart', { agent_id: 'a1' }],
      ]).part.finished,
    ).toBeUndefined();
    expect(
      activity([
        [0, 'SubagentStop', { agent_id: 'a1' }],
        [5, 'PreToolUse', pre('t9')],
      ]).part.finished,
    ).toBeUndefined();
    expect(
      activity([
        [0, 'PreToolUse', pre('t1')],
        [1, 'SubagentStop', { agent_id: 'a1' }],
        [1, 'PostToolUse', post('t1')],
      ]).part.finished,
    ).toMatchObject({ kind: 'SubagentStop' });
  });

  it('a Stop with background tasks still running is not finished', () => {
    const { part } = activity([[0, 'Stop', { background_tasks: [{ id: 'b1', type: 'shell', status: 'running', description: 'server' }] }]]);
    expect(part.finished).toBeUndefined();
  });

  it('a Stop closes calls left open (their Post never came)', () => {
    expect(
      activity([
        [0, 'PreToolUse', pre('t1')],
        [5, 'Stop'],
      ]).part.lastTool,
    ).toMatchObject({ isOpen: false });
  });

  it('reports a line that is not an activity line, naming file and line', () => {
    const state = emptyHookState();
    const d = parseHookLine(state, '[1,2]', 'activity/a1.ndjson', { offset: 10, lineNo: 2 });
    expect(d?.message).toBe('activity/a1.ndjson:2: not a hook activity line (expected a JSON object with "event"); skipped');
  });
});

describe('PermissionRequest (the dialog opened; real 2.1.197 payload, no tool_use_id)', () => {
  // As measured on 2.1.197 in a pty: inside a subagent it carries agent_id, tool_name, tool_input and
  // permission_suggestions; the Notification (permission_prompt) follows ~6 s later without agent_id.
  const ask = (input: Obj = { command: 'echo hi > probe.txt', description: 'write' }): Obj => ({
    agent_id: 'a1',
    agent_type: 'general-purpose',
    permission_mode: 'default',
    tool_name: 'Bash',
    tool_input: input,
    permission_suggestions: [{ type: 'addDirectories', directories: ['/tmp/x'], destination: 'session' }],
  });
  const asked: [number, string, Obj?][] = [
    [0, 'PreToolUse', pre('t1', 'Bash', { command: 'echo hi > probe.txt' })],
    [0, 'PermissionRequest', ask()],
  ];

  it('waits for a human from the moment the dialog opens, naming the tool and command', () => {
    const { part, state } = activity(asked);
    expect(part.waitingHuman).toEqual({ kind: 'permission_prompt', sinceMs: ms(0), detail: 'permission dialog for Bash: echo hi > probe.txt' });
    expect(state.waiting?.toolUseId).toBe('t1');
  });

  it("the Notification that follows keeps the dialog's time and words", () => {
    const { part } = activity([
      ...asked,
      [6, 'Notification', { agent_id: 'a1', notification_type: 'permission_prompt', message: 'Claude needs your permission' }],
    ]);
    expect(part.waitingHuman).toMatchObject({ sinceMs: ms(0), detail: 'permission dialog for Bash: echo hi > probe.txt' });
  });

  it.each([
    { name: 'the Post of the asked call', next: [30, 'PostToolUse', post('t1')] },
    { name: 'a later call (the agent went on after a denial)', next: [30, 'PreToolUse', pre('t2', 'Read', { file_path: '/x' })] },
    { name: 'the end of the turn', next: [30, 'SubagentStop', { agent_id: 'a1' }] },
  ] as { name: string; next: [number, string, Obj?] }[])('is answered by $name', ({ next }) => {
    expect(activity([...asked, next]).part.waitingHuman).toBeUndefined();
  });

  it("is recorded by the hook without the tool's full input", () => {
    const built = buildHookLine(payload('PermissionRequest', ask({ command: 'echo hi', content: 'SECRET'.repeat(100) })), ms(0));
    expect(built?.id).toBe('a1');
    expect(built?.line).toMatchObject({ event: 'PermissionRequest', agent_id: 'a1', tool_name: 'Bash', command: 'echo hi' });
    expect(JSON.stringify(built?.line)).not.toContain('SECRET');
  });
});

describe('buildHookLine', () => {
  it('keeps only the fields the watchdog uses, never the full input or output', () => {
    const built = buildHookLine(
      payload('PostToolUse', {
        tool_name: 'Write',
        tool_input: { file_path: '/f', content: 'SECRET'.repeat(1000) },
        tool_use_id: 'tu',
        tool_response: { stdout: 'OUT' },
      }),
      ms(0),
    );
    expect(built?.id).toBe('sess-1');
    const text = JSON.stringify(built?.line);
    expect(text).not.toContain('SECRET');
    expect(text).not.toContain('OUT');
    expect(built?.line).toMatchObject({ event: 'PostToolUse', tool_name: 'Write', tool_use_id: 'tu', ts: '2026-02-12T10:00:00.000Z' });
  });

  it('files a subagent event under its agent_id', () => {
    expect(buildHookLine(payload('PreToolUse', { agent_id: 'a1b2c3d' }), 0)?.id).toBe('a1b2c3d');
  });

  it.each([
    { name: 'no event name', p: { session_id: 's' } },
    { name: 'an unsafe id', p: payload('Stop', { session_id: '../../etc' }) },
    { name: 'an unsafe agent id', p: payload('Stop', { agent_id: 'a/b' }) },
    { name: 'not an object', p: [payload('Stop')] },
    { name: 'null', p: null },
  ])('refuses $name', ({ p }) => {
    expect(buildHookLine(p, 0)).toBeUndefined();
  });

  it(`caps a line at ${HOOK_LINE_MAX_BYTES} bytes`, () => {
    const big = 'x'.repeat(5000);
    const built = buildHookLine(
      payload('Notification', { message: big, transcript_path: big, last_assistant_message: big, tool_name: 'Bash', tool_input: { command: big } }),
      0,
    );
    expect(Buffer.byteLength(JSON.stringify(built!.line))).toBeLessThanOrEqual(HOOK_LINE_MAX_BYTES);
    expect(built!.line.event).toBe('Notification');
  });

  it('uses the same safe-id rule as contracts/ids.ts', () => {
    expect(HOOK_SAFE_ID.source).toBe(SAFE_ID_PATTERN.source);
  });
});

describe('inheritSessionPrompt', () => {
  const session = activity([[10, 'Notification', { notification_type: 'permission_prompt', message: 'Bash' }]]).state;
  it.each([
    { agent: { isOpen: true, openSinceMs: ms(5), lastProgressMs: ms(5) }, isWaiting: true },
    { agent: { isOpen: false, lastProgressMs: ms(5) }, isWaiting: false },
    { agent: { isOpen: true, openSinceMs: ms(12), lastProgressMs: ms(12) }, isWaiting: false },
    { agent: { isOpen: true, openSinceMs: ms(5), lastProgressMs: ms(30) }, isWaiting: false },
  ])('agent $agent → waiting: $isWaiting', ({ agent, isWaiting }) => {
    const w = inheritSessionPrompt(session, agent);
    expect(w !== undefined).toBe(isWaiting);
    if (w) expect(w).toEqual({ kind: 'permission_prompt', sinceMs: ms(10), detail: 'in the main session: Bash' });
  });
});

describe('StopFailure (issue 10 cause 6)', () => {
  it('is a failure until the agent works again; "prompt too long" is context exhaustion', () => {
    const failed = activity([
      [0, 'PreToolUse', pre('t1')],
      [1, 'StopFailure', { error: 'overloaded' }],
    ]);
    expect(failed.part.failed).toEqual({ kind: 'overloaded', atMs: ms(1), detail: 'StopFailure: overloaded' });
    expect(activity([[1, 'StopFailure', { error: 'prompt_too_long' }]]).part.failed?.kind).toBe('context_exhausted');
    expect(activity([[1, 'StopFailure', { error: 'authentication_failed' }]]).part.failed?.kind).toBe('auth_failed');
    expect(activity([[1, 'StopFailure', { error: 'billing_error' }]]).part.failed?.kind).toBe('usage_limit');
    const resumed = activity([
      [1, 'StopFailure', { error: 'overloaded' }],
      [60, 'UserPromptSubmit'],
      [61, 'PreToolUse', pre('t2')],
    ]);
    expect(resumed.part.failed).toBeUndefined();
  });

  it("a message that names the plan's usage limit (a claude.ai login gives up at once there) is usage_limit", () => {
    const words = "You've hit your 5-hour limit · resets 1:50am (UTC)";
    expect(activity([[1, 'StopFailure', { error: 'rate_limit', last_assistant_message: words }]]).part.failed).toEqual({
      kind: 'usage_limit',
      atMs: ms(1),
      detail: `StopFailure: rate_limit (${words})`,
    });
    expect(activity([[1, 'StopFailure', { error: 'rate_limit', last_assistant_message: 'API Error: Request rejected (429)' }]]).part.failed?.kind).toBe(
      'rate_limit',
    );
  });
});

describe('Interrupt (2.1.335+: a stop ended the main session turn)', () => {
  // The payload 2.1.337 sends after an SDK interrupt request (test/realagent/interrupt-hook.test.ts).
  const stop: Obj = { prompt_id: 'p-1', source: 'user', reason: 'stop', via: 'client' };

  it('is recorded with who stopped the turn, with what and how, and nothing the watchdog does not use', () => {
    const built = buildHookLine(payload('Interrupt', { ...stop, effort: { level: 'medium' } }), ms(5))!;
    expect(built.line).toEqual({
      ts: new Date(ms(5)).toISOString(),
      event: 'Interrupt',
      session_id: 'sess-1',
      transcript_path: '/home/u/.claude/projects/-home-u-p/sess-1.jsonl',
      reason: 'stop',
      source: 'user',
      via: 'client',
    });
    // `source` and `via` are an Interrupt's words only.
    expect(buildHookLine(payload('SessionEnd', { reason: 'other', source: 'x', via: 'y' }), 0)!.line).not.toHaveProperty('source');
  });

  it('waits for a human from the stop: the stopped call is closed, its late Post and the idle Notification keep the wait, and the stop is not progress', () => {
    const { part } = activity([
      [0, 'PreToolUse', pre('t1')],
      [5, 'Interrupt', stop],
      [6, 'PostToolUseFailure', { ...post('t1'), error: 'interrupted', is_interrupt: true }],
      [65, 'Notification', { notification_type: 'idle_prompt', message: 'Claude is waiting for your input' }],
    ]);
    expect(part.waitingHuman).toEqual({
      kind: 'interrupted',
      sinceMs: ms(5),
      detail:
        'Interrupt hook: the turn was stopped by a person (or a client that does not say who) with a stop (Esc, Ctrl+C or an interrupt request) from an app, SDK program or service; idle until a new prompt',
    });
    expect(part.lastTool?.isOpen).toBe(false);
    expect(part.finished).toBeUndefined();
    // The late Post is the last event; the Interrupt itself never is.
    expect(part.lastProgressMs).toBe(ms(65));
    expect(
      activity([
        [0, 'PreToolUse', pre('t1')],
        [5, 'Interrupt', stop],
      ]).part.lastProgressMs,
    ).toBe(ms(0));
  });

  it.each([
    ['a new call', 'PreToolUse', pre('t2')],
    ['a subagent started', 'SubagentStart', { agent_id: 'a2', agent_type: 'general-purpose' }],
  ])('ends when the next turn shows (%s)', (_what, event, extra) => {
    const { part } = activity([
      [0, 'PreToolUse', pre('t1')],
      [5, 'Interrupt', stop],
      [60, event, extra],
    ]);
    expect(part.waitingHuman).toBeUndefined();
  });

  it("ends in the next turn's finish (a turn without calls fires only its Stop)", () => {
    const { part } = activity([
      [5, 'Interrupt', stop],
      [60, 'Stop', { stop_hook_active: false, last_assistant_message: 'done', background_tasks: [] }],
    ]);
    expect(part.waitingHuman).toBeUndefined();
    expect(part.finished).toEqual({ kind: 'Stop', atMs: ms(60) });
  });

  it('withdraws an open permission prompt, and says who stopped the turn in words for each source', () => {
    const { part } = activity([
      [0, 'PreToolUse', pre('t1')],
      [1, 'PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'npm test' } }],
      [9, 'Interrupt', { source: 'system', reason: 'permission_denied' }],
    ]);
    expect(part.waitingHuman).toMatchObject({ kind: 'interrupted', sinceMs: ms(9) });
    expect(part.waitingHuman?.detail).toBe(
      'Interrupt hook: the turn was stopped by a hook, plugin, permission check or app acting by itself with a denied permission; idle until a new prompt',
    );
    const other = activity([[9, 'Interrupt', { source: 'session', reason: 'other', via: 'terminal' }]]).part.waitingHuman?.detail;
    expect(other).toBe("Interrupt hook: the turn was stopped by another session's Claude at its terminal; idle until a new prompt");
    expect(activity([[9, 'Interrupt', {}]]).part.waitingHuman?.detail).toBe('Interrupt hook: the turn was stopped; idle until a new prompt');
  });
});
