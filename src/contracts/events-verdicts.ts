// Dispatch-log events of the watchdog's run and its verdicts: started, stopped, a verdict changed,
// mass stalls, bad input. Pure. Split out of contracts/events.ts (the union).
import * as z from 'zod';
import { IsoTimestamp } from './time.js';
import { ExemptionSchema as Exemption, StallReasonAsRead } from './vocabulary.js';
import { TaskFields, ev } from './events-base.js';

export const WatchdogStarted = ev(
  'watchdog_started',
  {
    pid: z.number().int(),
    version: z.string(),
    action: z.string(),
    timeout_seconds: z.number(),
    check_interval_seconds: z.number(),
    max_redispatches: z.number().int(),
    adapter: z.string().optional(),
  },
  'The watchdog began watching an epic.',
);

export const WatchdogStopped = ev(
  'watchdog_stopped',
  {
    reason: z.enum(['wave_complete', 'signal', 'once', 'error', 'next', 'max_wait']),
    signal: z.string().optional(),
    checks: z.number().int().optional(),
  },
  'The watchdog stopped watching an epic.',
);

export const Healthy = ev(
  'healthy',
  {
    ...TaskFields,
    idle_seconds: z.number(),
    effective_timeout_seconds: z.number().optional(),
    recovered: z.boolean().optional(),
  },
  'A task was first seen healthy, or recovered (not written every tick).',
);

export const StallDetected = ev(
  'stall_detected',
  {
    ...TaskFields,
    stall_reason: StallReasonAsRead,
    idle_seconds: z.number(),
    bash_timeout_exemption: z.boolean(),
    redispatch_attempt: z.number().int(),
    max_redispatches: z.number().int(),
    action_taken: z.string(),
    effective_timeout_seconds: z.number().optional(),
    exemptions: z.array(Exemption).optional(),
    reason: z.string().optional(),
    last_tool: z.string().optional(),
    last_tool_open: z.boolean().optional().describe('The last tool call had no result yet (absent: no source could tell).'),
  },
  'A task crossed its effective stall window.',
);

export const TruthInconsistent = ev('truth_inconsistent', { ...TaskFields, reason: z.string() }, 'Evidence contradicts itself; reported, never acted on.');
export const LoopingDetected = ev('looping_detected', { ...TaskFields, reason: z.string() }, 'An agent repeats the same call or error.');
export const WaitingHuman = ev('waiting_human', { ...TaskFields, reason: z.string() }, 'An agent waits on a permission prompt or a question.');
export const UnknownTask = ev(
  'task_unknown',
  { ...TaskFields, reason: z.string() },
  'A task cannot be judged (no evidence, unknown status, unreadable source).',
);

export const MassStall = ev(
  'mass_stall',
  {
    stalled: z.number().int(),
    in_flight: z.number().int(),
    task_ids: z.array(z.string()),
    episode_started_at: IsoTimestamp.optional().describe('When this episode of the breaker began (its first mass_stall).'),
  },
  'Circuit breaker: too many tasks stalled at once; no cancel or redispatch this check.',
);

export const MassStallEnded = ev(
  'mass_stall_ended',
  {
    held_seconds: z.number(),
  },
  'The circuit breaker closed: fewer tasks stall at once.',
);

export const MassStallEscalated = ev(
  'mass_stall_escalated',
  {
    episode_started_at: IsoTimestamp,
    held_seconds: z.number(),
    task_ids: z.array(z.string()),
    friction_path: z.string(),
  },
  'A mass-stall episode held actions longer than circuit_breaker.max_hold_seconds: escalated once (friction note); stalls are acted on again.',
);

export const InputErrorEvent = ev(
  'input_error',
  {
    code: z.string(),
    message: z.string(),
    file: z.string().optional(),
  },
  'A file could not be used; logged once per distinct problem.',
);
