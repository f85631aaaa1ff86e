// Dispatch-log events of requests to the orchestrator (answered, unanswered, nudge, reconcile),
// attention, `next` and notifications. Pure. Split out of contracts/events.ts (the union).
import * as z from 'zod';
import { SafeId } from './ids.js';
import { NEXT_REASONS } from './next.js';
import { ANSWER_HOWS, REQUEST_KINDS } from './request.js';
import { IsoTimestamp } from './time.js';
import { NotifyTriggerSchema, AttentionKindSchema, DisagreementKindSchema } from './vocabulary.js';
import { TaskFields, ev } from './events-base.js';

const RequestFields = {
  key: z.string(),
  kind: z.enum(REQUEST_KINDS),
  ticket_id: SafeId,
  task_id: SafeId.describe('The task instance the request was about.'),
  recovery_task_id: SafeId.optional(),
};

export const RequestAnswered = ev(
  'request_answered',
  {
    ...RequestFields,
    how: z
      .enum(ANSWER_HOWS)
      .describe(
        'row: a row for recovery_task_id appeared; row_reused: the same row carries a new agent or the attempt; ack: `dispatch-watchdog ack`; terminal: the cancelled row turned terminal; resolved: the truth changed (a nudged agent made progress; a reconciled row and its agent agree).',
      ),
    answered_by_task_id: SafeId.optional().describe('The row that answered (ack --task-id, or the reused row).'),
  },
  'The orchestrator answered a request (docs/recovery.md).',
);

export const RequestUnanswered = ev(
  'request_unanswered',
  {
    ...RequestFields,
    answer_by: IsoTimestamp,
  },
  'A request passed its answer_by without an answer; logged once. A redispatch left unanswered counts as a failed attempt.',
);

export const NudgeSent = ev(
  'nudge_sent',
  {
    ...TaskFields,
    key: z.string(),
    adapter: z.string().optional(),
    route: z.enum(['inbox', 'resume']),
    detail: z.string().optional(),
    request_path: z.string().optional().describe('mailbox: the nudge request the orchestrator carries out.'),
    answer_by: IsoTimestamp.optional(),
  },
  'One nudge was sent (or requested) to an agent between turns whose row is still in progress; it has nudge_grace_seconds to show progress.',
);

export const ReconcileRequested = ev(
  'reconcile_requested',
  {
    ...TaskFields,
    key: z.string(),
    disagreement: DisagreementKindSchema,
    detail: z.string().describe('What disagrees, in words.'),
    row_status: z.string(),
    request_path: z.string(),
    answer_by: IsoTimestamp.optional(),
  },
  "The row and the agent's own record disagree past the grace: the owner was asked to reconcile them (never destructive).",
);

export const AttentionNeeded = ev(
  'attention_needed',
  {
    ...TaskFields,
    key: z.string(),
    kind: AttentionKindSchema,
    since: IsoTimestamp.optional(),
    reason: z.string(),
  },
  'A person is needed: a human wait over attention.human_wait_seconds, an agent unobservable over attention.unobservable_seconds, an agent past its window waiting on a subagent nothing can be seen of (at once, the reason naming it), or a row whose status the watchdog does not know (at once: that agent is not watched); next returns attention.',
);

export const NextReturned = ev(
  'next_returned',
  {
    reason: z.enum(NEXT_REASONS),
    exit_code: z.number().int(),
    requests: z.array(z.string()).describe('Keys of the requests printed as new.'),
    unanswered: z.array(z.string()),
    escalations: z.array(z.string()),
    attention: z.array(z.string()).optional().describe('Keys of the attention items printed.'),
  },
  '`dispatch-watchdog next` printed these to the orchestrator: never printed as new again.',
);

const NotifyKey = z.string().describe('Idempotency key <epic>:notify:<trigger>:<what it is about> (docs/fleet.md "Notifications").');

export const NotifyStarted = ev(
  'notify_started',
  {
    key: NotifyKey,
    trigger: NotifyTriggerSchema,
    about: z.string().describe('The key of what it is about: the escalation or request key, the attention key, the episode start, the orphan set.'),
    text: z.string().describe('The message, as sent (the same on every attempt and after a restart).'),
    ticket_id: SafeId.optional(),
    task_id: SafeId.optional(),
  },
  'Write-ahead record of one webhook notification, in the same write as the event it is about; sent in the background, never blocking a check.',
);

export const NotifySent = ev(
  'notify_sent',
  {
    key: NotifyKey,
    status: z.number().int().describe('The 2xx the webhook answered.'),
    attempts: z.number().int().min(1),
    is_recovered: z.boolean().optional().describe('Settled at start-up from its marker (sent before a crash) or sent then (a crash came before the POST).'),
  },
  'The webhook answered 2xx; the notification is never sent again.',
);

export const NotifyFailed = ev(
  'notify_failed',
  {
    key: NotifyKey,
    error: z.string().describe('Why, without the webhook URL.'),
    attempts: z.number().int().min(0),
    is_orphan: z
      .boolean()
      .optional()
      .describe(
        'A crash came after the POST began and before its answer was recorded: the receiver may have it; never sent again (unless notifications.idempotent_receiver).',
      ),
  },
  'The notification was given up on (retries exhausted, a 4xx, or an orphan); never sent again.',
);
