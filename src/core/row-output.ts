// The seed's third stall criterion, "no output growth", for orchestrators that record output in
// the row (DESIGN §5): a change of a row's `last_output` between two checks is progress, seen at
// the check that saw it change. The first sight of a text proves nothing either way (issue 33):
// a watching run counts the row active at that sight, so it is stalled only once the text held
// still for its whole window; no verdict before evidence. Pure.
import type { Task, Wave } from '../contracts/state-file.js';
import { withTasks } from './wave-index.js';

/**
 * Per task id: the last_output last seen, when it was first seen and when last seen to change; and
 * the row last given that time, with the task made from it (the same object while the row is the
 * same, so a steady check can tell an unchanged task by identity).
 */
export type RowOutputs = Map<string, { text: string; changedAtMs?: number; firstSeenMs?: number; row?: Task; task?: Task }>;

/**
 * Remember each in-flight row's last_output; a row whose text changed counts as active then.
 * With `isFirstSightActive` (every run that watches: the loop, `next`, `serve`), a text seen for
 * the first time counts as activity at that sight; `--once` has one sight only and judges by time.
 */
export function applyRowOutputProgress(wave: Wave, seen: RowOutputs, nowMs: number, isFirstSightActive = false): Wave {
  const tasks = wave.tasks.map((t): Task => {
    if (t.statusClass !== 'in_flight' || t.lastOutput === undefined) return t;
    let before = seen.get(t.taskId);
    if (before === undefined || before.text !== t.lastOutput) {
      before = { text: t.lastOutput, changedAtMs: before === undefined ? undefined : nowMs, firstSeenMs: before?.firstSeenMs ?? nowMs };
      seen.set(t.taskId, before);
    }
    const activeMs = before.changedAtMs ?? (isFirstSightActive ? before.firstSeenMs : undefined);
    if (activeMs === undefined || (t.lastActivityMs !== undefined && t.lastActivityMs >= activeMs)) return t;
    if (before.row !== t || before.task === undefined || before.task.lastActivityMs !== activeMs) {
      before.row = t;
      before.task = { ...t, lastActivityMs: activeMs };
    }
    return before.task;
  });
  return withTasks(wave, tasks);
}
