// The shape of a started action, shared by the executor (perform), start-up recovery (recover)
// and the tracker retry: what its steps need, rebuilt from the write-ahead record after a crash.
// One variant per action kind (`ActionSpec` is tagged by `kind`): a new kind in ACTION_KINDS does
// not compile until its fields here, its steps (perform.ts `STEPS`) and its markers (recover.ts
// `MARKERS`) are written.
import type { EventOf } from '../../contracts/events.js';
import type { Task, Wave } from '../../contracts/state-file.js';
import type { Clock } from '../../deps.js';
import type { ActionRecord, History } from '../../core/history.js';
import type { DispatchLog } from '../../journal/dispatch-log.js';
import type { StatePaths } from '../../files/paths.js';
import type { ActionKind, StallReason } from '../../contracts/vocabulary.js';
import type { Observation } from '../../observe/parse/observation.js';
import type { DisagreementKind, RecoveryMode, TransportCause } from '../../contracts/vocabulary.js';
import type { NudgeRoute } from '../../core/plan-controls.js';
import type { AgentAdapter } from '../agents/adapter.js';
import type { LinearRetryOptions } from '../tracker/linear-retry.js';

/** What every started action carries, whatever its kind. */
export interface SpecBase {
  key: string;
  task: Task;
  attempt: number;
  recoveryTaskId?: string;
  stallReason: StallReason;
  idleSeconds: number;
  observation?: Observation;
}

/** A record with one entry for every action kind, and no other (a missing kind is a compile error). */
type EveryKind<T extends { readonly [K in ActionKind]: unknown } & { readonly [K in Exclude<keyof T, ActionKind>]: never }> = T;

/** What each kind carries besides the base: the fields of the write-ahead record only it reads. */
export type KindFields = EveryKind<{
  cancel: object;
  redispatch: {
    /** Fresh (default) or resume. */
    mode?: RecoveryMode;
    transportCause?: TransportCause;
    /** Where the agent worked (from the evidence, or after a restart from the write-ahead record). */
    cwd?: string;
  };
  escalate: object;
  nudge: {
    /** Where it lands. */
    route?: NudgeRoute;
    cwd?: string;
  };
  reconcile: {
    /** How the row and the agent disagree, in a word and in words. */
    disagreement?: DisagreementKind;
    detail?: string;
  };
}>;

/** What a started action of kind K needs to run (or resume) its steps. */
export type ActionSpecOf<K extends ActionKind> = { [P in K]: SpecBase & { kind: P } & KindFields[P] }[K];

/** What a started action needs to run (or resume) its steps: a union tagged by `kind`. */
export type ActionSpec = ActionSpecOf<ActionKind>;

/** The kind-specific fields of an `action_started` record (write-ahead), as the log spells them. */
export type StartedFields = Pick<EventOf<'action_started'>, 'mode' | 'transport_cause' | 'route' | 'disagreement' | 'detail' | 'cwd'>;

/** Per kind: its fields read from the write-ahead record. */
const FIELDS_OF: { readonly [K in ActionKind]: (e: StartedFields) => KindFields[K] } = {
  cancel: () => ({}),
  redispatch: (e) => ({
    ...(e.mode ? { mode: e.mode } : {}),
    ...(e.transport_cause ? { transportCause: e.transport_cause } : {}),
    ...(e.cwd ? { cwd: e.cwd } : {}),
  }),
  escalate: () => ({}),
  nudge: (e) => ({ ...(e.route ? { route: e.route } : {}), ...(e.cwd ? { cwd: e.cwd } : {}) }),
  reconcile: (e) => ({ ...(e.disagreement ? { disagreement: e.disagreement } : {}), ...(e.detail ? { detail: e.detail } : {}) }),
};

/** The spec of kind K: the base, and the fields its kind reads from the (intended) write-ahead record. */
export function specOf<K extends ActionKind>(kind: K, base: SpecBase, fields: StartedFields): ActionSpecOf<K> {
  const read: (e: StartedFields) => KindFields[K] = FIELDS_OF[kind];
  return { ...base, kind, ...read(fields) } as ActionSpecOf<K>;
}

export interface PerformerContext {
  epicId: string;
  paths: StatePaths;
  log: DispatchLog;
  history: History;
  adapter: AgentAdapter;
  clock: Clock;
  maxRedispatches: number;
  /** How long a request file written by the executor itself (reconcile) may stay unanswered. */
  requestDeadlineMs?: number;
  tracker: TrackerSettings;
}

export interface TrackerSettings {
  /** LINEAR_API_KEY; absent → the tracker step is skipped. */
  apiKey?: string;
  apiUrl?: string;
  blockedStateName: string;
  retry?: LinearRetryOptions;
}

/**
 * The task an action was started on: its current row when listed, else what the event recorded.
 * A row that now names another pid than the one recorded is a new instance of the task (the
 * orchestrator restarted it under the same id while we were down): never the one to act on.
 */
function taskOf(e: EventOf<'action_started'>, wave: Wave | undefined): Task {
  const row = wave?.tasks.find((t) => t.taskId === e.task_id);
  const expectedProcess = e.pid !== undefined && e.start_ticks !== undefined ? { pid: e.pid, startTicks: e.start_ticks, bootId: e.boot_id } : undefined;
  if (row && (row.expectedProcess?.pid ?? row.pid) === e.pid) return { ...row, expectedProcess: row.expectedProcess ?? expectedProcess };
  return {
    taskId: e.task_id,
    ticketId: e.ticket_id,
    agentId: e.agent_id === e.task_id ? undefined : e.agent_id,
    status: 'in_progress',
    statusClass: 'in_flight',
    pid: e.pid,
    expectedProcess,
  };
}

/** Rebuild what runSteps needs from the write-ahead record. */
export function specFromRecord(rec: ActionRecord, wave: Wave | undefined): ActionSpec {
  const e = rec.started;
  const base: SpecBase = {
    key: e.key,
    task: taskOf(e, wave),
    attempt: e.redispatch_attempt ?? 1,
    recoveryTaskId: e.recovery_task_id,
    stallReason: e.stall_reason ?? 'inactivity',
    idleSeconds: e.idle_seconds ?? 0,
  };
  return specOf(e.action, base, e);
}
