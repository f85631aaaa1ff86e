// Which rows are Codex's: `agent: codex` on the row (DESIGN §15; default claude-code). Pure.
import type { Task } from '../../contracts/state-file.js';

/** The row names Codex as its agent CLI (the normalized field, or the row as written). */
export const isCodexRow = (task: Pick<Task, 'agent' | 'raw'>): boolean => task.agent === 'codex' || task.raw?.agent === 'codex';

/** A Codex thread id (a UUID; v7 in 0.171.0): how a row's `agent_id` names a subagent's thread. */
const THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The thread a Codex row is judged on: a subagent's (`agent_id`, a thread id other than its
 * `session_id`: Codex's hooks name a child by the lead's session and the child's agent id), else
 * its own (`session_id`, else `stdoutThread`, the thread.started of its --json stdout).
 */
export function threadOfRow(task: Pick<Task, 'agentId' | 'sessionId'>, stdoutThread?: string): string | undefined {
  return task.agentId !== undefined && task.agentId !== task.sessionId && THREAD_ID.test(task.agentId) ? task.agentId : (task.sessionId ?? stdoutThread);
}
