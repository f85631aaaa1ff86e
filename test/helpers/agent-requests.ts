// Cancel and redispatch requests as the executor builds them, over a fresh state dir.
import type { CancelRequest, RedispatchRequest } from '../../src/act/agents/adapter.js';
import { buildCheckpoint, renderRecoveryPrompt, writeCheckpoint } from '../../src/act/recovery/checkpoint.js';
import type { Task } from '../../src/contracts/state-file.js';
import { StatePaths } from '../../src/files/paths.js';
import { makeTask } from './builders.js';

export const EPIC = 'PROJ-1000';

/** A cancel request for `task` under `stateDir`, keyed `<epic>:<task>:<action>`. */
export function cancelRequest(stateDir: string, task: Partial<Task> = {}, action = 'cancel'): CancelRequest {
  const t = makeTask(task);
  return { epicId: EPIC, key: `${EPIC}:${t.taskId}:${action}`, task: t, paths: new StatePaths(stateDir), reason: 'test stall' };
}

/** A redispatch request with a real checkpoint written and its prompt rendered. */
export async function redispatchRequest(stateDir: string, task: Partial<Task> = {}, attempt = 1): Promise<RedispatchRequest> {
  const base = cancelRequest(stateDir, task, 'redispatch');
  const cp = buildCheckpoint({
    epicId: EPIC,
    task: base.task,
    attempt,
    stallReason: 'inactivity',
    idleSeconds: 145,
    nowMs: Date.parse('2026-04-02T10:05:00Z'),
    row: { remaining_work: ['Add the retry test', 'Update the changelog'], completed_items: ['Implement retry'] },
  });
  const { path: checkpointPath } = await writeCheckpoint(base.paths, cp);
  return { ...base, attempt, recoveryTaskId: cp.recovery_task_id, checkpointPath, prompt: renderRecoveryPrompt(cp, { checkpointPath }) };
}
