// A row set never shrinks, and a row never regresses, on trust (DESIGN §3 "Reading under a live
// writer"): against the last trusted read, a row that vanished, went from terminal back to not
// terminal, or lost fields is held as it was trusted until reads spread over `confirmMs` of checks
// keep saying so. Until then it blocks the end of the wave and every action on it. Pure.
import { normalizeTask, type Task, type TaskRow, type Wave } from '../contracts/state-file.js';
import type { RowLoss } from './read-diff.js';
import { tasksById } from './wave-index.js';

/** Row id → the check time its suspicion was first seen (kept between checks). */
export type Suspects = ReadonlyMap<string, number>;

export interface GuardedRead {
  /** The read with every unconfirmed regression replaced by the row as last trusted. */
  wave: Wave;
  /** Task ids held as last trusted: no action on them, and the wave does not end. */
  held: Set<string>;
  /** What the held rows lost in this read (reported, unconfirmed). */
  heldLoss: RowLoss;
  /** The suspicions still open after this read. */
  suspects: Map<string, number>;
}

/** Fields of `before` (as written, non-null) that `after` no longer has. */
function lostFields(before: Task, after: Task): string[] {
  if (after.raw === before.raw) return [];
  const kept = new Set(Object.keys(after.raw ?? {}).filter((k) => after.raw![k] != null));
  return Object.keys(before.raw ?? {})
    .filter((k) => before.raw![k] != null && !kept.has(k))
    .sort();
}

/** A new attempt in the same row: its dispatched_at moved (both written). Its old fields may go. */
const isNewAttempt = (before: Task, after: Task) =>
  before.raw?.dispatched_at != null && after.raw?.dispatched_at != null && before.dispatchedAtMs !== after.dispatchedAtMs;

/** Why `after` is not to be trusted over `before` (undefined: it is). */
function regression(before: Task, after: Task | undefined): { vanished: true } | { fields: string[]; isReopened?: true } | undefined {
  if (!after) return before.statusClass === 'in_flight' ? { vanished: true } : undefined;
  if (before.statusClass === 'terminal' && after.statusClass !== 'terminal') {
    const fields = lostFields(before, after);
    return { fields: fields.length > 0 ? fields : ['status'], isReopened: true };
  }
  if (before.statusClass !== 'in_flight' || after.statusClass !== 'in_flight' || isNewAttempt(before, after)) return undefined;
  const fields = lostFields(before, after);
  return fields.length > 0 ? { fields } : undefined;
}

/** The later row with every field it lost taken from the earlier one: newer values count, nothing is lost. */
function mergeRow(before: Task, after: Task, waveDispatchedAtMs: number | undefined): Task {
  const row: Record<string, unknown> = { ...after.raw };
  for (const [k, v] of Object.entries(before.raw ?? {})) if (v != null && row[k] == null) row[k] = v;
  return normalizeTask(row as TaskRow, waveDispatchedAtMs);
}

/**
 * Guard one read (as parsed, before any overlay) against the last trusted one. With no trusted
 * read there is nothing to regress from: the caller's first read waits for the file to rest.
 */
export function guardRows(trusted: Wave | undefined, read: Wave, suspects: Suspects, nowMs: number, confirmMs: number): GuardedRead {
  const none: GuardedRead = { wave: read, held: new Set(), heldLoss: { vanished: [], fieldsLost: [] }, suspects: new Map() };
  // Nothing to regress from, or the very read trusted last (a steady check: the file did not change).
  if (!trusted || trusted === read) return none;
  // A new wave replaces the rows of the last one: nothing regressed.
  if (trusted.waveId !== undefined && read.waveId !== undefined && trusted.waveId !== read.waveId) return none;
  const now = tasksById(read.tasks);
  const out: GuardedRead = { ...none, suspects: new Map() };
  const replace = new Map<string, Task>();
  const keepVanished: Task[] = [];
  for (const before of trusted.tasks) {
    const after = now.get(before.taskId);
    const why = regression(before, after);
    if (!why) continue;
    const sinceMs = suspects.get(before.taskId) ?? nowMs;
    // Confirmed by reads spread over the longer settle: the read is trusted as it is.
    if (nowMs - sinceMs >= confirmMs) continue;
    out.suspects.set(before.taskId, sinceMs);
    out.held.add(before.taskId);
    if ('vanished' in why) {
      out.heldLoss.vanished.push(before.taskId);
      keepVanished.push(before);
    } else {
      if (why.fields.length > 0) out.heldLoss.fieldsLost.push({ task_id: before.taskId, fields: why.fields });
      // A row that ended stays ended; one that lost fields keeps them, with the values it still has.
      replace.set(before.taskId, why.isReopened ? before : mergeRow(before, after!, read.dispatchedAtMs ?? trusted.dispatchedAtMs));
    }
  }
  if (out.held.size === 0) return none;
  const tasks = [...read.tasks.map((t) => replace.get(t.taskId) ?? t), ...keepVanished];
  // A read that lost rows of the wave does not say every wave is completed (a torn shape C).
  const { isEveryWaveCompleted: _dropped, ...rest } = read;
  out.wave = { ...rest, waveId: read.waveId ?? trusted.waveId, tasks };
  out.heldLoss.vanished.sort();
  return out;
}
