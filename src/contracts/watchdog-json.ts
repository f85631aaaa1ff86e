// epics/<id>/watchdog.json, schema_version "1.1" (docs/state-files.md): the seed's fields keep their
// names and meaning; everything else is additive. Pure.
import * as z from 'zod';
import { OPEN_REQUEST_STATUSES } from './request.js';
import { IsoTimestamp } from './time.js';
import { RequestKindSchema } from './request.js';
import { ExemptionSchema as Exemption, StallReasonAsRead, VERDICT_KINDS, VerdictKindSchema, type VerdictKind } from './vocabulary.js';

/** One count per verdict kind in `summary`, so a new verdict is counted without another edit. */
const VERDICT_COUNTS = Object.fromEntries(VERDICT_KINDS.map((k) => [k, z.number().int()])) as Record<VerdictKind, z.ZodNumber>;

export const StallEntry = z.looseObject({
  task_id: z.string(),
  ticket_id: z.string(),
  last_activity: IsoTimestamp.nullable(),
  elapsed_seconds: z.number(),
  bash_timeout_exemption: z.boolean(),
  action_taken: z.string(),
  redispatch_attempt: z.number().int(),
  recovery_task_id: z.string().nullable(),
  effective_timeout_seconds: z.number(),
  exemptions: z.array(Exemption),
  stall_reason: StallReasonAsRead,
});

export const TaskEntry = z.looseObject({
  task_id: z.string(),
  row_task_id: z.string().optional().describe('The state-file row carrying this task instance, when the orchestrator reused a row for a replacement.'),
  ticket_id: z.string(),
  status: z.string(),
  verdict: VerdictKindSchema,
  idle_seconds: z.number().nullable(),
  effective_timeout_seconds: z.number(),
  exemptions: z.array(Exemption),
  last_tool: z.string().nullable(),
  sources: z.array(z.string()),
  reason: z.string(),
  agent_version: z
    .string()
    .optional()
    .describe(
      "The agent CLI's version, as its own records say (Claude Code transcripts' `version`, else its sessions/<pid>.json): which behaviour the rules expected.",
    ),
  unobserved_children: z
    .array(z.string())
    .optional()
    .describe('Subagents this task waits on that nothing can be seen of (no transcript found): its verdict is unknown, never acted on (docs/verdicts.md).'),
});

export const RequestEntry = z.looseObject({
  key: z.string(),
  kind: RequestKindSchema,
  task_id: z.string(),
  ticket_id: z.string(),
  recovery_task_id: z.string().optional(),
  status: z.enum(OPEN_REQUEST_STATUSES),
  answer_by: IsoTimestamp,
  path: z.string().describe('State-dir relative path of the request file.'),
});

export const WatchdogJsonSchema = z
  .looseObject({
    schema_version: z.literal('1.1'),
    epic_id: z.string(),
    check_timestamp: IsoTimestamp,
    stalls_detected: z.array(StallEntry),
    healthy_tasks: z.array(z.string()),
    blocked_tasks: z.array(z.string()),
    tasks: z.array(TaskEntry),
    requests: z.array(RequestEntry).optional().describe('Requests to the orchestrator still pending, or gone unanswered (docs/recovery.md).'),
    summary: z.looseObject({
      total_tasks: z.number().int(),
      ...VERDICT_COUNTS,
      redispatched: z.number().int(),
      cancelled: z.number().int(),
      escalated: z.number().int(),
      pending_requests: z.number().int().optional(),
      unanswered_requests: z.number().int().optional(),
    }),
    watchdog: z.looseObject({
      version: z.string(),
      pid: z.number().int(),
      run_id: z.string(),
      check_interval_seconds: z.number(),
      action: z.string(),
      timeout_seconds: z.number(),
      mass_stall: z.boolean().optional(),
      evaluated_at_override: z.boolean().optional(),
    }),
  })
  .meta({ title: 'WatchdogJson', description: 'epics/<epic_id>/watchdog.json: the latest check (docs/state-files.md).' });
export type WatchdogJson = z.output<typeof WatchdogJsonSchema>;

/**
 * watchdog.json as read (issue 33 item 5): schema_version "1.1" is the seed's document, so the
 * seed's keys are required and ours (`tasks`, `watchdog`, `requests`, the other summary counts,
 * a stall's window, exemptions and reason) are additive and optional. Our writer always writes
 * them (`WatchdogJsonSchema`); a document the seed's skill wrote has none, and reads as it is.
 */
export const WatchdogJsonReadSchema = WatchdogJsonSchema.extend({
  stalls_detected: z.array(StallEntry.partial({ effective_timeout_seconds: true, exemptions: true, stall_reason: true, last_activity: true })),
  tasks: z.array(TaskEntry).optional(),
  summary: z.looseObject({
    total_tasks: z.number().int(),
    healthy: z.number().int(),
    stalled: z.number().int(),
    blocked: z.number().int(),
    redispatched: z.number().int(),
  }),
  watchdog: WatchdogJsonSchema.shape.watchdog.optional(),
}).meta({
  title: 'WatchdogJson',
  description:
    "epics/<epic_id>/watchdog.json: the latest check (docs/state-files.md). The keys of the onex skill's document are required; ours are additive (always written by this watchdog, absent from a document the onex skill wrote).",
});

/** The marks of a document the seed's skill wrote: no window, action or interval recorded. */
export const SEED_WRITER = 'seed';

/**
 * Parse a watchdog.json as read and give it every key ours has: a seed-shaped document's tasks
 * come from its lists (stalled, healthy, blocked), its counts from its summary, and its `watchdog`
 * says it was written by the seed (`version: "seed"`, no window: 0). Throws the zod error.
 */
export function parseWatchdogJson(value: unknown): WatchdogJson {
  const full = WatchdogJsonSchema.safeParse(value);
  if (full.success) return full.data;
  const doc = WatchdogJsonReadSchema.parse(value);
  const stalled = doc.stalls_detected.map((s) => ({
    ...s,
    last_activity: s.last_activity ?? null,
    effective_timeout_seconds: s.effective_timeout_seconds ?? 0,
    exemptions: s.exemptions ?? (s.bash_timeout_exemption ? ['bash_long_timeout' as const] : []),
    stall_reason: s.stall_reason ?? 'inactivity',
  }));
  const seedTask = (taskId: string, ticketId: string, verdict: VerdictKind, idle: number | null, reason: string) => ({
    task_id: taskId,
    ticket_id: ticketId,
    status: verdict === 'blocked' ? 'blocked' : 'in_progress',
    verdict,
    idle_seconds: idle,
    effective_timeout_seconds: 0,
    exemptions: [],
    last_tool: null,
    sources: ['seed watchdog.json'],
    reason,
  });
  const tasks = doc.tasks ?? [
    ...stalled.map((s) =>
      seedTask(
        s.task_id,
        s.ticket_id,
        'stalled',
        s.elapsed_seconds,
        `stalled: idle ${s.elapsed_seconds}s, ${s.action_taken} (attempt ${s.redispatch_attempt})`,
      ),
    ),
    ...doc.healthy_tasks.map((id) => seedTask(id, '-', 'healthy', null, 'healthy (the onex skill records no idle time)')),
    ...doc.blocked_tasks.map((id) => seedTask(id, id, 'blocked', null, 'blocked')),
  ];
  const counts = Object.fromEntries(VERDICT_KINDS.map((k) => [k, 0])) as Record<VerdictKind, number>;
  return {
    ...doc,
    stalls_detected: stalled,
    tasks,
    summary: { ...counts, cancelled: 0, escalated: 0, ...doc.summary },
    watchdog: doc.watchdog ?? { version: SEED_WRITER, pid: 0, run_id: '', check_interval_seconds: 0, action: 'unknown', timeout_seconds: 0 },
  } as WatchdogJson;
}
