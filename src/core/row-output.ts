// The seed's third stall criterion, "no output growth", for orchestrators that record output in
// the row (DESIGN §5): a change of a row's `last_output` between two checks is progress, seen at
// the check that saw it change. The first sight of a text proves nothing. Pure.
import type { Task, Wave } from '../contracts/state-file.js';

/** Per task id: the last_output last seen and when it was last seen to change. */
export type RowOutputs = Map<string, { text: string; changedAtMs?: number }>;

/** Remember each in-flight row's last_output; a row whose text changed counts as active then. */
export function applyRowOutputProgress(wave: Wave, seen: RowOutputs, nowMs: number): Wave {
  const tasks = wave.tasks.map((t): Task => {
    if (t.statusClass !== 'in_flight' || t.lastOutput === undefined) return t;
    const before = seen.get(t.taskId);
    const changedAtMs = before === undefined ? undefined : before.text !== t.lastOutput ? nowMs : before.changedAtMs;
    seen.set(t.taskId, { text: t.lastOutput, changedAtMs });
    if (changedAtMs === undefined || (t.lastActivityMs !== undefined && t.lastActivityMs >= changedAtMs)) return t;
    return { ...t, lastActivityMs: changedAtMs };
  });
  return { ...wave, tasks };
}
