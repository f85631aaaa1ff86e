// observe/history/<epic_id>.json: what the dispatch log's fold needs at start-up (DESIGN §2
// derived files, §12), so a start reads this summary plus the days after it instead of all
// history. Derived from the log, rebuilt from it when missing or stale; never the source of truth.
import * as z from 'zod';
import { ActionStarted, AgentKilled, ActionFailed, EscalatedToBlocked, Redispatch, StallDetected } from './events.js';
import { SafeId } from './ids.js';
import { ANSWER_HOWS, REQUEST_KINDS } from './request.js';
import { VerdictKindSchema } from './vocabulary.js';

export const HISTORY_SUMMARY_VERSION = 2;

/** How much of one day file the summary covers: its first `size` bytes, `lines` lines. */
const Covered = z.object({
  name: z.string().regex(/^\d{4}-\d{2}-\d{2}\.ndjson$/),
  dev: z.number(),
  ino: z.number(),
  size: z.number().int().min(0),
  lines: z.number().int().min(0),
});

const Diagnostic = z.object({ file: z.string(), line: z.number().int().min(1), message: z.string() });

/** A request's lifecycle as core/history.ts folds it (RequestRecord). */
const RequestRecordJson = z.object({
  key: z.string(),
  kind: z.enum(REQUEST_KINDS),
  taskId: z.string(),
  rowTaskId: z.string(),
  ticketId: z.string(),
  recoveryTaskId: z.string().optional(),
  attempt: z.number().int(),
  createdAtMs: z.number(),
  answerByMs: z.number(),
  path: z.string(),
  was: z.object({ agentId: z.string().optional(), sessionId: z.string().optional(), pid: z.number().int().optional() }),
  status: z.enum(['pending', 'done', 'unanswered']),
  how: z.enum(ANSWER_HOWS).optional(),
  answeredByTaskId: z.string().optional(),
});

const pairs = <V extends z.ZodType>(v: V) => z.array(z.tuple([z.string(), v]));

export const HistorySummarySchema = z
  .object({
    version: z.literal(HISTORY_SUMMARY_VERSION),
    epic_id: SafeId,
    covers: z.array(Covered).describe('Day files folded in, oldest first; only the last may have grown since.'),
    diagnostics: z.object({ count: z.number().int().min(0), first: z.array(Diagnostic) }).describe('Corrupt lines met in the covered part.'),
    history: z.object({
      last_logged: pairs(VerdictKindSchema),
      redispatch_count: pairs(z.number().int().min(0)),
      actions: z.array(
        z.object({
          key: z.string(),
          started: ActionStarted,
          outcome: z.discriminatedUnion('event', [AgentKilled, Redispatch, EscalatedToBlocked, ActionFailed]).optional(),
          steps: z.array(z.string()),
        }),
      ),
      replacements: pairs(Redispatch),
      stalls: pairs(z.array(StallDetected)),
      last_mass_stall: z.string().optional(),
      tracker_pending: pairs(EscalatedToBlocked),
      reported_orphans: z.array(z.string()),
      requests: z.array(RequestRecordJson),
      row_instance: pairs(z.string()),
      escalations: pairs(EscalatedToBlocked),
      announced: z.object({ requests: z.array(z.string()), unanswered: z.array(z.string()), escalations: z.array(z.string()) }),
    }),
  })
  .meta({ title: 'HistorySummary', description: 'observe/history/<epic_id>.json: the dispatch log folded for one epic, for fast start-up (derived; DESIGN §2, §12).' });
export type HistorySummary = z.output<typeof HistorySummarySchema>;
export type HistorySummaryInput = z.input<typeof HistorySummarySchema>;
