// A wave that did not change stays the same object from one check to the next (issue 23): each
// stage that derives a wave returns its input when it changed no task, so what is built from a
// wave (its tasks by id, its agents' rows) is built once and looked up by identity after. Pure.
import type { Task, Wave } from '../contracts/state-file.js';

/** `wave` itself when `tasks` are its own task objects in its order; else `wave` with `tasks`. */
export function withTasks(wave: Wave, tasks: Task[]): Wave {
  if (tasks.length === wave.tasks.length) {
    let i = 0;
    while (i < tasks.length && tasks[i] === wave.tasks[i]) i++;
    if (i === tasks.length) return wave;
  }
  return { ...wave, tasks };
}

// Keyed by the tasks array: a wave's tasks are never changed once the wave is built.
const byIdOf = new WeakMap<readonly Task[], ReadonlyMap<string, Task>>();
const agentRowsOf = new WeakMap<readonly Task[], ReadonlyMap<string, string>>();

/** The tasks by task id (the last of a repeated id, as `new Map` would keep it). */
export function tasksById(tasks: readonly Task[]): ReadonlyMap<string, Task> {
  let m = byIdOf.get(tasks);
  if (!m) byIdOf.set(tasks, (m = new Map(tasks.map((t) => [t.taskId, t]))));
  return m;
}

/** Agents (subagent ids) with an in-flight row of their own, to that row's task id. */
export function agentRows(tasks: readonly Task[]): ReadonlyMap<string, string> {
  let m = agentRowsOf.get(tasks);
  if (!m) {
    const rows = new Map<string, string>();
    for (const t of tasks) if (t.statusClass === 'in_flight' && t.agentId) rows.set(t.agentId, t.taskId);
    agentRowsOf.set(tasks, (m = rows));
  }
  return m;
}
