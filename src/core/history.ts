// What the dispatch log says happened, folded into lookups the planner needs (DESIGN §7, §8).
// Pure: events in, History out; the shell keeps it current by folding each event it appends.
import { OUTCOME_EVENT_OF, verdictOfEvent, type DispatchEvent, type EventOf } from '../contracts/events.js';
import type { AttentionKind, RecoveryMode, VerdictKind } from '../contracts/vocabulary.js';
import type { AnswerHow, RequestKind, RequestStatus } from '../contracts/request.js';

export type ActionEvent = EventOf<'action_started'>;
export type OutcomeEvent = EventOf<'agent_killed'> | EventOf<'redispatch'> | EventOf<'escalated_to_blocked'> | EventOf<'action_failed'> | EventOf<'nudge_sent'> | EventOf<'reconcile_requested'>;

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

export function emptyHistory(): History {
  return { lastLogged: new Map(), lastStallReason: new Map(), lastStallAction: new Map(), lastLoggedAtMs: new Map(), attention: new Map(), redispatchCount: new Map(), lastRecoveryMode: new Map(), actions: new Map(), replacements: new Map(), stalls: new Map(), ownStalls: [], trackerPending: new Map(), reportedOrphans: new Set(),
    requests: new Map(), rowInstance: new Map(), escalations: new Map(), announced: { requests: new Set(), unanswered: new Set(), escalations: new Set(), attention: new Set() }, notifications: new Map() };
}

/**
 * The only events of other epics `foldEvent` reads (per-ticket totals: redispatch counts and
 * modes, stall histories). Any other line of another epic leaves the history as it was, so
 * start-up need not parse it (journal/log-prefilter.ts); a test folds every other event name.
 */
export const CROSS_EPIC_EVENTS: ReadonlySet<string> = new Set(['redispatch', 'stall_detected']);

/** Fold one event into `h` (mutates and returns it). Events of other epics count only toward per-ticket totals (CROSS_EPIC_EVENTS). */
export function foldEvent(h: History, e: DispatchEvent, epicId: string): History {
  const own = e.epic_id === epicId;
  switch (e.event) {
    case 'redispatch': {
      const appendable = h.redispatchCount as Map<string, number> & Partial<AppendRedispatch>;
      if (appendable.appendRedispatch) appendable.appendRedispatch(e.ticket_id, e.mode ?? 'fresh');
      else {
        h.redispatchCount.set(e.ticket_id, (h.redispatchCount.get(e.ticket_id) ?? 0) + 1);
        h.lastRecoveryMode.set(e.ticket_id, e.mode ?? 'fresh');
      }
      if (own) h.replacements.set(e.recovery_task_id, e);
      break;
    }
    case 'stall_detected': {
      const appendable = h.stalls as Map<string, EventOf<'stall_detected'>[]> & Partial<AppendStalls>;
      if (appendable.appendStall) appendable.appendStall(e.ticket_id, e);
      else {
        const list = h.stalls.get(e.ticket_id) ?? [];
        list.push(e);
        h.stalls.set(e.ticket_id, list);
      }
      if (own) h.ownStalls.push({ taskId: e.task_id, ticketId: e.ticket_id, atMs: Date.parse(e.timestamp_utc) });
      // Report mode acts on nothing: every stall is for a person to hear about.
      if (own && e.action_taken === 'report') {
        const key = `${e.epic_id}:${e.task_id}:stall@${e.timestamp_utc}`;
        h.attention.set(key, { key, kind: 'stall_reported', taskId: e.task_id, ticketId: e.ticket_id, sinceMs: Date.parse(e.timestamp_utc), detail: `stalled (${e.stall_reason}), idle ${e.idle_seconds}s${e.reason ? `: ${e.reason}` : ''}` });
      }
      break;
    }
    case 'escalated_to_blocked':
      if (own && e.key && !h.escalations.has(e.key)) h.escalations.set(e.key, e);
      if (own && e.key) {
        if (e.tracker === 'failed') h.trackerPending.set(e.key, e);
        else h.trackerPending.delete(e.key);
      }
      break;
    case 'recovery_summary':
      if (own) {
        for (const k of [...e.orphans, ...(e.more_orphans ?? [])]) {
          h.reportedOrphans.add(k);
          h.attention.set(k, { key: k, kind: 'orphan', detail: `action ${k} was started but a crash left it undecidable; it is never re-fired${e.friction_path ? ` (friction note ${e.friction_path})` : ''}` });
        }
      }
      break;
    case 'attention_needed':
      if (own) h.attention.set(e.key, { key: e.key, kind: e.kind, taskId: e.task_id, ticketId: e.ticket_id, ...(e.since ? { sinceMs: Date.parse(e.since) } : {}), detail: e.reason });
      break;
    case 'request_answered':
    case 'request_unanswered':
      if (own) foldRequestEnd(h, e);
      break;
    case 'next_returned':
      if (own) {
        for (const k of e.requests) h.announced.requests.add(k);
        for (const k of e.unanswered) h.announced.unanswered.add(k);
        for (const k of e.escalations) h.announced.escalations.add(k);
        for (const k of e.attention ?? []) h.announced.attention.add(k);
      }
      break;
    case 'mass_stall':
      if (own) h.lastMassStall = [...e.task_ids].sort().join(',');
      if (own && !h.massStallEpisode?.isOpen) h.massStallEpisode = { startMs: Date.parse(e.episode_started_at ?? e.timestamp_utc), isOpen: true, isEscalated: false };
      break;
    case 'mass_stall_ended':
      if (own && h.massStallEpisode) h.massStallEpisode = { ...h.massStallEpisode, isOpen: false };
      // A new episode is a new set of stalled tasks, even the same one again.
      if (own) h.lastMassStall = undefined;
      break;
    case 'mass_stall_escalated':
      if (own && h.massStallEpisode) h.massStallEpisode = { ...h.massStallEpisode, isEscalated: true };
      break;
    case 'notify_started':
      if (own && !h.notifications.has(e.key)) h.notifications.set(e.key, { key: e.key, started: e });
      break;
    case 'notify_sent':
    case 'notify_failed': {
      const rec = own ? h.notifications.get(e.key) : undefined;
      if (rec && (!rec.outcome || rec.outcome.event === 'notify_failed')) rec.outcome = e;
      break;
    }
    case 'action_started':
      if (own && !h.actions.has(e.key)) h.actions.set(e.key, { key: e.key, started: e, steps: new Set() });
      break;
    default:
      break;
  }
  if (own && 'key' in e && typeof e.key === 'string' && e.event !== 'action_started') {
    const rec = h.actions.get(e.key);
    if (rec) {
      rec.steps.add(e.event);
      const isOutcome = e.event === OUTCOME_EVENT_OF[rec.started.action] || e.event === 'action_failed';
      // A later success overrides an earlier failure of the same key; the first success stands.
      if (isOutcome && (!rec.outcome || rec.outcome.event === 'action_failed')) rec.outcome = e as OutcomeEvent;
      foldRequestStart(h, rec, e);
    }
  }
  const kind = verdictOfEvent(e.event);
  if (own && kind && 'task_id' in e) {
    h.lastLogged.set(String(e.task_id), kind);
    h.lastLoggedAtMs.set(String(e.task_id), Date.parse(e.timestamp_utc));
  }
  if (own && e.event === 'stall_detected') {
    h.lastStallReason.set(e.task_id, e.stall_reason);
    h.lastStallAction.set(e.task_id, e.action_taken);
  }
  return h;
}

/** A request file written for the orchestrator: a cancel's stop, or a redispatch's launch. */
function foldRequestStart(h: History, rec: ActionRecord, e: DispatchEvent): void {
  if (h.requests.has(rec.key)) return;
  const isCancel = e.event === 'agent_killed' && e.step === 'cancel';
  const isAsk = e.event === 'redispatch' || e.event === 'nudge_sent' || e.event === 'reconcile_requested';
  if (!(isCancel || isAsk) || !('request_path' in e) || !e.request_path) return;
  const s = rec.started;
  const createdAtMs = Date.parse(e.timestamp_utc);
  h.requests.set(rec.key, {
    key: rec.key,
    kind: requestKindOf(e),
    taskId: s.task_id,
    rowTaskId: s.row_task_id ?? s.task_id,
    ticketId: s.ticket_id,
    recoveryTaskId: e.event === 'redispatch' ? e.recovery_task_id : undefined,
    attempt: s.redispatch_attempt ?? 1,
    createdAtMs,
    // An outcome line without a deadline (written before requests had one) waits a day at most.
    answerByMs: e.answer_by ? Date.parse(e.answer_by) : createdAtMs + 86_400_000,
    path: e.request_path,
    was: { agentId: s.agent_id, sessionId: s.session_id, pid: s.pid, ...(e.event === 'reconcile_requested' ? { status: e.row_status } : {}) },
    status: 'pending',
    ...(e.event === 'redispatch' && e.adapter === 'command' ? { isLaunched: true } : {}),
  });
}

/** The kind of request an outcome line wrote. */
function requestKindOf(e: DispatchEvent): RequestKind {
  if (e.event === 'nudge_sent') return 'nudge';
  if (e.event === 'reconcile_requested') return 'reconcile';
  if (e.event === 'redispatch') return e.mode === 'resume' ? 'resume' : 'redispatch';
  return 'cancel';
}

/** request_answered / request_unanswered: the end of a request's wait. */
function foldRequestEnd(h: History, e: EventOf<'request_answered'> | EventOf<'request_unanswered'>): void {
  const r = h.requests.get(e.key);
  if (!r || r.status !== 'pending') return;
  if (e.event === 'request_unanswered') {
    r.status = 'unanswered';
    return;
  }
  r.status = 'done';
  r.how = e.how;
  r.answeredByTaskId = e.answered_by_task_id;
  // The same row now carries the replacement: judge it as the new instance from here on.
  if (r.recoveryTaskId && (e.how === 'row_reused' || (e.how === 'ack' && e.answered_by_task_id === r.rowTaskId))) {
    h.rowInstance.set(r.rowTaskId, r.recoveryTaskId);
  }
}

/** True while any request of the epic waits for the orchestrator: the wave is not done then. */
export function hasPendingRequest(h: History): boolean {
  for (const r of h.requests.values()) if (r.status === 'pending') return true;
  return false;
}

/** Fold a whole log. */
export function foldHistory(events: readonly DispatchEvent[], epicId: string): History {
  const h = emptyHistory();
  for (const e of events) foldEvent(h, e, epicId);
  return h;
}

/** Task ids that already have a stop, a replacement or an escalation under way or done (never acted on again); a nudge or a reconcile request does not count. */
export function actedTaskIds(h: History): Set<string> {
  return new Set([...h.actions.values()].filter((r) => r.started.action !== 'nudge' && r.started.action !== 'reconcile').map((r) => r.started.task_id));
}
