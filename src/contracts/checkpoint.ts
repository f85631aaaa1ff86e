// pipeline_checkpoints/<ticket>/recovery-<attempt>.yaml: what a replacement agent needs to resume a
// stalled ticket with only the remaining work (docs/recovery.md). Written once by the watchdog. Pure.
import * as z from 'zod';
import { SafeId } from './ids.js';
import { parseYaml, type ParseResult } from './parse-yaml.js';
import { IsoTimestamp } from './time.js';
import { StallReasonAsRead } from './vocabulary.js';

const LastTool = z.looseObject({
  name: z.string(),
  input_summary: z.string().optional(),
  command: z.string().optional().describe('Bash command, shortened.'),
  is_open: z.boolean().describe('No result had arrived when the agent stalled.'),
  error: z.string().optional().describe('The result was an error: its text, shortened.'),
});

/** A subagent with a row of its own that the watchdog recovered before the agent that dispatched it. */
const RecoveredSubagent = z.looseObject({
  agent_id: z.string().describe("The subagent's id, as its dispatcher's transcript names it."),
  ticket_id: SafeId.describe('The ticket of its own row.'),
  task_id: SafeId.describe('Its own row.'),
  recovered_by: z
    .enum(['redispatch', 'escalate'])
    .optional()
    .describe('How its row was recovered: redispatched (another agent has the ticket) or escalated (the ticket waits on a person).'),
});

/** One recovery checkpoint. Unknown keys are kept for forward compatibility. */
export const CheckpointSchema = z
  .looseObject({
    schema_version: z.literal('1'),
    epic_id: SafeId,
    ticket_id: SafeId,
    task_id: SafeId.describe('The stalled task this checkpoint replaces.'),
    attempt: z.number().int().min(1).describe('Redispatch attempt: 1 for the first replacement.'),
    recovery_task_id: SafeId.describe('The replacement task id: first task id + "-r<attempt>".'),
    created_at: IsoTimestamp,
    stall_reason: StallReasonAsRead,
    idle_seconds: z.number().min(0),
    completed_work: z.array(z.string()).describe('What the evidence shows is done: do not redo it.'),
    remaining_work: z.array(z.string()).describe('What is left; empty means the evidence does not say.'),
    last_tool: LastTool.nullable(),
    last_output: z.string().nullable().describe('The end of the last text the agent wrote (excerpt).'),
    supersedes: z.string().nullable().describe('The previous checkpoint of this ticket (state-dir relative), or null.'),
    cwd: z
      .string()
      .optional()
      .describe(
        "Where the stalled agent worked (its transcript's first cwd, where the session started): start the replacement there (with a worktree per ticket, that checkout). Absent when no transcript said.",
      ),
    original_prompt: z
      .string()
      .optional()
      .describe(
        "The task prompt the first agent was given (the row's original_prompt/prompt/task_prompt, else its transcript's first prompt), carried from checkpoint to checkpoint; absent when unknown.",
      ),
    recovered_subagents: z
      .array(RecoveredSubagent)
      .optional()
      .describe(
        'Subagents the stalled agent had dispatched and was waiting on, whose own rows the watchdog already recovered (redispatched or escalated): their tickets have agents of their own, and the replacement must not dispatch them again or redo their work. Absent when none.',
      ),
  })
  .meta({ title: 'RecoveryCheckpoint', description: 'pipeline_checkpoints/<ticket>/recovery-<attempt>.yaml (docs/recovery.md).' });
export type Checkpoint = z.output<typeof CheckpointSchema>;
/** One entry of a checkpoint's `recovered_subagents`. */
export type RecoveredSubagent = z.output<typeof RecoveredSubagent>;

/** Parse the text of a checkpoint file. */
export function parseCheckpoint(text: string, fileName: string): ParseResult<Checkpoint> {
  return parseYaml(text, CheckpointSchema, { file: fileName, typeHint: 'The checkpoint was changed by hand or by another tool; restore it or remove it.' });
}
