// The seed's third stall criterion, "no output growth", for orchestrators that record output in
// the row (DESIGN §5): a change of a row's `last_output` between two checks is progress, seen at
// the check that saw it change. The first sight of a text proves nothing either way: a stall of
// such a row is acted on only once the text was watched for a check interval. Pure.
import type { Task, Wave } from '../contracts/state-file.js';
import { withTasks } from './wave-index.js';

/**
 * Per task id: the last_output last seen and when it was last seen to change; and the row last
 * given that time, with the task made from it (the same object while the row is the same, so a
 * steady check can tell an unchanged task by identity).
 */
export type RowOutputs = Map<string, { text: string; changedAtMs?: number; firstSeenMs?: number; row?: Task; task?: Task }>;

/** Remember each in-flight row's last_output; a row whose text changed counts as active then. */
export function applyRowOutputProgress(wave: Wave, seen: RowOutputs, nowMs: number): Wave {
  const tasks = wave.tasks.map((t): Task => {
    if (t.statusClass !== 'in_flight' || t.lastOutput === undefined) return t;
    let before = seen.get(t.taskId);
    if (before === undefined || before.text !== t.lastOutput) {
      before = { text: t.lastOutput, changedAtMs: before === undefined ? undefined : nowMs, firstSeenMs: before?.firstSeenMs ?? nowMs };
      seen.set(t.taskId, before);
    }
    const { changedAtMs } = before;
    if (changedAtMs === undefined || (t.lastActivityMs !== undefined && t.lastActivityMs >= changedAtMs)) return t;
    if (before.row !== t || before.task === undefined) {
      before.row = t;
      before.task = { ...t, lastActivityMs: changedAtMs };
    }
    return before.task;
  });
  return withTasks(wave, tasks);
}

/**
 * Rows (by row task id) whose last_output was first seen less than `watchMs` ago and never seen to
 * change: whether it grows is not known yet, so no action on them (an output that changes every
 * few seconds was redispatched at the first check, then healthy again).
 */
export function rowsWithUnwatchedOutput(wave: Wave, seen: RowOutputs, nowMs: number, watchMs: number): Set<string> {
  const out = new Set<string>();
  for (const t of wave.tasks) {
    const s = t.statusClass === 'in_flight' && t.lastOutput !== undefined ? seen.get(t.taskId) : undefined;
    if (s && s.changedAtMs === undefined && s.firstSeenMs !== undefined && nowMs - s.firstSeenMs < watchMs) out.add(t.rowTaskId ?? t.taskId);
  }
  return out;
}
