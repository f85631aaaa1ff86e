// Dispatch-log events (docs/state-files.md): one JSON object per line in dispatch-log/<UTC date>.ndjson.
// The seed's five events keep their field names; everything else is additive. Pure.
import * as z from 'zod';
import { SafeId } from './ids.js';
import { NEXT_REASONS } from './next.js';
import { ANSWER_HOWS, REQUEST_KINDS } from './request.js';
import { IsoTimestamp } from './time.js';
import { AgentCliSchema, NotifyTriggerSchema, AttentionKindSchema, DisagreementKindSchema, RecoveryModeSchema, TransportCauseSchema, TrackerOutcomeSchema, ActionKindSchema as ActionKind, ExemptionSchema as Exemption, StallReasonAsRead, type ActionKind as ActionKindName, type VerdictKind } from './vocabulary.js';

const Envelope = {
  timestamp_utc: IsoTimestamp,
  epic_id: z.string(),
  run_id: z.string(),
};
/** Fields of a line about one task (`agent_id` is the seed's name for the task/agent id). */
const TaskFields = {
  // Safe ids: a line edited by hand or by another tool can never steer a path out of the state dir.
  ticket_id: SafeId,
  task_id: SafeId,
  agent_id: SafeId,
};

const ev = <E extends string, S extends z.core.$ZodLooseShape>(event: E, shape: S, description: string) =>
  z.looseObject({ event: z.literal(event), ...Envelope, ...shape }).meta({ title: event, description });

export const WatchdogStarted = ev('watchdog_started', {
  pid: z.number().int(),
  version: z.string(),
  action: z.string(),
  timeout_seconds: z.number(),
  check_interval_seconds: z.number(),
  max_redispatches: z.number().int(),
  adapter: z.string().optional(),
}, 'The watchdog began watching an epic.');

export const WatchdogStopped = ev('watchdog_stopped', {
  reason: z.enum(['wave_complete', 'signal', 'once', 'error', 'next', 'max_wait']),
  signal: z.string().optional(),
  checks: z.number().int().optional(),
}, 'The watchdog stopped watching an epic.');

export const Healthy = ev('healthy', {
  ...TaskFields,
  idle_seconds: z.number(),
  effective_timeout_seconds: z.number().optional(),
  recovered: z.boolean().optional(),
}, 'A task was first seen healthy, or recovered (not written every tick).');

export const StallDetected = ev('stall_detected', {
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
}, 'A task crossed its effective stall window.');

export const TruthInconsistent = ev('truth_inconsistent', { ...TaskFields, reason: z.string() }, 'Evidence contradicts itself; reported, never acted on.');
export const LoopingDetected = ev('looping_detected', { ...TaskFields, reason: z.string() }, 'An agent repeats the same call or error.');
export const WaitingHuman = ev('waiting_human', { ...TaskFields, reason: z.string() }, 'An agent waits on a permission prompt or a question.');
export const UnknownTask = ev('task_unknown', { ...TaskFields, reason: z.string() }, 'A task cannot be judged (no evidence, unknown status, unreadable source).');

export const MassStall = ev('mass_stall', {
  stalled: z.number().int(),
  in_flight: z.number().int(),
  task_ids: z.array(z.string()),
  episode_started_at: IsoTimestamp.optional().describe('When this episode of the breaker began (its first mass_stall).'),
}, 'Circuit breaker: too many tasks stalled at once; no cancel or redispatch this check.');

export const MassStallEnded = ev('mass_stall_ended', {
  held_seconds: z.number(),
}, 'The circuit breaker closed: fewer tasks stall at once.');

export const MassStallEscalated = ev('mass_stall_escalated', {
  episode_started_at: IsoTimestamp,
  held_seconds: z.number(),
  task_ids: z.array(z.string()),
  friction_path: z.string(),
}, 'A mass-stall episode held actions longer than circuit_breaker.max_hold_seconds: escalated once (friction note); stalls are acted on again.');

export const InputErrorEvent = ev('input_error', {
  code: z.string(),
  message: z.string(),
  file: z.string().optional(),
}, 'A file could not be used; logged once per distinct problem.');

export const ActionStarted = ev('action_started', {
  ...TaskFields,
  key: z.string().describe('Idempotency key <epic>:<task_id>:<action>.'),
  action: ActionKind,
  adapter: z.string().optional(),
  redispatch_attempt: z.number().int().optional(),
  recovery_task_id: SafeId.optional(),
  pid: z.number().int().optional().describe('The agent process to stop, when known.'),
  start_ticks: z.number().int().optional().describe('Its start time (/proc/<pid>/stat field 22), so a reused pid is never killed.'),
  boot_id: z.string().optional(),
  // A reason this version does not know (a newer one's) reads as none: the write-ahead record must never be lost.
  stall_reason: StallReasonAsRead.optional().catch(undefined),
  idle_seconds: z.number().optional(),
  session_id: z.string().optional().describe('The stalled agent\'s session, so a row reused for the replacement is recognised.'),
  row_task_id: SafeId.optional().describe('The state-file row carrying task_id, when a reused row carries a replacement.'),
  mode: RecoveryModeSchema.optional().describe('redispatch only: fresh (a new agent with the remaining work; the default when absent) or resume (the agent\'s own session, continued).'),
  transport_cause: TransportCauseSchema.optional().describe('The stall\'s cause was the link to the API (why a resume was chosen).'),
  route: z.enum(['inbox', 'resume']).optional().describe('nudge only: where the nudge lands.'),
  disagreement: DisagreementKindSchema.optional().describe('reconcile only: how the row and the agent disagree.'),
  detail: z.string().optional().describe('reconcile only: what disagrees, in words.'),
  cwd: z.string().optional().describe('redispatch: the agent\'s working directory (its transcript\'s first cwd, where the session started), so a replacement launched after a restart still starts there.'),
}, 'Write-ahead record of a destructive action (docs/recovery.md).');

export const AgentKilled = ev('agent_killed', {
  ...TaskFields,
  key: z.string(),
  adapter: z.string().optional(),
  was_forced: z.boolean().optional(),
  detail: z.string().optional(),
  step: z.enum(['cancel', 'stop_before_redispatch', 'stop_before_escalation']).optional(),
  request_path: z.string().optional().describe('State-dir relative path of the request file written for the orchestrator (mailbox): the request is pending until answered.'),
  answer_by: IsoTimestamp.optional().describe('The request\'s deadline.'),
}, 'The stalled agent was stopped (or a stop was requested).');

export const Redispatch = ev('redispatch', {
  ...TaskFields,
  key: z.string(),
  redispatch_attempt: z.number().int(),
  max_redispatches: z.number().int().optional(),
  recovery_task_id: SafeId,
  checkpoint_path: z.string().optional(),
  remaining_tasks: z.array(z.string()).optional(),
  adapter: z.string().optional(),
  pid: z.number().int().optional(),
  start_ticks: z.number().int().optional(),
  boot_id: z.string().optional(),
  output_path: z.string().optional().describe('Where a launched agent writes its output (process adapter).'),
  agent: AgentCliSchema.optional().describe('The agent CLI of the stalled row, and so of its replacement (absent: claude-code).'),
  mode: RecoveryModeSchema.optional().describe('fresh (absent: fresh) or resume: the stalled agent\'s own session was resumed (or a resume was requested), keeping its context.'),
  detail: z.string().optional(),
  request_path: z.string().optional().describe('State-dir relative path of the request file written for the orchestrator (mailbox): the request is pending until answered.'),
  answer_by: IsoTimestamp.optional().describe('The request\'s deadline.'),
}, 'A fresh agent was launched (or requested) with only the remaining work.');

export const EscalatedToBlocked = ev('escalated_to_blocked', {
  ...TaskFields,
  key: z.string().optional(),
  attempt_count: z.number().int(),
  friction_path: z.string(),
  tracker: TrackerOutcomeSchema.optional(),
  tracker_detail: z.string().optional(),
  tracker_retryable: z.boolean().optional().describe('tracker failed, and a later retry may succeed: the running watchdog retries every 5 minutes, a start-up always.'),
  is_retry: z.boolean().optional().describe('A later line for the same key: the tracker step, retried after it had failed.'),
}, 'The ticket hit the redispatch cap and was moved to Blocked.');

export const ActionFailed = ev('action_failed', {
  ...TaskFields,
  key: z.string(),
  action: ActionKind,
  error: z.string(),
  retryable: z.boolean(),
}, 'A destructive action failed; that task instance is not acted on again automatically.');

export const RecoverySummary = ev('recovery_summary', {
  done: z.array(z.string()),
  finished: z.array(z.string()),
  orphans: z.array(z.string()).describe('Orphaned keys as listed for people: all of them, or the first 20 when there are more than 30.'),
  more_orphans: z.array(z.string()).optional().describe('The orphaned keys not listed, so none is reported again at the next start-up.'),
  orphan_count: z.number().int(),
  friction_path: z.string().optional(),
}, 'Start-up classification of every action started but not finished.');

export const StateRowsLost = ev('state_rows_lost', {
  vanished: z.array(z.string()).describe('In-flight task ids an earlier read listed and this one does not.'),
  fields_lost: z.array(z.object({ task_id: z.string(), fields: z.array(z.string()) })).describe('In-flight rows whose fields went missing.'),
  is_confirmed: z.boolean().describe('true: a read taken after the file stopped changing agrees (the orchestrator changed the rows); false: one read was torn mid-write and was not acted on.'),
}, 'Rows of the state file vanished or lost fields between reads; never taken as done or as never started.');

const RequestFields = {
  key: z.string(),
  kind: z.enum(REQUEST_KINDS),
  ticket_id: SafeId,
  task_id: SafeId.describe('The task instance the request was about.'),
  recovery_task_id: SafeId.optional(),
};

export const RequestAnswered = ev('request_answered', {
  ...RequestFields,
  how: z.enum(ANSWER_HOWS).describe('row: a row for recovery_task_id appeared; row_reused: the same row carries a new agent or the attempt; ack: `dispatch-watchdog ack`; terminal: the cancelled row turned terminal; resolved: the truth changed (a nudged agent made progress; a reconciled row and its agent agree).'),
  answered_by_task_id: SafeId.optional().describe('The row that answered (ack --task-id, or the reused row).'),
}, 'The orchestrator answered a request (docs/recovery.md).');

export const RequestUnanswered = ev('request_unanswered', {
  ...RequestFields,
  answer_by: IsoTimestamp,
}, 'A request passed its answer_by without an answer; logged once. A redispatch left unanswered counts as a failed attempt.');

export const NudgeSent = ev('nudge_sent', {
  ...TaskFields,
  key: z.string(),
  adapter: z.string().optional(),
  route: z.enum(['inbox', 'resume']),
  detail: z.string().optional(),
  request_path: z.string().optional().describe('mailbox: the nudge request the orchestrator carries out.'),
  answer_by: IsoTimestamp.optional(),
}, 'One nudge was sent (or requested) to an agent between turns whose row is still in progress; it has nudge_grace_seconds to show progress.');

export const ReconcileRequested = ev('reconcile_requested', {
  ...TaskFields,
  key: z.string(),
  disagreement: DisagreementKindSchema,
  detail: z.string().describe('What disagrees, in words.'),
  row_status: z.string(),
  request_path: z.string(),
  answer_by: IsoTimestamp.optional(),
}, 'The row and the agent\'s own record disagree past the grace: the owner was asked to reconcile them (never destructive).');

export const AttentionNeeded = ev('attention_needed', {
  ...TaskFields,
  key: z.string(),
  kind: AttentionKindSchema,
  since: IsoTimestamp.optional(),
  reason: z.string(),
}, 'A person is needed: a human wait over attention.human_wait_seconds, an agent unobservable over attention.unobservable_seconds, an agent past its window waiting on a subagent nothing can be seen of (at once, the reason naming it), or a row whose status the watchdog does not know (at once: that agent is not watched); next returns attention.');

export const NextReturned = ev('next_returned', {
  reason: z.enum(NEXT_REASONS),
  exit_code: z.number().int(),
  requests: z.array(z.string()).describe('Keys of the requests printed as new.'),
  unanswered: z.array(z.string()),
  escalations: z.array(z.string()),
  attention: z.array(z.string()).optional().describe('Keys of the attention items printed.'),
}, '`dispatch-watchdog next` printed these to the orchestrator: never printed as new again.');

const NotifyKey = z.string().describe('Idempotency key <epic>:notify:<trigger>:<what it is about> (docs/fleet.md "Notifications").');

export const NotifyStarted = ev('notify_started', {
  key: NotifyKey,
  trigger: NotifyTriggerSchema,
  about: z.string().describe('The key of what it is about: the escalation or request key, the attention key, the episode start, the orphan set.'),
  text: z.string().describe('The message, as sent (the same on every attempt and after a restart).'),
  ticket_id: SafeId.optional(),
  task_id: SafeId.optional(),
}, 'Write-ahead record of one webhook notification, in the same write as the event it is about; sent in the background, never blocking a check.');

export const NotifySent = ev('notify_sent', {
  key: NotifyKey,
  status: z.number().int().describe('The 2xx the webhook answered.'),
  attempts: z.number().int().min(1),
  is_recovered: z.boolean().optional().describe('Settled at start-up from its marker (sent before a crash) or sent then (a crash came before the POST).'),
}, 'The webhook answered 2xx; the notification is never sent again.');

export const NotifyFailed = ev('notify_failed', {
  key: NotifyKey,
  error: z.string().describe('Why, without the webhook URL.'),
  attempts: z.number().int().min(0),
  is_orphan: z.boolean().optional().describe('A crash came after the POST began and before its answer was recorded: the receiver may have it; never sent again (unless notifications.idempotent_receiver).'),
}, 'The notification was given up on (retries exhausted, a 4xx, or an orphan); never sent again.');

export const DispatchEventSchema = z
  .discriminatedUnion('event', [
    WatchdogStarted, WatchdogStopped, Healthy, StallDetected, TruthInconsistent, LoopingDetected, WaitingHuman,
    UnknownTask, MassStall, InputErrorEvent, ActionStarted, AgentKilled, Redispatch, EscalatedToBlocked,
    ActionFailed, RecoverySummary, StateRowsLost, MassStallEnded, MassStallEscalated, RequestAnswered, RequestUnanswered, NextReturned,
    NudgeSent, ReconcileRequested, AttentionNeeded, NotifyStarted, NotifySent, NotifyFailed,
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
