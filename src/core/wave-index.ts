// A wave that did not change stays the same object from one check to the next (issue 23): each
// stage that derives a wave returns its input when it changed no task, so what is built from a
// wave (its tasks by id, its agents' rows) is built once and looked up by identity after. Pure.
import type { Task, Wave } from '../contracts/state-file.js';

/** Per wave, the last wave derived from it with other tasks (see `withTasks`). */
const derivedOf = new WeakMap<Wave, Wave>();

const isSameTasks = (a: readonly Task[], b: readonly Task[]) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/**
 * `wave` itself when `tasks` are its own task objects in its order; else `wave` with `tasks`, the
 * same object as the last time `wave` was given these very tasks. A stage that derives tasks anew
 * every check (a row's last_output seen, activity carried) thus hands on an unchanged wave, and
 * what is built from it (tasks by id, the comparison of two reads) is not built again.
 */
export function withTasks(wave: Wave, tasks: Task[]): Wave {
  if (isSameTasks(tasks, wave.tasks)) return wave;
  const last = derivedOf.get(wave);
  if (last && isSameTasks(tasks, last.tasks)) return last;
  const out = { ...wave, tasks };
  derivedOf.set(wave, out);
  return out;
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
