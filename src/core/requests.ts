// The request lifecycle (DESIGN §8): which pending requests the orchestrator answered, and which
// passed their deadline, judged from the state file as written (before our overlay) and the acks.
// Pure: the shell reads the acks and journals the events.
import type { EventBody } from '../contracts/events.js';
import type { Task, Wave } from '../contracts/state-file.js';
import type { AnswerHow } from '../contracts/request.js';
import { msToIso } from '../contracts/time.js';
import type { History, RequestRecord } from './history.js';
import { unobservedSince, type UnobservedSpan } from './unobserved.js';

/** An answer given with `dispatch-watchdog ack <key> [--task-id ID]`. */
export interface Ack {
  taskId?: string;
}

/** The attempt a reused row says it carries (`redispatch_count`, or `attempt` / `redispatch_attempt`). */
function rowAttempt(t: Task): number | undefined {
  for (const v of [t.redispatchCount, t.raw?.attempt, t.raw?.redispatch_attempt]) if (typeof v === 'number') return v;
  return undefined;
}

/** The row now names another agent than the one the request was about, or the request's attempt. */
export function isRowReused(row: Task, r: RequestRecord): boolean {
  const attempt = rowAttempt(row);
  if (attempt !== undefined && attempt >= r.attempt) return true;
  const w = r.was;
  return (
    (row.agentId !== undefined && row.agentId !== w.agentId) ||
    (row.sessionId !== undefined && row.sessionId !== w.sessionId) ||
    (row.pid !== undefined && row.pid !== w.pid)
  );
}

/** How the orchestrator answered `r`, if it did. */
export function answerOf(r: RequestRecord, rows: ReadonlyMap<string, Task>, ack: Ack | undefined): { how: AnswerHow; byTaskId?: string } | undefined {
  const row = rows.get(r.rowTaskId);
  // A nudge or a reconcile the row itself answered says so even beside an ack read at the same
  // check (the skill acks a nudge as it sends it, then records how the agent ended): `friction`
  // counts a nudged row that ended as a nudge that worked.
  if (r.kind === 'nudge') {
    if (row?.statusClass === 'terminal') return { how: 'terminal', byTaskId: r.rowTaskId };
    if (row && isRowReused(row, r)) return { how: 'row_reused', byTaskId: r.rowTaskId };
  }
  // The owner made the row say something else (its status, or the agent it names).
  if (r.kind === 'reconcile' && row && r.was.status !== undefined && row.status !== r.was.status) return { how: 'resolved', byTaskId: r.rowTaskId };
  if (r.kind === 'reconcile' && row && isRowReused(row, r)) return { how: 'row_reused', byTaskId: r.rowTaskId };
  if (ack) return { how: 'ack', byTaskId: ack.taskId };
  if (r.kind === 'cancel') return row?.statusClass === 'terminal' ? { how: 'terminal', byTaskId: r.rowTaskId } : undefined;
  if (r.kind === 'nudge' || r.kind === 'reconcile') return undefined;
  if (r.recoveryTaskId && rows.has(r.recoveryTaskId)) return { how: 'row', byTaskId: r.recoveryTaskId };
  if (row && isRowReused(row, r)) return { how: 'row_reused', byTaskId: r.rowTaskId };
  return undefined;
}

/** The request_answered / request_unanswered events this check owes. */
export function settleRequests(
  wave: Wave,
  history: History,
  acks: ReadonlyMap<string, Ack>,
  nowMs: number,
  unobserved?: readonly UnobservedSpan[],
): EventBody[] {
  const rows = new Map(wave.tasks.map((t) => [t.taskId, t]));
  const events: EventBody[] = [];
  for (const r of history.requests.values()) {
    if (r.status !== 'pending') continue;
    const ids = { key: r.key, kind: r.kind, ticket_id: r.ticketId, task_id: r.taskId, ...(r.recoveryTaskId ? { recovery_task_id: r.recoveryTaskId } : {}) };
    const answer = answerOf(r, rows, acks.get(r.key));
    if (answer) {
      events.push({ event: 'request_answered', ...ids, how: answer.how, ...(answer.byTaskId ? { answered_by_task_id: answer.byTaskId } : {}) });
    } else if (nowMs > answerByMs(r, nowMs, unobserved)) {
      events.push({ event: 'request_unanswered', ...ids, answer_by: msToIso(r.answerByMs) });
    }
  }
  return events;
}

/** When `r` goes unanswered: its answer_by, moved on by the time the watchdog did not see pass since it was written (the orchestrator was paused too). */
export function answerByMs(r: RequestRecord, nowMs: number, unobserved?: readonly UnobservedSpan[]): number {
  return r.answerByMs + unobservedSince(unobserved, r.createdAtMs, nowMs);
}

/** Keys of the requests still waiting for an answer. */
export function pendingRequests(history: History): RequestRecord[] {
  return [...history.requests.values()].filter((r) => r.status === 'pending');
}
