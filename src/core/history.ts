// What the dispatch log says happened, folded into lookups the planner needs (DESIGN §7, §8).
// Pure: events in, History out; the shell keeps it current by folding each event it appends.
import { OUTCOME_EVENT_OF, verdictOfEvent, type DispatchEvent, type EventOf } from '../contracts/events.js';
import type { RequestKind } from '../contracts/request.js';
import type { ActionRecord, AppendRedispatch, AppendStalls, History, OutcomeEvent } from './history-types.js';
export type {
  ActionEvent,
  ActionRecord,
  AppendRedispatch,
  AppendStalls,
  AttentionRecord,
  History,
  NotificationRecord,
  OutcomeEvent,
  RequestRecord,
} from './history-types.js';

export function emptyHistory(): History {
  return {
    lastLogged: new Map(),
    lastStallReason: new Map(),
    lastStallAction: new Map(),
    lastLoggedAtMs: new Map(),
    attention: new Map(),
    redispatchCount: new Map(),
    lastRecoveryMode: new Map(),
    actions: new Map(),
    replacements: new Map(),
    stalls: new Map(),
    ownStalls: [],
    trackerPending: new Map(),
    reportedOrphans: new Set(),
    requests: new Map(),
    rowInstance: new Map(),
    escalations: new Map(),
    announced: { requests: new Set(), unanswered: new Set(), escalations: new Set(), attention: new Set() },
    notifications: new Map(),
  };
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
        h.attention.set(key, {
          key,
          kind: 'stall_reported',
          taskId: e.task_id,
          ticketId: e.ticket_id,
          sinceMs: Date.parse(e.timestamp_utc),
          detail: `stalled (${e.stall_reason}), idle ${e.idle_seconds}s${e.reason ? `: ${e.reason}` : ''}`,
        });
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
          h.attention.set(k, {
            key: k,
            kind: 'orphan',
            detail: `action ${k} was started but a crash left it undecidable; it is never re-fired${e.friction_path ? ` (friction note ${e.friction_path})` : ''}`,
          });
        }
      }
      break;
    case 'attention_needed':
      if (own)
        h.attention.set(e.key, {
          key: e.key,
          kind: e.kind,
          taskId: e.task_id,
          ticketId: e.ticket_id,
          ...(e.since ? { sinceMs: Date.parse(e.since) } : {}),
          detail: e.reason,
        });
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
      if (own && !h.massStallEpisode?.isOpen)
        h.massStallEpisode = { startMs: Date.parse(e.episode_started_at ?? e.timestamp_utc), isOpen: true, isEscalated: false };
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
