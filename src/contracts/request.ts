// epics/<epic>/requests/<key-as-filename>.<cancel|redispatch>.json: what the mailbox adapter asks the
// orchestrator to do (docs/recovery.md). An external contract: fields are only ever added. Pure.
import * as z from 'zod';
import { SafeId } from './ids.js';
import { IsoTimestamp } from './time.js';
import { AdapterOpSchema } from './vocabulary.js';

export const RequestSchema = z
  .looseObject({
    schema_version: z.literal('1'),
    kind: AdapterOpSchema.describe('cancel: stop the agent; redispatch: launch the replacement described below.'),
    key: z.string().describe('The idempotency key <epic>:<task_id>:<action>: act on each key once.'),
    epic_id: SafeId,
    task_id: SafeId.describe('The task to stop (cancel) or the one being replaced (redispatch).'),
    ticket_id: SafeId,
    agent_id: SafeId.optional(),
    agent_name: z.string().optional(),
    team_name: z.string().optional(),
    session_id: SafeId.optional(),
    pid: z.number().int().optional(),
    reason: z.string().optional().describe('Why, for humans.'),
    created_at: IsoTimestamp,
    redispatch_attempt: z.number().int().min(1).optional().describe('redispatch only: the attempt (1 = first replacement).'),
    recovery_task_id: SafeId.optional().describe('redispatch only: the task id of the replacement.'),
    checkpoint_path: z.string().optional().describe('redispatch only: absolute path of the recovery checkpoint.'),
    prompt: z.string().optional().describe('redispatch only: the full prompt of the replacement.'),
  })
  .meta({ title: 'Request', description: 'epics/<epic_id>/requests/<key>.<kind>.json: a cancel or redispatch for the orchestrator to carry out (mailbox adapter).' });
/** One request file, as the orchestrator reads it. */
export type Request = z.output<typeof RequestSchema>;
