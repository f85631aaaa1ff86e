// The history's shapes: what the fold of the dispatch log keeps (History) and its records
// (actions, notifications, requests, attention). Pure types. Split out of core/history.ts, the fold.
import type { EventOf } from '../contracts/events.js';
import type { AttentionKind, RecoveryMode, VerdictKind } from '../contracts/vocabulary.js';
import type { AnswerHow, RequestKind, RequestStatus } from '../contracts/request.js';

export type ActionEvent = EventOf<'action_started'>;
export type OutcomeEvent =
  | EventOf<'agent_killed'>
  | EventOf<'redispatch'>
  | EventOf<'escalated_to_blocked'>
  | EventOf<'action_failed'>
  | EventOf<'nudge_sent'>
  | EventOf<'reconcile_requested'>;

export interface ActionRecord {
  key: string;
  started: ActionEvent;
  /** The event that finished the action (its own outcome event, or action_failed). */
  outcome?: OutcomeEvent;
  /** Every event name logged with this key, so a resumed action never logs a step twice. */
  steps: Set<string>;
}

/** One webhook notification (docs/fleet.md "Notifications"): its write-ahead line and its outcome. */
export interface NotificationRecord {
  key: string;
  started: EventOf<'notify_started'>;
  outcome?: EventOf<'notify_sent'> | EventOf<'notify_failed'>;
}

/** A request to the orchestrator and where it is in its lifecycle (DESIGN §8). */
export interface RequestRecord {
  key: string;
  kind: RequestKind;
  /** The task instance the request is about. */
  taskId: string;
  /** The state-file row that carries it (differs from taskId for a reused row). */
  rowTaskId: string;
  ticketId: string;
  recoveryTaskId?: string;
  attempt: number;
  createdAtMs: number;
  answerByMs: number;
  /** State-dir relative path of the request file. */
  path: string;
  /** The agent the request was about, as recorded when it stalled (a reused row shows a new one). */
  was: { agentId?: string; sessionId?: string; pid?: number; status?: string };
  status: RequestStatus;
  how?: AnswerHow;
  answeredByTaskId?: string;
  /** A replacement our own command launched elsewhere (command adapter): awaited like a request, nothing for the orchestrator to do. */
  isLaunched?: boolean;
}

export interface History {
  /** Last verdict-event kind logged per task id of this epic (for change-only logging). */
  lastLogged: Map<string, VerdictKind>;
  /** When that last verdict event was logged (epoch ms): since when the task has had that verdict. */
  lastLoggedAtMs: Map<string, number>;
  /** Attention items of this epic by key, in log order (report-mode stalls, orphans, attention_needed). */
  attention: Map<string, AttentionRecord>;
  /** The stall_reason of the last stall_detected logged per task id: a new reason is logged again. */
  lastStallReason: Map<string, string>;
  /** The action_taken of the last stall_detected logged per task id: a held action, once taken, is logged again. */
  lastStallAction: Map<string, string>;
  /** Completed `redispatch` events per ticket, all epics, exact id match. */
  redispatchCount: Map<string, number>;
  /** How each ticket's last completed redispatch recovered (all epics): a resume is not repeated in a row. */
  lastRecoveryMode: Map<string, RecoveryMode>;
  /** Every write-ahead action of this epic by idempotency key. */
  actions: Map<string, ActionRecord>;
  /** Completed redispatches of this epic by recovery task id (replacements we know of). */
  replacements: Map<string, EventOf<'redispatch'>>;
  /** Stall events per ticket, all epics (escalation history). */
  stalls: Map<string, EventOf<'stall_detected'>[]>;
  /** This epic's stalls (task id, ticket id, time logged), in log order: what the circuit breaker's window scans, without every epic's stall history. */
  ownStalls: { taskId: string; ticketId: string; atMs: number }[];
  /** Task ids of the last mass_stall event of this epic, sorted and joined (logged once per episode). */
  lastMassStall?: string;
  /** The circuit breaker's current (or last) episode of this epic: since when it holds, and whether it was escalated. */
  massStallEpisode?: { startMs: number; isOpen: boolean; isEscalated: boolean };
  /** Escalations of this epic whose latest tracker attempt failed, by key (retried later). */
  trackerPending: Map<string, EventOf<'escalated_to_blocked'>>;
  /** Keys already reported as orphans by a recovery_summary (never reported twice). */
  reportedOrphans: Set<string>;
  /** Requests of this epic to the orchestrator, by key, in the order they were made. */
  requests: Map<string, RequestRecord>;
  /** Row task id → the task instance it carries now (the orchestrator reused the row for a replacement). */
  rowInstance: Map<string, string>;
  /** Escalations of this epic by key (the first line of each). */
  escalations: Map<string, EventOf<'escalated_to_blocked'>>;
  /** What `next` already printed, by key: never printed as new again. */
  announced: { requests: Set<string>; unanswered: Set<string>; escalations: Set<string>; attention: Set<string> };
  /** Webhook notifications of this epic by key: each is sent once, across restarts. */
  notifications: Map<string, NotificationRecord>;
}

/** A stalls map that takes a stall without reading the ticket's earlier ones back (journal/ticket-refs.ts): the fold only appends. */
export interface AppendStalls {
  appendStall(ticket: string, e: EventOf<'stall_detected'>): void;
}

/** A redispatch-count map that takes a redispatch without reading the ticket's earlier ones back (journal/redispatch-refs.ts); it keeps lastRecoveryMode with it. */
export interface AppendRedispatch {
  appendRedispatch(ticket: string, mode: RecoveryMode): void;
}

/** Something only a person can help with (`next` reason attention). */
export interface AttentionRecord {
  key: string;
  kind: AttentionKind;
  taskId?: string;
  ticketId?: string;
  sinceMs?: number;
  detail: string;
}
