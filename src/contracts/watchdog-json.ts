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
