// epics/<id>/watchdog.json, schema_version "1.1" (DESIGN §6): the seed's fields keep their
// names and meaning; everything else is additive. Pure.
import * as z from 'zod';
import { IsoTimestamp } from './time.js';

const Exemption = z.enum(['bash_long_timeout', 'rate_limit', 'ci_polling', 'open_tool_call']);

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
  stall_reason: z.string(),
});

export const TaskEntry = z.looseObject({
  task_id: z.string(),
  ticket_id: z.string(),
  status: z.string(),
  verdict: z.enum(['terminal', 'blocked', 'inconsistent', 'unknown', 'waiting_human', 'stalled', 'looping', 'healthy']),
  idle_seconds: z.number().nullable(),
  effective_timeout_seconds: z.number(),
  exemptions: z.array(Exemption),
  last_tool: z.string().nullable(),
  sources: z.array(z.string()),
  reason: z.string(),
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
    summary: z.looseObject({
      total_tasks: z.number().int(),
      healthy: z.number().int(),
      stalled: z.number().int(),
      blocked: z.number().int(),
      redispatched: z.number().int(),
      cancelled: z.number().int(),
      escalated: z.number().int(),
      inconsistent: z.number().int(),
      waiting_human: z.number().int(),
      looping: z.number().int(),
      unknown: z.number().int(),
      terminal: z.number().int(),
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
  .meta({ title: 'WatchdogJson', description: 'epics/<epic_id>/watchdog.json: the latest check (DESIGN §6).' });
export type WatchdogJson = z.output<typeof WatchdogJsonSchema>;
