// Dispatch-log events (docs/state-files.md): one JSON object per line in dispatch-log/<UTC date>.ndjson.
// The seed's five events keep their field names; everything else is additive. Pure.
import * as z from 'zod';
import type { ActionKind as ActionKindName, VerdictKind } from './vocabulary.js';
import {
  WatchdogStarted,
  WatchdogStopped,
  Healthy,
  StallDetected,
  TruthInconsistent,
  LoopingDetected,
  WaitingHuman,
  UnknownTask,
  MassStall,
  MassStallEnded,
  MassStallEscalated,
  InputErrorEvent,
} from './events-verdicts.js';
export * from './events-verdicts.js';
import { ActionStarted, AgentKilled, Redispatch, EscalatedToBlocked, ActionFailed, RecoverySummary, StateRowsLost } from './events-actions.js';
export * from './events-actions.js';
import {
  RequestAnswered,
  RequestUnanswered,
  NudgeSent,
  ReconcileRequested,
  AttentionNeeded,
  NextReturned,
  NotifyStarted,
  NotifySent,
  NotifyFailed,
} from './events-requests.js';
export * from './events-requests.js';

export const DispatchEventSchema = z
  .discriminatedUnion('event', [
    WatchdogStarted,
    WatchdogStopped,
    Healthy,
    StallDetected,
    TruthInconsistent,
    LoopingDetected,
    WaitingHuman,
    UnknownTask,
    MassStall,
    InputErrorEvent,
    ActionStarted,
    AgentKilled,
    Redispatch,
    EscalatedToBlocked,
    ActionFailed,
    RecoverySummary,
    StateRowsLost,
    MassStallEnded,
    MassStallEscalated,
    RequestAnswered,
    RequestUnanswered,
    NextReturned,
    NudgeSent,
    ReconcileRequested,
    AttentionNeeded,
    NotifyStarted,
    NotifySent,
    NotifyFailed,
  ])
  .meta({ title: 'DispatchEvent', description: 'One line of dispatch-log/<YYYY-MM-DD>.ndjson (docs/state-files.md).' });
export type DispatchEvent = z.output<typeof DispatchEventSchema>;
export type EventName = DispatchEvent['event'];
export type EventOf<E extends EventName> = Extract<DispatchEvent, { event: E }>;
/** An event before the journal stamps the envelope on it. */
export type EventBody<E extends EventName = EventName> = E extends EventName ? Omit<EventOf<E>, 'timestamp_utc' | 'epic_id' | 'run_id'> : never;

/** Every event name, in the order of the union above. */
export const EVENT_NAMES: readonly EventName[] = DispatchEventSchema.options.map((o) => o.shape.event.value);

/**
 * The event that records each verdict when it changes (null: not logged). Total, so a new verdict
 * does not compile until it is given its event (or null); the inverse below is computed from it.
 */
export const VERDICT_EVENT = {
  terminal: null,
  blocked: null,
  inconsistent: 'truth_inconsistent',
  unknown: 'task_unknown',
  waiting_human: 'waiting_human',
  stalled: 'stall_detected',
  looping: 'looping_detected',
  healthy: 'healthy',
} as const satisfies Record<VerdictKind, EventName | null>;
export type VerdictEventName = NonNullable<(typeof VERDICT_EVENT)[VerdictKind]>;

const VERDICT_OF_EVENT: ReadonlyMap<EventName, VerdictKind> = new Map(
  (Object.entries(VERDICT_EVENT) as [VerdictKind, VerdictEventName | null][]).flatMap(([kind, event]) => (event ? [[event, kind] as const] : [])),
);

/** The verdict an event records, or undefined for events that record none. */
export function verdictOfEvent(event: EventName): VerdictKind | undefined {
  return VERDICT_OF_EVENT.get(event);
}

/** The event that finishes each kind of action (besides `action_failed`). */
export const OUTCOME_EVENT_OF = {
  cancel: 'agent_killed',
  redispatch: 'redispatch',
  escalate: 'escalated_to_blocked',
  nudge: 'nudge_sent',
  reconcile: 'reconcile_requested',
} as const satisfies Record<ActionKindName, EventName>;
