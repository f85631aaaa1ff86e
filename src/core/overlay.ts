// The wave as the watchdog judges it: the orchestrator's rows, plus what our own log knows
// (DESIGN §8): a row we cancelled, replaced or escalated is no longer judged as in flight, and a
// replacement we launched ourselves (process adapter) is tracked as the ticket's next attempt,
// since we never write the orchestrator's state file. Pure.
import type { EventOf } from '../contracts/events.js';
import type { Task, Wave } from '../contracts/state-file.js';
import { actionKey } from './plan.js';
import type { History, RequestRecord } from './history.js';
import { withTasks } from './wave-index.js';

/** What the shell found out about a replacement's process. */
export type ProcessState = 'alive' | 'gone' | 'unknown';

const OVERLAID_KINDS = ['redispatch', 'cancel', 'escalate'] as const;
const DONE_STATUS = { cancel: ['cancelled', 'terminal'], redispatch: ['superseded', 'terminal'], escalate: ['blocked', 'blocked'] } as const;

/** A task for a replacement we launched and the orchestrator does not list. */
export function replacementTask(e: EventOf<'redispatch'>, stateRoot: string, processState: ProcessState): Task {
  // A replacement whose process is gone stays in flight: its output shows whether it finished
  // (then assess calls it done), and one that died mid-task stalls and is recovered like any other.
  const gone = processState === 'gone';
  return {
    taskId: e.recovery_task_id,
    ticketId: e.ticket_id,
    status: gone ? 'exited' : 'in_progress',
    statusClass: 'in_flight',
    isOwnReplacement: true,
    hasExited: gone,
    dispatchedAtMs: Date.parse(e.timestamp_utc),
    pid: e.pid,
    expectedProcess: e.pid !== undefined && e.start_ticks !== undefined ? { pid: e.pid, startTicks: e.start_ticks, bootId: e.boot_id } : undefined,
    // Its CLI is the stalled row's, whose harness reads the launched agent's output (docs/recovery.md).
    ...(e.agent ? { agent: e.agent } : {}),
    transcriptPath: e.output_path ? `${stateRoot}/${e.output_path}` : undefined,
    raw: { remaining_work: e.remaining_tasks ?? [], ...(e.agent ? { agent: e.agent } : {}) },
  };
}

/** The request whose task last ran: back through replacements asked for and never started. */
function lastStarted(r: RequestRecord, history: History): RequestRecord {
  let cur = r;
  for (let i = 0; i < history.requests.size; i++) {
    const before = [...history.requests.values()].find((q) => q.recoveryTaskId === cur.taskId && q.status === 'unanswered');
    if (!before) break;
    cur = before;
  }
  return cur;
}

/**
 * A replacement the orchestrator was asked for and never started (its request went unanswered). It
 * has no agent: what is asked about it next names the agent to stop, the last one started and its row.
 */
function unstartedReplacement(r: RequestRecord, history: History): Task {
  const ran = lastStarted(r, history);
  return {
    taskId: r.recoveryTaskId!,
    ticketId: r.ticketId,
    status: 'requested',
    statusClass: 'in_flight',
    dispatchedAtMs: r.createdAtMs,
    unansweredRequest: { key: r.key, createdAtMs: r.createdAtMs, answerByMs: r.answerByMs, startedTaskId: ran.taskId, startedRowTaskId: ran.rowTaskId },
  };
}

/** One in-flight row after our log: done once our action on it is done and, for a request, answered. */
function overlayRow(t: Task, history: History, epicId: string): Task {
  if (t.statusClass !== 'in_flight') return t;
  for (const kind of OVERLAID_KINDS) {
    const key = actionKey(epicId, t.taskId, kind);
    const rec = history.actions.get(key);
    if (!rec?.outcome || rec.outcome.event === 'action_failed') continue;
    const request = history.requests.get(key);
    // Asked, not yet answered: the stalled task is still the orchestrator's to stop, never "done".
    if (request?.status === 'pending') return { ...t, pendingRequestKey: key };
    // A cancel nobody carried out leaves the agent as it was.
    if (request?.status === 'unanswered' && request.kind === 'cancel') return t;
    const [status, statusClass] = DONE_STATUS[kind];
    return { ...t, status, statusClass };
  }
  return t;
}

/** Per row as read: the task it carries as a reused instance (the same object while row and instance are). */
const instances = new WeakMap<Task, Task>();

function instanceOf(row: Task, instance: string): Task {
  const hit = instances.get(row);
  if (hit?.taskId === instance) return hit;
  const t = { ...row, taskId: instance, rowTaskId: row.taskId };
  instances.set(row, t);
  return t;
}

/** Apply our own log to the orchestrator's wave. */
export function overlayWave(wave: Wave, history: History, epicId: string, stateRoot: string, processStates: ReadonlyMap<string, ProcessState>): Wave {
  // Only an instance with an action of ours can change (three keys built per task per check, otherwise).
  const acted = actedInstances(history, epicId);
  const tasks: Task[] = wave.tasks.map((row) => {
    // A row the orchestrator reused for a replacement carries that instance now.
    const instance = history.rowInstance.get(row.taskId);
    const t = instance ? instanceOf(row, instance) : row;
    return acted.has(t.taskId) ? overlayRow(t, history, epicId) : t;
  });
  const listed = new Set(tasks.map((t) => t.taskId));
  for (const e of history.replacements.values()) {
    if (listed.has(e.recovery_task_id) || e.pid === undefined) continue;
    // The replacement itself may since have been replaced, cancelled or escalated.
    tasks.push(overlayRow(replacementTask(e, stateRoot, processStates.get(e.recovery_task_id) ?? 'unknown'), history, epicId));
    listed.add(e.recovery_task_id);
  }
  for (const r of history.requests.values()) {
    if (r.status !== 'unanswered' || !r.recoveryTaskId || listed.has(r.recoveryTaskId)) continue;
    tasks.push(overlayRow(unstartedReplacement(r, history), history, epicId));
    listed.add(r.recoveryTaskId);
  }
  return withTasks(wave, tasks);
}

/** The task instances `overlayRow` finds an action record for: the task id inside each of this epic's keys (actionKey). */
function actedInstances(history: History, epicId: string): ReadonlySet<string> {
  const out = new Set<string>();
  if (history.actions.size === 0) return out;
  const prefix = `${epicId}:`;
  for (const key of history.actions.keys()) {
    if (!key.startsWith(prefix)) continue;
    const kind = OVERLAID_KINDS.find((k) => key.endsWith(`:${k}`));
    if (kind && key.length > prefix.length + kind.length + 1) out.add(key.slice(prefix.length, key.length - kind.length - 1));
  }
  return out;
}
