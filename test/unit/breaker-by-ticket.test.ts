// The circuit breaker counts stalling tickets, not task instances: one ticket whose replacements
// stall one after another (t2, t2-r1, t2-r2) is not a starved host. Counted by instance, those three
// stalls held the ticket's escalation for good when nobody answered its requests.
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/assess.js';
import type { DispatchEvent } from '../../src/contracts/events.js';
import { foldHistory } from '../../src/core/history.js';
import { planCheck, type PlanOptions } from '../../src/core/plan.js';
import { makeTask } from '../helpers/builders.js';

const NOW = Date.parse('2026-04-02T10:00:10Z');
const opts: PlanOptions = {
  epicId: 'E-1',
  strategy: 'redispatch',
  maxRedispatches: 2,
  shouldActOnLooping: false,
  circuitBreaker: { minStalled: 3, fraction: 0.5 },
  isLagged: false,
  nowMs: NOW,
};
const verdict = (taskId: string, ticketId: string, kind: Verdict['kind']): Verdict => ({
  kind,
  taskId,
  ticketId,
  effectiveTimeoutMs: 1_000,
  exemptions: [],
  hasShellTimeoutExemption: false,
  sources: ['row'],
  reason: kind,
  idleMs: 2_000,
  stallReason: kind === 'stalled' ? 'inactivity' : undefined,
});
const env = (at: string) => ({ timestamp_utc: at, epic_id: 'E-1', run_id: 'r' });
const stall = (taskId: string, at: string) =>
  ({
    ...env(at),
    event: 'stall_detected',
    ticket_id: 'P-2',
    task_id: taskId,
    agent_id: taskId,
    stall_reason: 'inactivity',
    idle_seconds: 2,
    bash_timeout_exemption: false,
    redispatch_attempt: 1,
    max_redispatches: 2,
    action_taken: 'redispatch',
  }) as DispatchEvent;
const redispatch = (taskId: string, n: number, at: string) =>
  ({
    ...env(at),
    event: 'redispatch',
    ticket_id: 'P-2',
    task_id: taskId,
    agent_id: taskId,
    key: `E-1:${taskId}:redispatch`,
    redispatch_attempt: n,
    recovery_task_id: `t2-r${n}`,
  }) as DispatchEvent;

describe('the circuit breaker', () => {
  it('does not hold the escalation of one ticket whose replacements stalled in turn', () => {
    const vs = [verdict('t1', 'P-1', 'healthy'), verdict('t2-r2', 'P-2', 'stalled'), verdict('t3', 'P-3', 'healthy'), verdict('t4', 'P-4', 'healthy')];
    const tasks = new Map(vs.map((v) => [v.taskId, makeTask({ taskId: v.taskId, ticketId: v.ticketId })]));
    const history = foldHistory(
      [
        stall('t2', '2026-04-02T10:00:02Z'),
        redispatch('t2', 1, '2026-04-02T10:00:02Z'),
        stall('t2-r1', '2026-04-02T10:00:06Z'),
        redispatch('t2-r1', 2, '2026-04-02T10:00:06Z'),
      ],
      'E-1',
    );
    const p = planCheck(vs, tasks, history, opts);
    expect(p.isMassStall).toBe(false);
    expect(p.events.filter((e) => e.event === 'mass_stall')).toEqual([]);
    expect(p.actions.map((a) => [a.kind, a.key])).toEqual([['escalate', 'E-1:t2-r2:escalate']]);
  });

  it('still trips when three tickets stall together', () => {
    const vs = [verdict('t1', 'P-1', 'stalled'), verdict('t2', 'P-2', 'stalled'), verdict('t3', 'P-3', 'stalled'), verdict('t4', 'P-4', 'healthy')];
    const tasks = new Map(vs.map((v) => [v.taskId, makeTask({ taskId: v.taskId, ticketId: v.ticketId })]));
    const p = planCheck(vs, tasks, foldHistory([], 'E-1'), opts);
    expect(p.isMassStall).toBe(true);
    expect(p.actions).toEqual([]);
  });
});

describe('the mass_stall line', () => {
  // Stalls of the last 60 s count with this check's, but were divided by the tasks in flight now
  // only: a replaced task's stall made "6 of 5 tasks stalled at once".
  it('never names more stalled tasks than it divides by', () => {
    const vs = [verdict('t2-r1', 'P-2', 'stalled'), ...['1', '3', '4', '5'].map((n) => verdict(`t${n}`, `P-${n}`, 'stalled'))];
    const tasks = new Map(vs.map((v) => [v.taskId, makeTask({ taskId: v.taskId, ticketId: v.ticketId })]));
    const history = foldHistory([stall('t2', '2026-04-02T10:00:02Z'), redispatch('t2', 1, '2026-04-02T10:00:02Z')], 'E-1');
    const p = planCheck(vs, tasks, history, opts);
    const line = p.events.find((e) => e.event === 'mass_stall') as { stalled: number; in_flight: number; task_ids: string[] } | undefined;
    expect(line?.task_ids).toEqual(['t1', 't2', 't2-r1', 't3', 't4', 't5']);
    expect(line?.stalled).toBe(6);
    expect(line!.in_flight).toBeGreaterThanOrEqual(line!.stalled);
  });
});
