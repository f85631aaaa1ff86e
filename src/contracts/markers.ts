// The marker files the process and command adapters keep per idempotency key (docs/recovery.md): each
// is written before its side effect and completed after, so a crash in between reads as "cannot
// tell" (an orphan), never as "do it again" — except where evidence tells (a launch's spawn token,
// act/agents/process-launch.ts). Pure.
import * as z from 'zod';
import { IsoTimestamp } from './time.js';
import { AdapterOpSchema } from './vocabulary.js';

/** `epics/<epic>/launches/<key>.redispatch.json` (process adapter). */
export const LaunchRecordSchema = z
  .looseObject({
    key: z.string(),
    status: z
      .enum(['launching', 'launched', 'failed'])
      .describe('launching: written before the spawn; launched: completed with the pid after it; failed: the spawn failed (safe to try again).'),
    recovery_task_id: z.string(),
    argv_template: z.array(z.string()),
    prompt_file: z.string().describe('State-dir relative.'),
    log_file: z.string().describe("State-dir relative: the agent's stdout and stderr."),
    started_at: IsoTimestamp,
    pid: z.number().int().optional(),
    start_ticks: z.number().int().optional(),
    boot_id: z.string().optional(),
    error: z.string().optional().describe('failed: the spawn error code.'),
    cwd: z.string().optional().describe("The working directory the replacement was started in (the stalled agent's own); absent: the watchdog's."),
    spawn_token: z
      .string()
      .optional()
      .describe(
        'launching: the file name (beside the marker) of the spawn token, created before the spawn and removed by the replacement as it starts: still there proves nothing was spawned; gone proves it started.',
      ),
    exited_before_recorded: z
      .boolean()
      .optional()
      .describe('launched: a restart found the spawn token gone and no process left: the replacement started and exited before its pid was recorded.'),
  })
  .meta({ title: 'LaunchRecord', description: "epics/<epic_id>/launches/<key>.redispatch.json: the process adapter's marker of one launch." });
export type LaunchRecord = z.output<typeof LaunchRecordSchema>;

/** `epics/<epic>/commands/<key>.<op>.json` (command adapter). */
export const CommandRecordSchema = z
  .looseObject({
    key: z.string(),
    op: AdapterOpSchema,
    status: z
      .enum(['running', 'done', 'failed', 'unknown'])
      .describe('running: written before the command; done: exit 0; failed: another exit code; unknown: timed out or killed.'),
    argv_template: z.array(z.string()),
    started_at: IsoTimestamp,
    exit_code: z.number().int().nullable().optional(),
    signal: z.string().nullable().optional(),
    output_tail: z.string().optional().describe("The last 500 characters of the command's output."),
  })
  .meta({ title: 'CommandRecord', description: "epics/<epic_id>/commands/<key>.<op>.json: the command adapter's marker of one command." });
export type CommandRecord = z.output<typeof CommandRecordSchema>;

/** `epics/<epic>/notify/<key>.json`: one webhook notification's marker (docs/fleet.md "Notifications"). */
export const NotifyRecordSchema = z
  .looseObject({
    key: z.string(),
    status: z
      .enum(['sending', 'retrying', 'sent', 'failed'])
      .describe(
        'sending: written before each POST; retrying: an attempt failed and the next waits (no POST in flight: a restart sends it); sent: after a 2xx; failed: given up on (retries exhausted, a 4xx or a redirect).',
      ),
    started_at: IsoTimestamp,
    attempts: z.number().int().min(0),
    http_status: z.number().int().optional().describe("The last answer's HTTP status."),
    error: z.string().optional().describe('failed: why, without the webhook URL.'),
  })
  .meta({ title: 'NotifyRecord', description: 'epics/<epic_id>/notify/<key>.json: the marker of one webhook notification.' });
export type NotifyRecord = z.output<typeof NotifyRecordSchema>;

/** A marker file's text → its record, or undefined when it is torn or not ours. */
export function parseMarker<S extends z.ZodType>(schema: S, text: string): z.output<S> | undefined {
  try {
    const r = schema.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}
