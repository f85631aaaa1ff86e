// A known wave for the timeline tests: the mock in dispatch-log events. t1 works steadily
// and loops once; t2 stalls, is redispatched twice and escalated; t3 waits on a human.
import type { DispatchEvent } from '../../src/contracts/events.js';
import type { TimelineInput } from '../../src/core/timeline.js';

export const WAVE_T0 = Date.parse('2026-04-02T10:00:00Z');
const at = (s: number) => new Date(WAVE_T0 + s * 1000).toISOString();
const env = (s: number) => ({ timestamp_utc: at(s), epic_id: 'PROJ-1', run_id: 'r1' });
const who = (task: string, ticket: string) => ({ task_id: task, agent_id: task, ticket_id: ticket });

const stall = (s: number, task: string, idle: number, attempt: number) =>
  ({
    event: 'stall_detected',
    ...env(s),
    ...who(task, 'P-2'),
    stall_reason: 'inactivity',
    idle_seconds: idle,
    bash_timeout_exemption: false,
    redispatch_attempt: attempt,
    max_redispatches: 2,
    action_taken: 'redispatch',
    effective_timeout_seconds: 20,
    reason: `no progress for ${idle}s (window 20s)`,
  }) as DispatchEvent;
const redispatch = (s: number, task: string, next: string, attempt: number) =>
  ({
    event: 'redispatch',
    ...env(s),
    ...who(task, 'P-2'),
    key: `PROJ-1:${task}:redispatch`,
    redispatch_attempt: attempt,
    recovery_task_id: next,
    request_path: `epics/PROJ-1/requests/${task}.redispatch.json`,
  }) as DispatchEvent;

export const KNOWN_EVENTS: DispatchEvent[] = [
  { event: 'watchdog_started', ...env(0), pid: 1, version: '0', action: 'redispatch', timeout_seconds: 20, check_interval_seconds: 5, max_redispatches: 2 },
  { event: 'healthy', ...env(1), ...who('t1', 'P-1'), idle_seconds: 1 },
  { event: 'healthy', ...env(1), ...who('t2', 'P-2'), idle_seconds: 1 },
  { event: 'healthy', ...env(1), ...who('t3', 'P-3'), idle_seconds: 1 },
  { event: 'looping_detected', ...env(25), ...who('t1', 'P-1'), reason: 'same Read call repeated 4 times in a row' },
  stall(31, 't2', 20.4, 0),
  redispatch(32, 't2', 't2-r1', 1),
  { event: 'request_answered', ...env(40), key: 'PROJ-1:t2:redispatch', kind: 'redispatch', ...who('t2', 'P-2'), recovery_task_id: 't2-r1', how: 'row' },
  stall(80, 't2-r1', 20.6, 1),
  redispatch(81, 't2-r1', 't2-r2', 2),
  { event: 'request_answered', ...env(90), key: 'PROJ-1:t2-r1:redispatch', kind: 'redispatch', ...who('t2-r1', 'P-2'), recovery_task_id: 't2-r2', how: 'row' },
  stall(125, 't2-r2', 21.2, 2),
  {
    event: 'escalated_to_blocked',
    ...env(126),
    ...who('t2-r2', 'P-2'),
    key: 'PROJ-1:t2-r2:escalate',
    attempt_count: 3,
    friction_path: 'friction/2026-04-02-stall-escalation-p-2.md',
    tracker: 'skipped',
  },
  { event: 'waiting_human', ...env(200), ...who('t3', 'P-3'), reason: 'waiting for a human: permission prompt' },
];

const every = (from: number, to: number, step: number) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => WAVE_T0 + (from + i * step) * 1000);

export const KNOWN_WAVE: TimelineInput = {
  epicId: 'PROJ-1',
  events: KNOWN_EVENTS,
  rows: [
    { taskId: 't1', ticketId: 'P-1', status: 'completed', statusClass: 'terminal', dispatchedAtMs: WAVE_T0 },
    { taskId: 't2', ticketId: 'P-2', status: 'in_progress', statusClass: 'in_flight', dispatchedAtMs: WAVE_T0 },
    { taskId: 't2-r1', ticketId: 'P-2', status: 'in_progress', statusClass: 'in_flight' },
    { taskId: 't2-r2', ticketId: 'P-2', status: 'in_progress', statusClass: 'in_flight' },
    { taskId: 't3', ticketId: 'P-3', status: 'in_progress', statusClass: 'in_flight', dispatchedAtMs: WAVE_T0 },
  ],
  activity: new Map([
    ['t1', every(0, 190, 4)],
    ['t2', every(0, 10, 2)],
    ['t2-r1', every(41, 60, 3)],
    ['t2-r2', every(91, 104, 3)],
    ['t3', every(0, 20, 2)],
  ]),
  lastCheckMs: WAVE_T0 + 210_000,
  nowMs: WAVE_T0 + 999_000,
};
