// What `dispatch-watchdog next --json` prints (docs/recovery.md): one document per run, saying why it
// returned and everything the orchestrator has to know. Pure.
import * as z from 'zod';
import { EXIT } from './exit-codes.js';
import { REQUEST_KINDS, RequestSchema } from './request.js';
import { IsoTimestamp } from './time.js';
import { AttentionKindSchema } from './vocabulary.js';

/** One thing a person must look at (`next`'s `attention`). */
export const AttentionItemSchema = z.object({
  key: z.string().describe('Stable id of this item: printed once.'),
  kind: AttentionKindSchema,
  task_id: z.string().optional(),
  ticket_id: z.string().optional(),
  since: IsoTimestamp.optional(),
  detail: z.string(),
  what_to_do: z.string(),
});
export type AttentionItem = z.output<typeof AttentionItemSchema>;

export const NEXT_REASONS = ['wave_complete', 'requests', 'unanswered', 'escalation', 'attention', 'max_wait'] as const;
export type NextReason = (typeof NEXT_REASONS)[number];

/**
 * Exit code of `next` per reason; when several hold, the lowest non-zero wins (requests first).
 * `attention` (13): only a person can help (a long human wait, an orphan, an unobservable agent, a
 * row whose status is unknown, a reconcile request, a stall in report mode).
 */
export const NEXT_EXIT: Record<NextReason, number> = {
  wave_complete: EXIT.ok,
  requests: EXIT.requests,
  unanswered: EXIT.unanswered,
  escalation: EXIT.escalation,
  attention: EXIT.attention,
  max_wait: EXIT.max_wait,
};

const Kind = z.enum(REQUEST_KINDS);

export const NextDocSchema = z
  .object({
    schema_version: z.literal('1'),
    epic_id: z.string(),
    reason: z
      .enum(NEXT_REASONS)
      .describe(
        'Why next returned: the most urgent of what holds (requests > unanswered > escalation > attention > wave_complete); a run whose only new requests are reconcile requests returns attention. max_wait: --max-wait passed with nothing to report.',
      ),
    exit_code: z.number().int(),
    requests: z
      .array(RequestSchema.extend({ path: z.string().describe('State-dir relative path of the request file.') }))
      .describe('New requests to carry out (cancel, redispatch, resume, nudge, reconcile), each as written in its file, plus its path.'),
    unanswered: z
      .array(
        z.object({ key: z.string(), kind: Kind, task_id: z.string(), ticket_id: z.string(), recovery_task_id: z.string().optional(), answer_by: IsoTimestamp }),
      )
      .describe('Requests that passed answer_by without an answer (a redispatch counts as a failed attempt).'),
    escalations: z
      .array(z.object({ key: z.string(), ticket_id: z.string(), task_id: z.string(), friction_path: z.string(), tracker: z.string(), notice_path: z.string() }))
      .describe('Tickets escalated to Blocked: informational, need no answer; do not redispatch them.'),
    attention: z.array(AttentionItemSchema).describe('What only a person can help with, not printed before.'),
    pending: z
      .array(z.object({ key: z.string(), kind: Kind, task_id: z.string(), answer_by: IsoTimestamp, path: z.string() }))
      .describe('Every request still waiting for an answer, new or printed before.'),
    wave: z
      .object({
        in_flight: z.number().int(),
        terminal: z.number().int(),
        blocked: z.number().int().describe('Blocked rows, and the instances of a ticket escalated to Blocked (its row may still say in progress).'),
        unknown_status: z.number().int().describe('Rows whose status the watchdog does not know: nobody watches these agents (attention unknown_status).'),
        pending_requests: z.number().int(),
      })
      .describe('The task instances the watchdog judged, as the facts say (a replaced or never-started instance is terminal once its request is settled).'),
  })
  .meta({ title: 'NextResult', description: 'stdout of `dispatch-watchdog next --json` (docs/recovery.md).' });
export type NextDoc = z.output<typeof NextDocSchema>;
