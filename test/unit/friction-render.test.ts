// Friction notes and the escalation comment: pure rendering, hypotheses from stall patterns.
import { describe, expect, it } from 'vitest';
import { hypothesizeRootCause, type HypothesisKind } from '../../src/act/friction/friction-hypothesis.js';
import { renderFrictionNote, renderOrphanNote, type OrphanAction } from '../../src/act/friction/friction-render.js';
import { hasCommentKey, renderEscalationComment, withCommentKey } from '../../src/act/tracker/linear-comment.js';
import { formatSeconds, stallRecordFromEvent, type StallRecord } from '../../src/act/friction/stall-history.js';

/** A stall of attempt `n` (task t1, t1-r1, t1-r2 ...). */
function stall(n: number, over: Partial<StallRecord> = {}): StallRecord {
  return {
    detectedAt: `2026-04-02T1${n}:00:00Z`,
    taskId: n === 0 ? 't1' : `t1-r${n}`,
    attempt: n,
    idleSeconds: 600 + n,
    stallReason: 'inactivity',
    exemptions: [],
    ...over,
  };
}
const three = (over: (n: number) => Partial<StallRecord>) => [0, 1, 2].map((n) => stall(n, over(n)));

describe('the escalation comment of a wall a replacement would meet too', () => {
  it.each<[StallRecord['stallReason'], string, RegExp]>([
    [
      'usage_limit',
      'the agent hit its usage limit, and a replacement would hit the same wall.',
      /\*\*Recommended action:\*\* Wait for the usage limit to reset/,
    ],
    [
      'auth_failed',
      "the API refused the agent's credentials, and a replacement would be refused the same way.",
      /\*\*Recommended action:\*\* Fix the agents' credentials/,
    ],
  ])('%s: says why at once, not that the redispatch limit is reached', (stallReason, why, action) => {
    const body = renderEscalationComment({
      ticketId: 'ENG-1',
      attempts: 1,
      history: [stall(0, { stallReason })],
      frictionPath: 'friction/x.md',
      key: 'E:t1:escalate',
    });
    expect(body).toContain(why);
    expect(body).not.toContain('redispatch limit is reached');
    expect(body).toMatch(action);
  });

  it("gives the agent's own words, where the usage limit's reset is", () => {
    const reason =
      "the agent hit its usage limit: You've hit your 5-hour limit · resets 1:43am (UTC) (the plan's five hour usage limit, resets at 2026-12-08T01:43:51.000Z)";
    const body = renderEscalationComment({
      ticketId: 'ENG-1',
      attempts: 1,
      history: [stall(0, { stallReason: 'usage_limit', reason })],
      frictionPath: 'f.md',
      key: 'E:t1:escalate',
    });
    expect(body).toContain(
      "a replacement would hit the same wall (You've hit your 5-hour limit · resets 1:43am (UTC) (the plan's five hour usage limit, resets at 2026-12-08T01:43:51.000Z)).",
    );
  });
});

describe('hypothesizeRootCause', () => {
  it.each<[string, StallRecord[], HypothesisKind]>([
    ['never started, every time', three(() => ({ stallReason: 'never_started' })), 'dispatch_environment'],
    ['a usage limit, at the first stall (escalated at once)', [stall(0, { stallReason: 'usage_limit' })], 'usage_limit'],
    ['refused credentials, at the first stall (escalated at once)', [stall(0, { stallReason: 'auth_failed' })], 'auth_failed'],
    ['never started once only', three((n) => ({ stallReason: n === 0 ? 'never_started' : 'inactivity' })), 'context_or_dependency'],
    // Replacements that never started are a failing launch, not context exhaustion.
    [
      'the first went quiet, both replacements never started',
      three((n) => ({ stallReason: n === 0 ? 'inactivity' : 'never_started' })),
      'dispatch_environment',
    ],
    ['looping in most attempts', three((n) => ({ stallReason: n < 2 ? 'looping' : 'inactivity', lastTool: 'Edit' })), 'looping'],
    ['repeated open Bash overruns', three((n) => ({ stallReason: n > 0 ? 'open_tool_overrun' : 'inactivity', lastTool: 'Bash' })), 'hanging_command'],
    [
      'repeated open Codex exec_command overruns',
      three((n) => ({ stallReason: n > 0 ? 'open_tool_overrun' : 'inactivity', lastTool: 'exec_command' })),
      'hanging_command',
    ],
    [
      'one Bash overrun among three, the others silent after a call returned',
      three((n) => ({ stallReason: n === 2 ? 'open_tool_overrun' : 'inactivity', lastTool: ['Read', 'Edit', 'Bash'][n] })),
      'api_hang',
    ],
    [
      'one Bash overrun, the others with no tool known',
      three((n) => ({ stallReason: n === 2 ? 'open_tool_overrun' : 'inactivity', lastTool: n === 2 ? 'Bash' : undefined })),
      'context_or_dependency',
    ],
    ['rate limits', three(() => ({ exemptions: ['rate_limit'] })), 'provider_capacity'],
    ['API give-ups (529, connection)', three(() => ({ stallReason: 'api_gave_up' })), 'provider_capacity'],
    ['context exhausted twice', three((n) => ({ stallReason: n < 2 ? 'context_exhausted' : 'inactivity' })), 'context_exhausted'],
    ['same last tool every time, open at each stall', three(() => ({ lastTool: 'WebFetch', exemptions: ['open_tool_call'] })), 'stuck_on_step'],
    // An API hang is not blamed on the last tool: the call had returned, the agent waited on the model.
    ['same last tool every time, returned before each silence', three(() => ({ lastTool: 'WebFetch' })), 'api_hang'],
    ['different last tools, each returned', three((n) => ({ lastTool: ['Read', 'Edit', 'Grep'][n] })), 'api_hang'],
    // A mass stall is its own hypothesis, whatever the tool or the silence looked like.
    ['stalled with the whole wave (mass stall)', three((n) => ({ lastTool: 'Read', isMassStall: n > 0 })), 'mass_stall'],
    ['one mass stall among three', three((n) => ({ isMassStall: n === 0 })), 'context_or_dependency'],
    ['no last tool at all', three(() => ({})), 'context_or_dependency'],
    ['a single stall on a tool', [stall(0, { lastTool: 'Edit' })], 'context_or_dependency'],
    ['no history', [], 'context_or_dependency'],
    // The watchdog judged it transport and resumed it (a frozen first request has no tool): once is enough.
    ['a single stall resumed for a frozen stream, no tool yet', [stall(0, { isResumed: true })], 'api_hang'],
    ['one resumed stall among three silent ones with no tool', three((n) => ({ isResumed: n === 0 })), 'context_or_dependency'],
  ])('%s → %s', (_name, history, kind) => {
    expect(hypothesizeRootCause(history, 'ENG-123').kind).toBe(kind);
  });

  it('says "move it out of Blocked" only for a ticket that is Blocked', () => {
    const h = three(() => ({ stallReason: 'never_started' }));
    expect(hypothesizeRootCause(h, 'ENG-1').action).toContain('then move ENG-1 out of Blocked');
    const skipped = hypothesizeRootCause(h, 'ENG-1', { state: 'tracker_skipped' }).action;
    expect(skipped).toContain('then dispatch ENG-1 again (the tracker step was skipped: it was never moved to Blocked)');
    expect(skipped).not.toContain('out of Blocked');
    const recovered = hypothesizeRootCause(h.slice(0, 1), 'ENG-1', { state: 'recovered', replacement: 't1-r1' }).action;
    expect(recovered).toMatch(/^Nothing to undo: ENG-1 was never escalated \(its replacement t1-r1 took over with no stall since\)\. If it keeps stalling: /);
    expect(recovered).not.toContain('out of Blocked');
  });

  it('a mass stall points at the host and the provider, not the task', () => {
    const h = hypothesizeRootCause(
      three(() => ({ isMassStall: true })),
      'ENG-1',
      { state: 'recovered' },
    );
    expect(h.text).toContain('All 3 stalls happened in a mass stall');
    expect(h.text).not.toMatch(/context exhaustion|split/);
    expect(h.action).not.toMatch(/split/);
  });

  it('never blames context exhaustion on replacements that never started', () => {
    const h = hypothesizeRootCause(
      three((n) => ({ stallReason: n === 0 ? 'inactivity' : 'never_started' })),
      'ENG-1',
    );
    expect(h.text).toMatch(/^The agent never showed any activity in 2 of 3 attempts \(t1-r1, t1-r2; the others went quiet after starting\)/);
    expect(h.text).not.toMatch(/context exhaustion/);
    const once = hypothesizeRootCause(
      three((n) => ({ stallReason: n === 0 ? 'never_started' : 'inactivity' })),
      'ENG-1',
    );
    expect(once.text).toMatch(/^The agent went quiet 2 times after starting \(and one attempt never started\)/);
  });

  it('names the evidence in its text', () => {
    const h = hypothesizeRootCause(
      three((n) => ({ stallReason: n > 0 ? 'open_tool_overrun' : 'inactivity', lastTool: 'Bash' })),
      'ENG-123',
    );
    expect(h.text).toContain('In 2 of 3 stalls a shell command (Bash) ran past its own timeout');
    expect(h.action).toContain('ENG-123');
  });
});

describe('a count with fewer stall lines than attempts', () => {
  it('says so beside the table, in the note and in the Linear comment', () => {
    const history = [stall(0), stall(2)];
    const line = 'The table lists 2 of these 3 stalls: one attempt was counted from a redispatch line with no stall line of its own in the dispatch log.';
    const note = renderFrictionNote({
      ticketId: 'ENG-1',
      attempts: 3,
      maxRedispatches: 2,
      history,
      evidencePaths: { dispatchLogs: [], checkpoints: [] },
      trackerOutcome: { kind: 'skipped' },
    });
    expect(note).toContain(`Agent stalled 3 times`);
    expect(note).toContain(line);
    const comment = renderEscalationComment({ ticketId: 'ENG-1', attempts: 3, history, frictionPath: 'friction/x.md', key: 'E:t1-r2:escalate' });
    expect(comment).toContain(line);
    expect(
      renderFrictionNote({
        ticketId: 'ENG-1',
        attempts: 3,
        maxRedispatches: 2,
        history: three(() => ({})),
        evidencePaths: { dispatchLogs: [], checkpoints: [] },
        trackerOutcome: { kind: 'skipped' },
      }),
    ).not.toContain('The table lists');
  });
});

describe('renderFrictionNote', () => {
  it('follows the seed template with history, evidence links, hypothesis and action', () => {
    const md = renderFrictionNote({
      ticketId: 'ENG-123',
      attempts: 3,
      maxRedispatches: 2,
      history: three((n) => ({
        stallReason: 'open_tool_overrun',
        lastTool: 'Bash',
        exemptions: n === 1 ? ['open_tool_call', 'ci_polling'] : ['open_tool_call'],
      })),
      evidencePaths: {
        dispatchLogs: ['dispatch-log/2026-04-02.ndjson'],
        checkpoints: ['pipeline_checkpoints/ENG-123/recovery-1.yaml', 'pipeline_checkpoints/ENG-123/recovery-2.yaml'],
      },
      trackerOutcome: { kind: 'updated' },
      escalatedAt: '2026-04-02T13:00:00Z',
      actionKey: 'epic-1:t1-r2:escalate',
    });
    expect(md).toMatchInlineSnapshot(`
      "# Agent Stall Escalation: ENG-123

      <!-- dispatch-watchdog:friction:ENG-123:attempt-3 -->

      ## Summary
      Agent stalled 3 times, exceeding max redispatch limit of 2.
      Escalated at 2026-04-02T13:00:00Z.
      Tracker: moved ENG-123 to "Blocked" in Linear and commented the stall history.

      | # | detected (UTC) | task | attempt | idle | stall reason | exemptions | last tool |
      |---|---|---|---|---|---|---|---|
      | 1 | 2026-04-02T10:00:00Z | t1 | 0 | 10m 00s | open_tool_overrun | open_tool_call | Bash |
      | 2 | 2026-04-02T11:00:00Z | t1-r1 | 1 | 10m 01s | open_tool_overrun | open_tool_call, ci_polling | Bash |
      | 3 | 2026-04-02T12:00:00Z | t1-r2 | 2 | 10m 02s | open_tool_overrun | open_tool_call | Bash |

      ## Evidence
      - Dispatch log: [dispatch-log/2026-04-02.ndjson](../dispatch-log/2026-04-02.ndjson)
      - Checkpoint: [pipeline_checkpoints/ENG-123/recovery-1.yaml](../pipeline_checkpoints/ENG-123/recovery-1.yaml)
      - Checkpoint: [pipeline_checkpoints/ENG-123/recovery-2.yaml](../pipeline_checkpoints/ENG-123/recovery-2.yaml)
      - Idempotency key: \`epic-1:t1-r2:escalate\`

      ## Root Cause Hypothesis
      In all 3 stalls a shell command (Bash) ran past its own timeout: a command hangs (an interactive prompt, a network call or a lock that never returns).

      ## Recommended Action
      Find the last shell command in the transcripts of ENG-123 and run it by hand. Make it non-interactive or give it a timeout (or run it in the background), then move ENG-123 out of Blocked.
      "
    `);
  });

  it.each<[string, Parameters<typeof renderFrictionNote>[0]['trackerOutcome'], string]>([
    [
      'already blocked',
      { kind: 'already_blocked', stateName: 'On Hold' },
      'Tracker: ENG-9 was already in "On Hold" in Linear; the stall history is commented.',
    ],
    ['skipped', { kind: 'skipped' }, 'Tracker: skipped (LINEAR_API_KEY is not set); move ENG-9 to "Blocked" by hand.'],
    [
      'failed',
      { kind: 'failed', detail: 'the API key was rejected' },
      'Tracker: the Linear update failed (the API key was rejected); move ENG-9 to "Blocked" by hand.',
    ],
  ])('says what happened to the tracker (%s)', (_name, trackerOutcome, line) => {
    const md = renderFrictionNote({
      ticketId: 'ENG-9',
      attempts: 3,
      maxRedispatches: 2,
      history: [],
      evidencePaths: { dispatchLogs: [], checkpoints: [] },
      trackerOutcome,
    });
    expect(md.split('\n')).toContain(line);
    expect(md).toContain('- Dispatch log: none found\n- Checkpoint: none written');
  });

  it('keeps a table intact when a value has a pipe or a newline', () => {
    const md = renderFrictionNote({
      ticketId: 'ENG-9',
      attempts: 1,
      maxRedispatches: 0,
      history: [stall(0, { lastTool: 'a|b\nc' })],
      evidencePaths: { dispatchLogs: ['/abs/log.ndjson'], checkpoints: [] },
      trackerOutcome: { kind: 'updated' },
    });
    expect(md).toContain('| a\\|b c |');
    expect(md).toContain('- Dispatch log: [/abs/log.ndjson](/abs/log.ndjson)');
  });
});

describe('renderOrphanNote', () => {
  const orphans = (n: number): OrphanAction[] =>
    Array.from({ length: n }, (_, i) => ({
      key: `epic-1:t${i}:cancel`,
      action: 'cancel',
      ticketId: `ENG-${i}`,
      taskId: `t${i}`,
      startedAt: '2026-04-02T10:00:00Z',
      detail: 'no marker',
    }));
  const listed = (md: string) => md.split('\n').filter((l) => l.startsWith('| `epic-1:')).length;

  it.each([
    [1, 1, false],
    [30, 30, false],
    [31, 20, true],
    [45, 20, true],
  ])('%i orphans: lists %i', (n, shown, saysMore) => {
    const md = renderOrphanNote(orphans(n), { runId: 'run-1' });
    expect(listed(md)).toBe(shown);
    expect(md.includes(`${n - 20} more not listed (${n} in total)`)).toBe(saysMore);
  });

  it('is pinned', () => {
    expect(renderOrphanNote(orphans(2), { runId: 'run-7', epicId: 'epic-1', detectedAt: '2026-04-02T10:05:00Z' })).toMatchInlineSnapshot(`
      "# Orphaned Actions: run run-7

      <!-- dispatch-watchdog:orphans:run-7 -->

      ## Summary
      At start-up (2026-04-02T10:05:00Z), 2 actions of epic epic-1 had started but left neither an outcome nor a marker, so the watchdog cannot tell whether they ran. None was re-fired.

      ## Orphans
      | key | action | ticket | task | started (UTC) | detail |
      |---|---|---|---|---|---|
      | \`epic-1:t0:cancel\` | cancel | ENG-0 | t0 | 2026-04-02T10:00:00Z | no marker |
      | \`epic-1:t1:cancel\` | cancel | ENG-1 | t1 | 2026-04-02T10:00:00Z | no marker |

      ## Recommended Action
      For each key, check by hand whether the action happened (is the agent still running? is there a request file, a checkpoint, a Linear comment?). Finish or undo it yourself; the watchdog will not touch these keys again.
      "
    `);
  });
});

describe('the escalation comment', () => {
  it('is pinned, and carries the key visibly and as a trailing HTML comment', () => {
    const body = renderEscalationComment({
      ticketId: 'ENG-123',
      attempts: 3,
      history: three(() => ({ stallReason: 'never_started' })),
      frictionPath: 'friction/2026-04-02-stall-escalation-eng-123.md',
      key: 'epic-1:t1-r2:escalate',
    });
    expect(body).toMatchInlineSnapshot(`
      "Auto-blocked: agent stalled 3 times. Requires manual investigation. See dispatch log.

      dispatch-watchdog moved ENG-123 to **Blocked**: every attempt stalled and the redispatch limit is reached.

      | # | detected (UTC) | task | attempt | idle | stall reason | exemptions | last tool |
      |---|---|---|---|---|---|---|---|
      | 1 | 2026-04-02T10:00:00Z | t1 | 0 | 10m 00s | never_started | – | – |
      | 2 | 2026-04-02T11:00:00Z | t1-r1 | 1 | 10m 01s | never_started | – | – |
      | 3 | 2026-04-02T12:00:00Z | t1-r2 | 2 | 10m 02s | never_started | – | – |

      **Root cause hypothesis:** The agent never showed any activity in all 3 attempts. The dispatch or its environment is failing (the agent was not launched, crashed at start, lacks credentials or runs in the wrong directory), not the work itself.

      **Recommended action:** Launch one agent for ENG-123 by hand with the same command and read its first transcript lines and stderr. Fix the launch or environment, then move ENG-123 out of Blocked.

      The friction note on the watchdog's host (\`friction/2026-04-02-stall-escalation-eng-123.md\`) holds this same history; its dispatch-log lines carry the key below.

      _Posted by dispatch-watchdog · key \`dispatch-watchdog:epic-1:t1-r2:escalate\`_
      <!-- dispatch-watchdog:epic-1:t1-r2:escalate -->
      "
    `);
    expect(hasCommentKey(body, 'epic-1:t1-r2:escalate')).toBe(true);
  });

  it.each([
    ['<!-- dispatch-watchdog:e:t1:escalate -->', true],
    ['key `dispatch-watchdog:e:t1:escalate`', true],
    ['dispatch-watchdog:e:t1:escalate', true],
    ['<!-- dispatch-watchdog:e:t1-r1:escalate -->', false],
    ['dispatch-watchdog:e:t1:escalated', false],
    ['e:t1:escalate', false],
  ])('hasCommentKey(%j, "e:t1:escalate") is %s', (body, expected) => {
    expect(hasCommentKey(body, 'e:t1:escalate')).toBe(expected);
  });

  it('adds the key to a body once', () => {
    const once = withCommentKey('Hello', 'e:t1:escalate');
    expect(withCommentKey(once, 'e:t1:escalate')).toBe(once);
  });
});

describe('stall history helpers', () => {
  it('reads a stall_detected event', () => {
    const r = stallRecordFromEvent({
      event: 'stall_detected',
      timestamp_utc: '2026-04-02T10:00:00Z',
      epic_id: 'e',
      run_id: 'r',
      ticket_id: 'ENG-1',
      task_id: 't1-r1',
      agent_id: 'a',
      stall_reason: 'open_tool_overrun',
      idle_seconds: 900,
      bash_timeout_exemption: true,
      redispatch_attempt: 1,
      max_redispatches: 2,
      action_taken: 'redispatch',
      last_tool: 'Bash',
    } as Parameters<typeof stallRecordFromEvent>[0]);
    expect(r).toEqual({
      detectedAt: '2026-04-02T10:00:00Z',
      taskId: 't1-r1',
      attempt: 1,
      idleSeconds: 900,
      stallReason: 'open_tool_overrun',
      exemptions: ['bash_long_timeout'],
      lastTool: 'Bash',
    });
  });

  it.each([
    [0, '0s'],
    [59.6, '1m 00s'],
    [754, '12m 34s'],
    [3700, '1h 01m'],
  ])('formatSeconds(%d) = %s', (s, text) => expect(formatSeconds(s)).toBe(text));
});
