// observe/history/<epic_id>.json: what the dispatch log's fold needs at start-up (DESIGN §2
// derived files, §12), so a start reads this summary plus the days after it instead of all
// history. Derived from the log, rebuilt from it when missing or stale; never the source of truth.
import * as z from 'zod';
import type { EventOf } from './events.js';
import { SafeId } from './ids.js';
import { ANSWER_HOWS, REQUEST_KINDS, REQUEST_STATUSES } from './request.js';
import { AttentionKindSchema, RECOVERY_MODES, VerdictKindSchema } from './vocabulary.js';

/** 4: stall reasons renamed (`api_error` → `api_gave_up`); a summary keeps events as written, so older ones are rebuilt from the log. 5: resume, nudge, reconcile and attention (last_recovery_mode, last_logged_at_ms, attention). 6: other epics' stalls and redispatches as references to their lines in the covered day files; own_stalls with the ticket. 7: the per-ticket parts (every epic's stalls and redispatches) as two texts of one line per ticket, parsed per ticket on use (a later start spent most of its time on their 100,000s of small arrays). */
export const HISTORY_SUMMARY_VERSION = 7;

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
  was: z.object({ agentId: z.string().optional(), sessionId: z.string().optional(), pid: z.number().int().optional(), status: z.string().optional() }),
  status: z.enum(REQUEST_STATUSES),
  how: z.enum(ANSWER_HOWS).optional(),
  answeredByTaskId: z.string().optional(),
  isLaunched: z.boolean().optional(),
});

const pairs = <V extends z.ZodType>(v: V) => z.array(z.tuple([z.string(), v]));

/** Where a folded line is: [index into covers, byte offset, byte length] (the summary vouches those bytes are unchanged). */
export const LineRefSchema = z.tuple([z.number().int().min(0), z.number().int().min(0), z.number().int().min(1)]);
export type LineRef = z.output<typeof LineRefSchema>;

/**
 * An event as the fold kept it. Checked by its name only: every event in a summary passed the
 * full event schema when it was folded from the log, and the summary is ours, written whole
 * (temp + rename); re-validating 100,000s of stall events would cost most of a start-up.
 */
const kept = <
  E extends
    | 'action_started'
    | 'agent_killed'
    | 'redispatch'
    | 'escalated_to_blocked'
    | 'action_failed'
    | 'stall_detected'
    | 'nudge_sent'
    | 'reconcile_requested'
    | 'notify_started'
    | 'notify_sent'
    | 'notify_failed',
>(
  event: E,
) =>
  z
    .custom<EventOf<E>>((v) => {
      const e = v as { event?: unknown; timestamp_utc?: unknown; epic_id?: unknown } | null;
      return typeof e === 'object' && e !== null && e.event === event && typeof e.timestamp_utc === 'string' && typeof e.epic_id === 'string';
    }, `expected a ${event} event`)
    .meta({ description: `A ${event} line as folded from the dispatch log (see dispatch-event.schema.json).` });

const isRef = (x: unknown) => Array.isArray(x) && x.length === 3 && x.every((n) => Number.isInteger(n) && n >= 0) && x[2] > 0;
const isStall = (x: unknown) =>
  typeof x === 'object' && x !== null && (x as { event?: unknown }).event === 'stall_detected' && typeof (x as { epic_id?: unknown }).epic_id === 'string';
/** A ticket's stalls: line references (LineRefSchema) or kept stall_detected events; checked by hand. */
const stallItems = z
  .custom<(LineRef | EventOf<'stall_detected'>)[]>(
    (v) => Array.isArray(v) && v.every((x) => isRef(x) || isStall(x)),
    'expected line references [cover, offset, length] or stall_detected events',
  )
  .meta({ description: 'Line references [cover index, byte offset, byte length] into the covered day files, or stall_detected events.' });

// The per-ticket texts: one line per ticket, "\n"-terminated, fields split by tabs (a ticket id is
// a SafeId: no tab, comma or newline); line references flat as "cover,offset,length,…".
const TICKET = '[A-Za-z0-9][A-Za-z0-9._@-]{0,127}';
const REFS = '\\d+,\\d+,[1-9]\\d*(?:,\\d+,\\d+,[1-9]\\d*)*';
const STALL_LINE = new RegExp(`^${TICKET}\\t(?:\\*|${REFS})$`);
const REDISPATCH_LINE = new RegExp(`^${TICKET}\\t\\d*\\t(?:${RECOVERY_MODES.join('|')})?\\t(?:${REFS})?\\t(?:${REFS})?$`);
/** Every line of `text` matches `line` (checked a line at a time: one pattern over megabytes backtracks). */
const linesText = (line: RegExp, what: string, description: string) =>
  z
    .custom<string>(
      (v) =>
        typeof v === 'string' &&
        (v === '' ||
          (v.endsWith('\n') &&
            v
              .slice(0, -1)
              .split('\n')
              .every((l) => line.test(l)))),
      `expected ${what}`,
    )
    .meta({ description });

export const HistorySummarySchema = z
  .object({
    version: z.literal(HISTORY_SUMMARY_VERSION),
    epic_id: SafeId,
    covers: z.array(Covered).describe('Day files folded in, oldest first; only the last may have grown since.'),
    diagnostics: z.object({ count: z.number().int().min(0), first: z.array(Diagnostic) }).describe('Corrupt lines met in the covered part.'),
    history: z.object({
      last_logged: pairs(VerdictKindSchema),
      last_logged_at_ms: pairs(z.number()),
      attention: z.array(
        z.object({
          key: z.string(),
          kind: AttentionKindSchema,
          taskId: z.string().optional(),
          ticketId: z.string().optional(),
          sinceMs: z.number().optional(),
          detail: z.string(),
        }),
      ),
      last_stall_reason: pairs(z.string())
        .default([])
        .describe('The stall_reason of the last stall_detected per task id (a summary without it predates the field).'),
      last_stall_action: pairs(z.string())
        .default([])
        .describe('The action_taken of the last stall_detected per task id (a summary without it predates the field).'),
      redispatches: linesText(
        REDISPATCH_LINE,
        'lines "ticket\\tcount\\tmode\\tcover,offset,length,…\\tcover,offset,length,…"',
        "Per ticket (all epics), one line: ticket, tab, completed redispatches folded so far (empty: none), tab, the last one's recovery mode (empty: none), tab, other epics' redispatch lines not folded yet as cover index, byte offset, byte length, … into the covered day files (counted when this epic first asks about the ticket; the last valid one gives the mode), tab, more such lines that only count (a redispatch folded after them decided the mode).",
      ),
      actions: z.array(
        z.object({
          key: z.string(),
          started: kept('action_started'),
          outcome: z
            .union([
              kept('agent_killed'),
              kept('redispatch'),
              kept('escalated_to_blocked'),
              kept('action_failed'),
              kept('nudge_sent'),
              kept('reconcile_requested'),
            ])
            .optional(),
          steps: z.array(z.string()),
        }),
      ),
      replacements: pairs(kept('redispatch')),
      stalls: linesText(
        STALL_LINE,
        'lines "ticket\\tcover,offset,length,…" or "ticket\\t*"',
        'Per ticket (all epics), in the fold\'s order, one line: ticket, tab, its stall_detected lines as cover index, byte offset, byte length, … into the covered day files (read back only when an escalation asks for that ticket), or "*" when some were folded from no file (then stall_events has them).',
      ),
      stall_events: pairs(stallItems).describe(
        'The tickets whose stalls line is "*": their stalls as line references or whole stall_detected events, in order.',
      ),
      own_stalls: z
        .array(z.tuple([z.string(), z.number(), z.string()]))
        .describe("This epic's stalls as [task id, epoch ms, ticket id], in log order (the circuit breaker's window)."),
      last_mass_stall: z.string().optional(),
      mass_stall_episode: z.object({ startMs: z.number(), isOpen: z.boolean(), isEscalated: z.boolean() }).optional(),
      tracker_pending: pairs(kept('escalated_to_blocked')),
      reported_orphans: z.array(z.string()),
      requests: z.array(RequestRecordJson),
      row_instance: pairs(z.string()),
      escalations: pairs(kept('escalated_to_blocked')),
      announced: z.object({ requests: z.array(z.string()), unanswered: z.array(z.string()), escalations: z.array(z.string()), attention: z.array(z.string()) }),
      // A summary without it predates notifications: its log had none to fold.
      notifications: z
        .array(z.object({ key: z.string(), started: kept('notify_started'), outcome: z.union([kept('notify_sent'), kept('notify_failed')]).optional() }))
        .default([]),
    }),
  })
  .meta({ title: 'HistorySummary', description: 'observe/history/<epic_id>.json: the dispatch log folded for one epic, for fast start-up (derived).' });
export type HistorySummary = z.output<typeof HistorySummarySchema>;
export type HistorySummaryInput = z.input<typeof HistorySummarySchema>;

/** "cover,offset,length,…" (a checked summary's text) → line references. */
export function refsFromText(text: string): LineRef[] {
  const n = text === '' ? [] : text.split(',');
  const out: LineRef[] = [];
  for (let i = 0; i + 2 < n.length; i += 3) out.push([+n[i]!, +n[i + 1]!, +n[i + 2]!]);
  return out;
}

export const refsToText = (refs: readonly LineRef[]): string => refs.map((r) => r.join(',')).join(',');
