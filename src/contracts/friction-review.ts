// The JSON of `dispatch-watchdog friction --json`: a review of a period of the dispatch log and the
// friction notes, per ticket (ranked: look at the first one first) and per epic. Pure.
import * as z from 'zod';
import { IsoTimestamp } from './time.js';
import { StallReasonSchema, TrackerOutcomeSchema } from './vocabulary.js';

const Counts = z.record(z.string(), z.number().int()).describe('Name → how many times.');
const FirstLine = z.object({ file: z.string(), line: z.number().int() }).nullable().describe('The first such line (state-dir relative), or null.');

export const FrictionTicket = z.object({
  rank: z.number().int().min(1).describe('1 = look at this ticket first.'),
  ticket_id: z.string(),
  epics: z.array(z.string()),
  stalls: z.number().int(),
  redispatches: z.number().int(),
  cancels: z.number().int(),
  escalations: z.number().int(),
  failed_actions: z.number().int(),
  tracker: TrackerOutcomeSchema.nullable().describe(
    'What the last escalation did in the tracker (skipped: no LINEAR_API_KEY, the ticket was not moved to Blocked), or null if never escalated.',
  ),
  stall_reasons: z.partialRecord(StallReasonSchema, z.number().int()).describe('Stall reason → how many times.'),
  exemptions_seen: Counts,
  last_stall: IsoTimestamp.nullable(),
  why_first: z.string().describe('Why it ranks where it does, in words.'),
  hypothesis: z.string().nullable().describe('Root-cause hypothesis: from the friction note, else from the stall pattern.'),
  recommended_action: z.string().nullable(),
  hypothesis_source: z.enum(['note', 'stall_pattern']).nullable(),
  note: z.string().nullable().describe('The latest friction note of this ticket (state-dir relative).'),
  timeline: z.array(z.string()).describe('For an escalated ticket: the command that draws its wave (`dispatch-watchdog timeline`), one per epic.'),
});

export const FrictionEpic = z.object({
  epic_id: z.string(),
  tickets: z.number().int().describe('Tickets with at least one stall, redispatch, cancel, escalation or failed action.'),
  stalls: z.number().int(),
  redispatches: z.number().int(),
  escalations: z.number().int(),
  mass_stalls: z.number().int(),
  input_errors: z.number().int(),
});

export const FrictionReviewSchema = z
  .object({
    since: IsoTimestamp.describe('Start of the period (inclusive).'),
    until: IsoTimestamp.describe('When the review was made.'),
    epic_id: z.string().nullable().describe('The --epic-id filter, or null for every epic.'),
    days_read: z.array(z.string()).describe('The dispatch-log days read (only those the period covers).'),
    tickets: z.array(FrictionTicket).describe('Ranked: escalations first, then failed actions, then by stalls and redispatches.'),
    epics: z.array(FrictionEpic),
    mass_stalls: z.number().int(),
    input_errors: z.number().int(),
    orphaned_actions: z.number().int(),
    nudges: z.object({
      sent: z.number().int().describe('nudge_sent lines: agents between turns nudged once before a reconcile request.'),
      worked: z
        .number()
        .int()
        .describe(
          'Nudged agents seen making progress again (a healthy line), or whose row ended (the nudge answered `terminal` or `resolved`), before a reconcile request or a stall of them.',
        ),
    }),
    notes: z.array(z.string()).describe('Friction notes dated in the period (state-dir relative).'),
    lines: z.object({
      corrupt: z.number().int().describe('Lines that are not JSON.'),
      corrupt_first: FirstLine,
      invalid: z.number().int().describe('Our events with a field that does not match the schema.'),
      invalid_first: FirstLine,
      foreign: z.number().int().describe('Valid JSON that is not one of our events (another tool, a newer version).'),
      foreign_first: FirstLine,
    }),
  })
  .meta({ title: 'FrictionReview', description: 'The output of `dispatch-watchdog friction --json`.' });
export type FrictionReview = z.output<typeof FrictionReviewSchema>;
export type FrictionTicketEntry = z.output<typeof FrictionTicket>;
