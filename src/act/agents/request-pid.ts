// The pid a request names (issue 36 item 5): an orchestrator told to stop "the agent" may `kill` it
// literally, so a request names a pid only when it is provably the stalled agent — alive, not pid 1,
// not the watchdog nor any of its ancestors (the lead or shell that runs it), and the very process
// recorded for it or one started with its dispatch. Otherwise the pid is left out and the request
// says why (`pid_withheld`).
import { ancestry } from '../../sys/proc-identity.js';
import type { ProcessIdentity } from '../../sys/proc-identity.js';
import type { Task } from '../../contracts/state-file.js';
import { DEFAULT_START_TOLERANCE_MS, verifyTarget } from './verify-target.js';

/** Why `pid` must not be named as the agent of `task`, or undefined when it provably is. */
export async function whyPidWithheld(pid: number, task: Task, expected?: ProcessIdentity, ancestors?: readonly number[]): Promise<string | undefined> {
  if (pid <= 1) return `pid ${pid} is not an agent (pid 1 is init; 0 and below name process groups)`;
  const mine = ancestors ?? (await ancestry());
  if (pid === process.pid) return `pid ${pid} is this watchdog itself, not task ${task.taskId}'s agent`;
  if (mine.includes(pid)) return `pid ${pid} is an ancestor of the watchdog (the lead, or the shell that runs it), not task ${task.taskId}'s agent`;
  const v = await verifyTarget(
    pid,
    { expected, dispatchedAtMs: task.dispatchedAtMs, isWaveDispatch: task.raw !== undefined && !task.raw.dispatched_at },
    DEFAULT_START_TOLERANCE_MS,
  );
  switch (v.kind) {
    case 'match':
      return undefined;
    case 'gone':
      return `pid ${pid} has exited: there is no process of task ${task.taskId} to stop (a later process may reuse the number)`;
    default:
      return `pid ${pid} is not provably task ${task.taskId}'s agent: ${v.detail}`;
  }
}

/** `request` with its pid kept only when it is provably the agent; otherwise without it, saying why. */
export async function checkRequestPid<R extends { pid?: number; pid_withheld?: string }>(
  request: R,
  task: Task,
  expected?: ProcessIdentity,
  ancestors?: readonly number[],
): Promise<R> {
  if (request.pid === undefined) return request;
  const why = await whyPidWithheld(request.pid, task, expected, ancestors);
  if (why === undefined) return request;
  const { pid: _pid, ...rest } = request;
  return { ...rest, pid_withheld: why } as R;
}
