// Recovery checkpoints: recovery task ids and the checkpoint content are pure (buildCheckpoint);
// writeCheckpoint creates the file exactly once, so the file is the step's marker.
import { promises as fs } from 'node:fs';
import { Document, Scalar } from 'yaml';
import type { Checkpoint, RecoveredSubagent } from '../../contracts/checkpoint.js';
import { recoveryTaskId } from '../../contracts/ids.js';
import { parseCheckpoint } from '../../contracts/checkpoint.js';
import { harnessOf } from '../../agents/harnesses.js';
import type { ParseResult } from '../../contracts/parse-yaml.js';
import type { Task } from '../../contracts/state-file.js';
import type { History } from '../../core/history-types.js';
import { msToIso } from '../../contracts/time.js';
import type { StallReason } from '../../contracts/vocabulary.js';
import { createFileExclusive } from '../../files/atomic-write.js';
import { checkpointRelPath, type StatePaths } from '../../files/paths.js';
import type { Observation } from '../../observe/parse/observation.js';
import type { MarkerState } from '../agents/adapter.js';
import { completedFromCalls, withoutDone, workItems } from './work-items.js';
import { redactSecrets } from '../../present/safe-text.js';

export { renderRecoveryPrompt } from './recovery-prompt.js';
export { recoveryTaskId };

/** What buildCheckpoint needs: the stalled task, its raw row (for keys such as `remaining_work`) and the evidence. */
export interface CheckpointInput {
  epicId: string;
  task: Task;
  /** The task row as written, unknown keys included: `completed_items`/`completed_work`, `remaining_work`/`remaining_items`/`todo`. */
  row?: Record<string, unknown>;
  observation?: Pick<Observation, 'lastTool' | 'lastOutput' | 'recentCalls'>;
  attempt: number;
  stallReason: StallReason;
  idleSeconds: number;
  nowMs: number;
  /** @defaultValue the checkpoint of attempt - 1 (state-dir relative), or null for attempt 1 */
  supersedes?: string | null;
  /** The checkpoint of attempt - 1: its work (and the original prompt) carry over when the replacement's row does not say. */
  previous?: Pick<Checkpoint, 'completed_work' | 'remaining_work' | 'original_prompt' | 'recovered_subagents'>;
  /** Where the stalled agent worked. */
  cwd?: string;
  /** The first prompt the stalled agent was given, read from its transcript (when the row does not carry it). */
  transcriptPrompt?: string;
  /** Subagents it waited on whose own rows were already recovered (`recoveredSubagents`). */
  recoveredSubagents?: readonly RecoveredSubagent[];
}

const LAST_OUTPUT_CHARS = 1000;
const COMPLETED_KEYS = ['completed_items', 'completed_work', 'completed_tasks'];
const REMAINING_KEYS = ['remaining_work', 'remaining_items', 'remaining_tasks', 'todo'];
/** Row keys an orchestrator writes the agent's task prompt under. */
const PROMPT_KEYS = ['original_prompt', 'prompt', 'task_prompt'];
/** Longest original prompt carried into a checkpoint (its head and tail are kept). */
export const ORIGINAL_PROMPT_MAX_CHARS = 8000;

/** The original task prompt: the row's, else the previous checkpoint's, else the transcript's first prompt; capped, secrets redacted. */
function originalPrompt(row: Record<string, unknown>, input: CheckpointInput): string | undefined {
  const own = PROMPT_KEYS.map((k) => row[k]).find((v): v is string => typeof v === 'string' && v.trim() !== '');
  const text = (own ?? input.previous?.original_prompt ?? input.transcriptPrompt)?.trim();
  if (!text) return undefined;
  const clean = redactSecrets(text);
  if (clean.length <= ORIGINAL_PROMPT_MAX_CHARS) return clean;
  const half = Math.floor((ORIGINAL_PROMPT_MAX_CHARS - 5) / 2);
  return `${clean.slice(0, half)}\n…\n${clean.slice(-half)}`;
}

/** State-dir relative path of a checkpoint, as written into `supersedes` and events. */
export { checkpointRelPath };

/** The checkpoint of one redispatch. Pure. */
export function buildCheckpoint(input: CheckpointInput): Checkpoint {
  const { task, row = {}, observation } = input;
  const tool = observation?.lastTool;
  const out = observation?.lastOutput ?? task.lastOutput;
  // Work carries over from checkpoint N to N+1: a replacement's row rarely repeats it.
  const prev = input.previous;
  const completed = workItems([
    prev?.completed_work ?? [],
    ...COMPLETED_KEYS.map((k) => row[k]),
    completedFromCalls(observation?.recentCalls ?? [], harnessOf(input.task)),
  ]);
  const ownRemaining = workItems(REMAINING_KEYS.map((k) => row[k]));
  // Done is done however it is written: "- [x] Add the retry test." leaves no "Add the retry test" to do.
  const remaining = withoutDone(ownRemaining.length > 0 ? ownRemaining : (prev?.remaining_work ?? []), completed);
  const prompt = originalPrompt(row, input);
  // They carry over too: a replacement that stalls again must not start them either.
  const subagents = [...(prev?.recovered_subagents ?? []), ...(input.recoveredSubagents ?? [])].filter(
    (x, i, all) => all.findIndex((y) => y.agent_id === x.agent_id) === i,
  );
  return {
    schema_version: '1',
    epic_id: input.epicId,
    ticket_id: task.ticketId,
    task_id: task.taskId,
    attempt: input.attempt,
    recovery_task_id: recoveryTaskId(task.taskId, input.attempt),
    created_at: msToIso(input.nowMs),
    stall_reason: input.stallReason,
    idle_seconds: Math.max(0, Math.round(input.idleSeconds)),
    completed_work: completed,
    remaining_work: remaining,
    last_tool: tool
      ? JSON.parse(JSON.stringify({ name: tool.name, input_summary: tool.inputSummary, command: tool.command, is_open: tool.isOpen, error: tool.error }))
      : task.lastToolName
        ? JSON.parse(JSON.stringify({ name: task.lastToolName, command: task.lastToolCommand, is_open: false }))
        : null,
    last_output: out ? (out.length > LAST_OUTPUT_CHARS ? '…' + out.slice(-LAST_OUTPUT_CHARS) : out) : null,
    supersedes: input.supersedes !== undefined ? input.supersedes : input.attempt > 1 ? checkpointRelPath(task.ticketId, input.attempt - 1) : null,
    ...(input.cwd ? { cwd: input.cwd } : {}),
    ...(prompt ? { original_prompt: prompt } : {}),
    ...(subagents.length > 0 ? { recovered_subagents: subagents } : {}),
  };
}

/**
 * The subagents in `agentIds` (those the stalled agent waits on) whose own rows this epic's
 * watchdog already redispatched or escalated, as a started action records them: a lead whose run
 * ended is deferred to its child's row, and recovered after it (core/assess.ts). Its replacement
 * must not start that child's ticket a second time. Pure.
 */
export function recoveredSubagents(history: Pick<History, 'actions'>, agentIds: readonly string[], selfTaskId: string): RecoveredSubagent[] {
  if (agentIds.length === 0) return [];
  const wanted = new Set(agentIds);
  const byAgent = new Map<string, RecoveredSubagent>();
  for (const { started: e } of history.actions.values()) {
    if ((e.action !== 'redispatch' && e.action !== 'escalate') || e.task_id === selfTaskId || !wanted.has(e.agent_id)) continue;
    byAgent.set(e.agent_id, { agent_id: e.agent_id, ticket_id: e.ticket_id, task_id: e.task_id, recovered_by: e.action });
  }
  return agentIds.flatMap((a) => byAgent.get(a) ?? []);
}

/** The checkpoint as YAML; `created_at` is quoted so YAML 1.1 readers (PyYAML…) keep it a string, not a date. */
export function renderCheckpointYaml(cp: Checkpoint): string {
  const doc = new Document(cp);
  const node = doc.get('created_at', true);
  if (node instanceof Scalar) node.type = Scalar.QUOTE_DOUBLE;
  return doc.toString({ lineWidth: 0 });
}

/** Create the checkpoint file once; `wasCreated` false means it already existed (and was left as is). */
export async function writeCheckpoint(paths: StatePaths, cp: Checkpoint): Promise<{ path: string; wasCreated: boolean }> {
  const file = paths.checkpoint(cp.ticket_id, cp.attempt);
  const wasCreated = await createFileExclusive(file, renderCheckpointYaml(cp));
  return { path: file, wasCreated };
}

/** The checkpoint as written (on a restart, render the prompt from this, not from a rebuilt one); undefined when absent. */
export async function readCheckpoint(paths: StatePaths, ticketId: string, attempt: number): Promise<ParseResult<Checkpoint> | undefined> {
  const file = paths.checkpoint(ticketId, attempt);
  try {
    return parseCheckpoint(await fs.readFile(file, 'utf8'), paths.relative(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** `done` when the checkpoint file exists. */
export async function checkpointMarker(paths: StatePaths, ticketId: string, attempt: number): Promise<MarkerState> {
  return fs.access(paths.checkpoint(ticketId, attempt)).then(
    () => 'done' as const,
    (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? 'absent' : 'unknown'),
  );
}
