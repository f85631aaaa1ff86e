import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/assess.js';
import type { DispatchEvent } from '../../src/contracts/events.js';
import { foldHistory } from '../../src/core/history.js';
import { recoveryTaskId } from '../../src/contracts/ids.js';
import { planCheck, type PlanOptions } from '../../src/core/plan.js';
import { makeTask } from '../helpers/builders.js';

const opts = (over: Partial<PlanOptions> = {}): PlanOptions => ({
  epicId: 'E-1',
  strategy: 'redispatch',
  maxRedispatches: 2,
  shouldActOnLooping: false,
  circuitBreaker: { minStalled: 3, fraction: 0.5 },
  isLagged: false,
  ...over,
});
const verdict = (taskId: string, kind: Verdict['kind'], over: Partial<Verdict> = {}): Verdict => ({
  kind,
  taskId,
  ticketId: `P-${taskId}`,
  effectiveTimeoutMs: 120_000,
  exemptions: [],
  hasShellTimeoutExemption: false,
  sources: ['row'],
  reason: kind,
  idleMs: 130_000,
  stallReason: kind === 'stalled' ? 'inactivity' : undefined,
  ...over,
});
const tasksOf = (vs: Verdict[]) => new Map(vs.map((v) => [v.taskId, makeTask({ taskId: v.taskId, ticketId: v.ticketId })]));
const env = { timestamp_utc: '2026-04-02T10:00:00Z', epic_id: 'E-1', run_id: 'r' };
const redispatched = (ticket: string, n: number): DispatchEvent[] =>
  Array.from(
    { length: n },
    (_, i) =>
      ({
        ...env,
        event: 'redispatch',
        ticket_id: ticket,
        task_id: `x${i}`,
        agent_id: `x${i}`,
        key: `k${i}`,
        redispatch_attempt: i + 1,
        recovery_task_id: `x-r${i + 1}`,
      }) as DispatchEvent,
  );

describe('planCheck', () => {
  it('a usage-limit stall is escalated at once, with redispatches left: a replacement would hit the same wall', () => {
    const vs = [verdict('t1', 'stalled', { stallReason: 'usage_limit' }), verdict('t2', 'stalled', { stallReason: 'api_gave_up' })];
    const p = planCheck(vs, tasksOf(vs), foldHistory([], 'E-1'), opts());
    expect(p.actions.map((a) => [a.task.taskId, a.kind])).toEqual([
      ['t1', 'escalate'],
      ['t2', 'redispatch'],
    ]);
    expect(planCheck(vs, tasksOf(vs), foldHistory([], 'E-1'), opts({ strategy: 'report' })).actions).toEqual([]);
  });

  it('refused credentials are escalated at once as well: a replacement would be refused the same way', () => {
    const vs = [verdict('t1', 'stalled', { stallReason: 'auth_failed' })];
    expect(planCheck(vs, tasksOf(vs), foldHistory([], 'E-1'), opts()).actions.map((a) => a.kind)).toEqual(['escalate']);
  });

  it('report: logs the stall once and takes no action', () => {
    const vs = [verdict('t1', 'stalled'), verdict('t2', 'healthy')];
    const p = planCheck(vs, tasksOf(vs), foldHistory([], 'E-1'), opts({ strategy: 'report' }));
    expect(p.actions).toEqual([]);
    expect(p.events.map((e) => e.event)).toEqual(['stall_detected', 'healthy']);
    expect(p.stalls.get('t1')).toEqual({ actionTaken: 'report', redispatchAttempt: 1 });
  });

  it('does not log a verdict that was already the last one logged for the task', () => {
    const vs = [verdict('t1', 'healthy')];
    const h = foldHistory([{ ...env, event: 'healthy', ticket_id: 'P-t1', task_id: 't1', agent_id: 't1', idle_seconds: 1 } as DispatchEvent], 'E-1');
    expect(planCheck(vs, tasksOf(vs), h, opts()).events).toEqual([]);
  });

  it('a stall whose reason changed is logged again (an inactivity stall, then the give-up: api_gave_up), a stall with the same reason is not (issue 17 item 7)', () => {
    const stalled = {
      ...env,
      event: 'stall_detected',
      ticket_id: 'P-t1',
      task_id: 't1',
      agent_id: 't1',
      stall_reason: 'inactivity',
      idle_seconds: 130,
      bash_timeout_exemption: false,
      redispatch_attempt: 1,
      max_redispatches: 2,
      action_taken: 'report',
      effective_timeout_seconds: 120,
      exemptions: [],
    } as DispatchEvent;
    const h = foldHistory([stalled], 'E-1');
    const same = [verdict('t1', 'stalled')];
    expect(planCheck(same, tasksOf(same), h, opts({ strategy: 'report' })).events).toEqual([]);
    const gaveUp = [verdict('t1', 'stalled', { stallReason: 'api_gave_up', reason: 'gave up: API Error 529' })];
    expect(planCheck(gaveUp, tasksOf(gaveUp), h, opts({ strategy: 'report' })).events).toEqual([
      expect.objectContaining({ event: 'stall_detected', stall_reason: 'api_gave_up', reason: 'gave up: API Error 529' }),
    ]);
  });

  it('healthy after a stall is recovered; healthy after unknown (a transcript not found yet) or first seen is not', () => {
    const logged = (event: string) =>
      foldHistory(
        [
          {
            ...env,
            event,
            ticket_id: 'P-t1',
            task_id: 't1',
            agent_id: 't1',
            reason: 'x',
            stall_reason: 'inactivity',
            idle_seconds: 1,
            bash_timeout_exemption: false,
            redispatch_attempt: 1,
            action_taken: 'report',
            effective_timeout_seconds: 120,
            exemptions: [],
          } as DispatchEvent,
        ],
        'E-1',
      );
    const vs = [verdict('t1', 'healthy')];
    const recovered = (h: ReturnType<typeof foldHistory>) => (planCheck(vs, tasksOf(vs), h, opts()).events[0] as { recovered?: boolean }).recovered;
    expect(recovered(foldHistory([], 'E-1'))).toBe(false);
    expect(recovered(logged('task_unknown'))).toBe(false);
    expect(recovered(logged('stall_detected'))).toBe(true);
  });

  it.each([
    ['redispatch under the cap', 'redispatch', 0, 'redispatch', 1, 't1-r1'],
    ['redispatch at attempt 2', 'redispatch', 1, 'redispatch', 2, 't1-r2'],
    ['escalate at the cap (2 redispatches done)', 'redispatch', 2, 'escalate', 3, undefined],
    ['cancel', 'cancel', 0, 'cancel', 1, undefined],
  ] as const)('%s', (_n, strategy, done, kind, attempt, recovery) => {
    const vs = [verdict('t1', 'stalled')];
    const p = planCheck(vs, tasksOf(vs), foldHistory(redispatched('P-t1', done), 'E-1'), opts({ strategy }));
    expect(p.actions).toHaveLength(1);
    expect(p.actions[0]).toMatchObject({ kind, key: `E-1:t1:${kind}`, attempt, recoveryTaskId: recovery });
  });

  it('the redispatch count matches ticket ids exactly, never by substring', () => {
    const vs = [verdict('t1', 'stalled', { ticketId: 'P-1' })];
    const h = foldHistory([...redispatched('P-10', 2), ...redispatched('XP-1', 2)], 'E-1');
    expect(planCheck(vs, tasksOf(vs), h, opts()).actions[0]).toMatchObject({ kind: 'redispatch', attempt: 1 });
  });

  it('never acts twice on the same task instance', () => {
    const vs = [verdict('t1', 'stalled')];
    const started = {
      ...env,
      event: 'action_started',
      ticket_id: 'P-t1',
      task_id: 't1',
      agent_id: 't1',
      key: 'E-1:t1:redispatch',
      action: 'redispatch',
    } as DispatchEvent;
    const p = planCheck(vs, tasksOf(vs), foldHistory([started], 'E-1'), opts());
    expect(p.actions).toEqual([]);
    expect(p.stalls.get('t1')!.actionTaken).toBe('already_under_way');
  });

  it('circuit breaker: half or more of the in-flight tasks (at least 3) stalled → no actions, one mass_stall', () => {
    const vs = [
      verdict('a', 'stalled'),
      verdict('b', 'stalled'),
      verdict('c', 'stalled'),
      verdict('d', 'healthy'),
      verdict('e', 'healthy'),
      verdict('f', 'healthy'),
    ];
    const p = planCheck(vs, tasksOf(vs), foldHistory([], 'E-1'), opts());
    expect(p.actions).toEqual([]);
    expect(p.isMassStall).toBe(true);
    expect(p.events.filter((e) => e.event === 'mass_stall')).toEqual([{ event: 'mass_stall', stalled: 3, in_flight: 6, task_ids: ['a', 'b', 'c'] }]);
    // The same episode is not logged again.
    const again = planCheck(
      vs,
      tasksOf(vs),
      foldHistory([{ ...env, event: 'mass_stall', stalled: 3, in_flight: 6, task_ids: ['c', 'b', 'a'] } as DispatchEvent], 'E-1'),
      opts(),
    );
    expect(again.events.filter((e) => e.event === 'mass_stall')).toEqual([]);
  });

  it('stall events dated after now (the clock stepped back) do not hold a real stall as a mass stall', () => {
    const nowMs = Date.parse('2026-04-02T10:00:00Z');
    const stall = (t: string, at: string) =>
      ({
        ...env,
        timestamp_utc: at,
        event: 'stall_detected',
        ticket_id: `P-${t}`,
        task_id: t,
        agent_id: t,
        stall_reason: 'inactivity',
        idle_seconds: 130,
        bash_timeout_exemption: false,
        redispatch_attempt: 1,
        max_redispatches: 2,
        action_taken: 'redispatch',
      }) as DispatchEvent;
    const future = foldHistory([stall('b', '2026-04-02T11:00:00Z'), stall('c', '2026-04-02T11:00:01Z')], 'E-1');
    const vs = [verdict('a', 'stalled'), verdict('d', 'healthy')];
    const p = planCheck(vs, tasksOf(vs), future, opts({ nowMs }));
    expect(p.isMassStall).toBe(false);
    expect(p.actions.map((a) => [a.kind, a.task.taskId])).toEqual([['redispatch', 'a']]);
    // The same two stalls a few seconds before now are a mass stall with this one.
    const recent = foldHistory([stall('b', '2026-04-02T09:59:58Z'), stall('c', '2026-04-02T09:59:59Z')], 'E-1');
    expect(planCheck(vs, tasksOf(vs), recent, opts({ nowMs })).isMassStall).toBe(true);
  });

  it('two stalls out of three is not a mass stall (fewer than 3)', () => {
    const vs = [verdict('a', 'stalled'), verdict('b', 'stalled'), verdict('c', 'healthy')];
    expect(planCheck(vs, tasksOf(vs), foldHistory([], 'E-1'), opts()).actions).toHaveLength(2);
  });

  it('self-lag: holds actions for one re-observation', () => {
    const vs = [verdict('t1', 'stalled')];
    const p = planCheck(vs, tasksOf(vs), foldHistory([], 'E-1'), opts({ isLagged: true }));
    expect(p.actions).toEqual([]);
    expect(p.stalls.get('t1')!.actionTaken).toBe('held:self_lag');
  });

  it('looping is acted on only when the policy says so', () => {
    const vs = [verdict('t1', 'looping')];
    expect(planCheck(vs, tasksOf(vs), foldHistory([], 'E-1'), opts()).actions).toEqual([]);
    expect(planCheck(vs, tasksOf(vs), foldHistory([], 'E-1'), opts({ shouldActOnLooping: true })).actions).toHaveLength(1);
  });

  it.each([
    ['t1', 1, 't1-r1'],
    ['t1-r1', 2, 't1-r2'],
    ['task-7-r2', 3, 'task-7-r3'],
  ] as const)('recoveryTaskId(%s, %i) = %s', (id, n, want) => {
    expect(recoveryTaskId(id, n)).toBe(want);
  });
});
