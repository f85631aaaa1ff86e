// Resume instead of restart (DESIGN §8): the cause a stall is assessed with, and the recovery the
// planner picks for it. Pure.
import { describe, expect, it } from 'vitest';
import { assess, type Verdict } from '../../src/core/assess.js';
import type { DispatchEvent } from '../../src/contracts/events.js';
import { foldHistory, type RequestRecord } from '../../src/core/history.js';
import { NEXT_EXIT, newsOf, nextReason } from '../../src/core/next.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { planCheck, type PlanOptions } from '../../src/core/plan.js';
import { DEFAULT_CONTROLS, renderResumePrompt, resolveControls } from '../../src/core/controls.js';
import { makeObs, makeTask } from '../helpers/builders.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const opts = (over: Partial<PlanOptions> = {}): PlanOptions => ({
  epicId: 'E-1',
  strategy: 'redispatch',
  maxRedispatches: 2,
  shouldActOnLooping: false,
  circuitBreaker: { minStalled: 3, fraction: 0.5 },
  isLagged: false,
  ...over,
});
const stalled = (over: Partial<Verdict> = {}): Verdict => ({
  kind: 'stalled',
  taskId: 't1',
  ticketId: 'P-1',
  effectiveTimeoutMs: 120_000,
  exemptions: [],
  hasShellTimeoutExemption: false,
  sources: ['transcript'],
  reason: 'stalled',
  idleMs: 130_000,
  stallReason: 'inactivity',
  ...over,
});
const env = { timestamp_utc: '2026-04-02T09:00:00Z', epic_id: 'E-1', run_id: 'r' };
const redispatchEvent = (mode?: 'resume' | 'fresh'): DispatchEvent =>
  ({
    ...env,
    event: 'redispatch',
    ticket_id: 'P-1',
    task_id: 't0',
    agent_id: 't0',
    key: 'E-1:t0:redispatch',
    redispatch_attempt: 1,
    recovery_task_id: 't0-r1',
    ...(mode ? { mode } : {}),
  }) as DispatchEvent;
const withSession = makeTask({ taskId: 't1', ticketId: 'P-1', sessionId: 's-1' });
const plan = (v: Verdict, task = withSession, events: DispatchEvent[] = [], o: Partial<PlanOptions> = {}) =>
  planCheck([v], new Map([[v.taskId, task]]), foldHistory(events, 'E-1'), opts(o));

describe('the cause of a stall', () => {
  const task = makeTask({ taskId: 't1', ticketId: 'P-1', dispatchedAtMs: T0 });
  const late = T0 + 300_000; // past the doubled window of a backoff too
  it.each([
    [
      'a silent model turn after a tool result: frozen stream',
      makeObs({ sources: ['transcript'], lastProgressMs: T0, lastTool: { name: 'Bash', isOpen: false, isOpenKnown: true } }),
      'frozen_stream',
    ],
    [
      'a silent model turn while retry records were seen: rate limit',
      makeObs({ sources: ['transcript'], lastProgressMs: T0, isApiRetrying: true }),
      'rate_limit',
    ],
    [
      'an open tool call: not transport',
      makeObs({ sources: ['transcript'], lastProgressMs: T0, lastTool: { name: 'Read', isOpen: true, isOpenKnown: true } }),
      undefined,
    ],
    ['the row alone (no transcript read): not known', makeObs({ sources: ['row'], lastProgressMs: T0 }), undefined],
    [
      "waiting on a subagent: the child's silence, not the API",
      makeObs({ sources: ['transcript'], lastProgressMs: T0, waitingOnChildren: { agentIds: ['a1'] } }),
      undefined,
    ],
  ] as const)('%s', (_n, obs, cause) => {
    const v = assess(task, obs, DEFAULT_POLICY, late);
    expect(v.kind).toBe('stalled');
    expect(v.transportCause).toBe(cause);
  });

  it.each([
    ['overloaded', 'overloaded'],
    ['connection', 'connection'],
    ['rate_limit', 'rate_limit'],
    ['context_exhausted', undefined],
    ['api_error', undefined],
  ] as const)('a give-up on %s', (kind, cause) => {
    const v = assess(task, makeObs({ sources: ['transcript'], failed: { kind, atMs: T0 } }), DEFAULT_POLICY, T0 + 1000);
    expect(v.transportCause).toBe(cause);
  });
});

describe('resume or a fresh agent', () => {
  it('a frozen stream of a known session is resumed: same key, same cap, named in action_taken', () => {
    const p = plan(stalled({ transportCause: 'frozen_stream' }));
    expect(p.actions[0]).toMatchObject({ kind: 'redispatch', key: 'E-1:t1:redispatch', attempt: 1, recoveryTaskId: 't1-r1', mode: 'resume' });
    expect(p.stalls.get('t1')?.actionTaken).toBe('redispatch:resume');
    expect(p.events.find((e) => e.event === 'stall_detected')).toMatchObject({ action_taken: 'redispatch:resume' });
  });

  it.each([
    ['no transport cause (context, loops, a silence mid-tool)', stalled(), withSession, [], {}],
    ['no session to resume', stalled({ transportCause: 'overloaded' }), makeTask({ taskId: 't1', ticketId: 'P-1' }), [], {}],
    ['the cause is not in resume_on', stalled({ transportCause: 'rate_limit' }), withSession, [], {}],
    ['resume turned off', stalled({ transportCause: 'frozen_stream' }), withSession, [], { controls: { ...DEFAULT_CONTROLS, resumeOn: [] } }],
    ['the adapter cannot resume (no resume_argv)', stalled({ transportCause: 'frozen_stream' }), withSession, [], { controls: resolveControls({}, 'process') }],
    [
      'the ticket was just resumed: a second stall in a row gets a fresh agent',
      stalled({ transportCause: 'frozen_stream' }),
      withSession,
      [redispatchEvent('resume')],
      {},
    ],
  ] as const)('fresh when %s', (_n, v, task, events, o) => {
    const p = plan(v, task, [...events], o);
    expect(p.actions[0]).toMatchObject({ kind: 'redispatch' });
    expect(p.actions[0]!.mode ?? 'fresh').toBe('fresh');
  });

  it('a resume after a fresh recovery counts toward the same cap', () => {
    const p = plan(stalled({ transportCause: 'connection' }), withSession, [redispatchEvent('fresh')]);
    expect(p.actions[0]).toMatchObject({ kind: 'redispatch', attempt: 2, recoveryTaskId: 't1-r2', mode: 'resume' });
    const capped = plan(stalled({ transportCause: 'connection' }), withSession, [redispatchEvent(), { ...redispatchEvent(), key: 'k2' } as DispatchEvent]);
    expect(capped.actions[0]).toMatchObject({ kind: 'escalate' });
  });

  it('the process adapter resumes only with agents.resume_argv', () => {
    expect(resolveControls({ agents: { resume_argv: ['claude', '--resume', '{session_id}', '-p', '{prompt}'] } }, 'process').canResume).toBe(true);
    expect(resolveControls({}, 'mailbox')).toEqual(DEFAULT_CONTROLS);
  });

  it('the resume prompt says why and not to start over', () => {
    expect(renderResumePrompt({ ticketId: 'P-1', cause: 'frozen_stream', checkpointPath: '/s/cp.yaml' })).toMatchInlineSnapshot(
      `"Continue where you left off on P-1: the previous request was interrupted (the response stream from the API stopped mid-answer); your conversation and work so far are intact. Do not start over: check what is already done, then finish the remaining work. (The watchdog's checkpoint of this ticket is /s/cp.yaml.)"`,
    );
  });
});

describe('nudge, then reconcile, for a row its agent disagrees with', () => {
  const NOW = Date.parse('2026-04-02T10:10:00Z');
  const finished = (sinceMs = NOW - 130_000): Verdict => ({
    ...stalled(),
    kind: 'inconsistent',
    stallReason: undefined,
    reason: 'agent finished (result success) but the row still says "in_progress"',
    disagreement: { kind: 'agent_finished', sinceMs },
  });
  const pSession = makeTask({ taskId: 't1', ticketId: 'P-1', sessionId: 's-1', status: 'in_progress' });
  const at = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  const sent = (ms: number): DispatchEvent[] => [
    {
      ...env,
      timestamp_utc: at(ms),
      event: 'action_started',
      ticket_id: 'P-1',
      task_id: 't1',
      agent_id: 't1',
      key: 'E-1:t1:nudge',
      action: 'nudge',
    } as DispatchEvent,
    {
      ...env,
      timestamp_utc: at(ms),
      event: 'nudge_sent',
      ticket_id: 'P-1',
      task_id: 't1',
      agent_id: 't1',
      key: 'E-1:t1:nudge',
      route: 'resume',
    } as DispatchEvent,
  ];
  const run = (v: Verdict, task = pSession, events: DispatchEvent[] = [], o: Partial<PlanOptions> = {}) =>
    planCheck([v], new Map([[v.taskId, task]]), foldHistory(events, 'E-1'), opts({ nowMs: NOW, ...o }));

  it('waits out the reconcile grace (the lead may be about to update the row)', () => {
    expect(run(finished(NOW - 60_000)).actions).toEqual([]);
  });

  it('nudges once where it can land: a -p session by resume, a teammate through its inbox', () => {
    expect(run(finished()).actions).toEqual([expect.objectContaining({ kind: 'nudge', key: 'E-1:t1:nudge', route: 'resume' })]);
    const mate = makeTask({ taskId: 't1', ticketId: 'P-1', teamName: 'team', agentName: 'impl' });
    expect(run(finished(), mate, [], { controls: resolveControls({}, 'claude-team') }).actions).toEqual([
      expect.objectContaining({ kind: 'nudge', route: 'inbox' }),
    ]);
  });

  it('never nudges where it cannot land: a background subagent (no session of its own) gets a reconcile request', () => {
    const sub = makeTask({ taskId: 't1', ticketId: 'P-1', agentId: 'a1', sessionId: 's-lead' });
    expect(run(finished(), sub).actions).toEqual([expect.objectContaining({ kind: 'reconcile', key: 'E-1:t1:reconcile' })]);
    expect(run(finished(), pSession, [], { controls: { ...DEFAULT_CONTROLS, isNudgeOn: false } }).actions).toEqual([
      expect.objectContaining({ kind: 'reconcile' }),
    ]);
    // Report mode sends nothing to an agent.
    expect(run(finished(), pSession, [], { strategy: 'report' }).actions).toEqual([expect.objectContaining({ kind: 'reconcile' })]);
  });

  it('gives the nudge its grace window, then asks the owner to reconcile; each once', () => {
    expect(run(finished(), pSession, sent(NOW - 60_000)).actions).toEqual([]);
    const after = run(finished(), pSession, sent(NOW - 121_000));
    expect(after.actions).toEqual([expect.objectContaining({ kind: 'reconcile' })]);
    const asked = [
      ...sent(NOW - 300_000),
      { ...env, event: 'action_started', ticket_id: 'P-1', task_id: 't1', agent_id: 't1', key: 'E-1:t1:reconcile', action: 'reconcile' } as DispatchEvent,
    ];
    expect(run(finished(), pSession, asked).actions).toEqual([]);
  });

  it('a foreign transcript goes straight to reconcile (a nudge cannot fix whose transcript it is)', () => {
    const v = { ...finished(), disagreement: { kind: 'foreign_transcript' as const } };
    const h: DispatchEvent[] = [
      { ...env, timestamp_utc: at(NOW - 200_000), event: 'truth_inconsistent', ticket_id: 'P-1', task_id: 't1', agent_id: 't1', reason: 'x' } as DispatchEvent,
    ];
    expect(run(v, pSession, h).actions).toEqual([expect.objectContaining({ kind: 'reconcile' })]);
  });

  it('a nudge is no stop: the task can still be redispatched later', () => {
    const p = run({ ...stalled(), transportCause: undefined }, pSession, sent(NOW - 600_000));
    expect(p.actions).toEqual([expect.objectContaining({ kind: 'redispatch' })]);
  });
});

describe('attention', () => {
  const NOW = Date.parse('2026-04-02T12:00:00Z');
  const at = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  const waiting: Verdict = { ...stalled(), kind: 'waiting_human', stallReason: undefined, reason: 'waiting for a human: permission prompt' };
  const logged = (event: string, ms: number): DispatchEvent[] => [
    { ...env, timestamp_utc: at(ms), event, ticket_id: 'P-1', task_id: 't1', agent_id: 't1', reason: 'x' } as DispatchEvent,
  ];
  const run = (v: Verdict, events: DispatchEvent[]) => planCheck([v], new Map([[v.taskId, withSession]]), foldHistory(events, 'E-1'), opts({ nowMs: NOW }));

  it('a human wait over its limit is logged once as attention_needed', () => {
    expect(run(waiting, logged('waiting_human', NOW - 1000_000)).events).toEqual([]);
    const p = run(waiting, logged('waiting_human', NOW - 1801_000));
    expect(p.events).toEqual([
      expect.objectContaining({ event: 'attention_needed', kind: 'human_wait', task_id: 't1', key: `E-1:t1:human_wait@${at(NOW - 1801_000)}` }),
    ]);
    const again = [...logged('waiting_human', NOW - 1801_000), { ...env, ...p.events[0], timestamp_utc: at(NOW) } as DispatchEvent];
    expect(run(waiting, again).events).toEqual([]);
  });

  it('an agent unknown for 5 windows is unobservable', () => {
    const unknown: Verdict = { ...stalled(), kind: 'unknown', stallReason: undefined, reason: 'no activity evidence' };
    expect(run(unknown, logged('task_unknown', NOW - 601_000)).events).toEqual([expect.objectContaining({ event: 'attention_needed', kind: 'unobservable' })]);
  });

  it('report mode: every stall is news for a person; an orphan too', () => {
    const h = foldHistory(
      [
        {
          ...env,
          event: 'stall_detected',
          ticket_id: 'P-1',
          task_id: 't1',
          agent_id: 't1',
          stall_reason: 'inactivity',
          idle_seconds: 130,
          bash_timeout_exemption: false,
          redispatch_attempt: 1,
          max_redispatches: 2,
          action_taken: 'report',
        } as DispatchEvent,
        { ...env, event: 'recovery_summary', done: [], finished: [], orphans: ['E-1:t2:redispatch'], orphan_count: 1 } as DispatchEvent,
      ],
      'E-1',
    );
    const news = newsOf(h);
    expect(news.attention.map((a) => a.kind)).toEqual(['stall_reported', 'orphan']);
    expect(nextReason(news, false)).toBe('attention');
    expect(NEXT_EXIT.attention).toBe(13);
  });

  it('requests come first; a run with only reconcile requests is attention', () => {
    const rec = (kind: 'reconcile' | 'nudge') => ({ kind }) as RequestRecord;
    const empty = { requests: [], unanswered: [], escalations: [], attention: [] };
    expect(nextReason({ ...empty, requests: [rec('reconcile')] }, false)).toBe('attention');
    expect(nextReason({ ...empty, requests: [rec('reconcile'), rec('nudge')] }, false)).toBe('requests');
  });
});
