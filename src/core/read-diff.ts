// Two reads of the state file compared (DESIGN §3 "Reading under a live writer"): which in-flight
// rows vanished or lost fields, and the activity a torn row must not lose. Pure.
import type { Task, Wave } from '../contracts/state-file.js';
import { tasksById, withTasks } from './wave-index.js';

export interface RowLoss {
  /** In-flight task ids of the earlier read that the later read does not list. */
  vanished: string[];
  /** In-flight rows still listed whose fields (keys as written) went missing. */
  fieldsLost: { task_id: string; fields: string[] }[];
}

/** Rows of the state file: not our own replacements, nor a replacement asked for and never started (no row). */
const isRow = (t: Task) => !t.isOwnReplacement && !t.unansweredRequest;
const inFlight = (w: Wave) => w.tasks.filter((t) => t.statusClass === 'in_flight' && isRow(t));

/** What an in-flight row of `before` lost in `after`. */
export function compareReads(before: Wave, after: Wave): RowLoss {
  // The same wave (a steady check): every row is there with every field.
  if (before === after) return { vanished: [], fieldsLost: [] };
  // By row, not by instance: a reused row that now carries the replacement (t1-r1 in row t1) is not lost.
  const rowOf = (t: Task) => t.rowTaskId ?? t.taskId;
  const now = new Map(after.tasks.filter(isRow).map((t) => [rowOf(t), t]));
  const loss: RowLoss = { vanished: [], fieldsLost: [] };
  // A new wave replaces the rows of the last one: nothing was lost.
  if (before.waveId !== undefined && after.waveId !== undefined && before.waveId !== after.waveId) return loss;
  for (const t of inFlight(before)) {
    const later = now.get(rowOf(t));
    if (!later) {
      loss.vanished.push(rowOf(t));
      continue;
    }
    // The same row as parsed (the state file did not change since): nothing can be missing.
    if (later.raw === t.raw) continue;
    const kept = new Set(Object.keys(later.raw ?? {}).filter((k) => later.raw![k] != null));
    const fields = Object.keys(t.raw ?? {}).filter((k) => t.raw![k] != null && !kept.has(k));
    if (fields.length > 0) loss.fieldsLost.push({ task_id: rowOf(t), fields: fields.sort() });
  }
  loss.vanished.sort();
  return loss;
}

export const hasLoss = (l: RowLoss) => l.vanished.length > 0 || l.fieldsLost.length > 0;

/** Per row as read: the task last made from it with carried times. */
const carried = new WeakMap<Task, Task>();

/**
 * Per wave as read: the wave carried from it, and from which judged wave. A steady check asks again
 * with the same two (the state file unchanged, the last judged wave derived from it) and visited
 * every row for the same answer: 5 ms a check at 10,000 agents, timed in the real loop.
 */
const carriedWave = new WeakMap<Wave, { before: Wave; out: Wave }>();

/** A row may not lose the activity an earlier read of the same attempt showed: never taken as never started. */
export function carryActivityForward(before: Wave | undefined, wave: Wave): Wave {
  // From itself nothing is carried (a steady check judges the wave it judged last).
  if (!before || before === wave) return wave;
  const last = carriedWave.get(wave);
  if (last?.before === before) return last.out;
  const old = tasksById(before.tasks);
  const tasks = wave.tasks.map((t): Task => {
    const p = old.get(t.taskId);
    if (!p || t.statusClass !== 'in_flight' || p.statusClass !== 'in_flight') return t;
    // A row that lost its own dispatched_at is the same attempt; one with a new one is a new attempt.
    const hasLostStart = t.raw?.dispatched_at == null && p.raw?.dispatched_at != null;
    if (!hasLostStart && p.dispatchedAtMs !== t.dispatchedAtMs) return t;
    const dispatchedAtMs = hasLostStart ? p.dispatchedAtMs : t.dispatchedAtMs;
    const lastActivityMs = Math.max(t.lastActivityMs ?? -Infinity, p.lastActivityMs ?? -Infinity);
    if (dispatchedAtMs === t.dispatchedAtMs && lastActivityMs === (t.lastActivityMs ?? -Infinity)) return t;
    // The same row carrying the same times gives the same task object (a steady check tells an unchanged task by identity).
    const hit = carried.get(t);
    if (hit && hit.dispatchedAtMs === dispatchedAtMs && (hit.lastActivityMs ?? -Infinity) === lastActivityMs) return hit;
    const out = { ...t, dispatchedAtMs, lastActivityMs: Number.isFinite(lastActivityMs) ? lastActivityMs : undefined };
    carried.set(t, out);
    return out;
  });
  const out = withTasks(wave, tasks);
  carriedWave.set(wave, { before, out });
  return out;
}

/** Equality of JSON-like values (what the state file parses into: plain objects, arrays, primitives). */
function isSameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k) || !isSameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * `after` with each task equal to the same task of `before` replaced by that very object: a
 * rewrite of the state file that left a row as it was leaves its task as it was, so a steady
 * check tells it unchanged by identity (and does not observe it again).
 */
export function keepUnchangedRows(before: Wave, after: Wave): Wave {
  const old = new Map(before.tasks.map((t) => [t.taskId, t]));
  let kept = 0;
  const tasks = after.tasks.map((t) => {
    const p = old.get(t.taskId);
    if (p === undefined || !isSameData(p, t)) return t;
    kept++;
    return p;
  });
  return kept === 0 ? after : { ...after, tasks };
}
