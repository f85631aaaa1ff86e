// What the dispatch log says happened, folded into lookups the planner needs (DESIGN §7, §8).
// Pure: events in, History out; the shell keeps it current by folding each event it appends.
import { OUTCOME_EVENT_OF, verdictOfEvent, type DispatchEvent, type EventOf } from '../contracts/events.js';
import type { VerdictKind } from '../contracts/vocabulary.js';

export type ActionEvent = EventOf<'action_started'>;
export type OutcomeEvent = EventOf<'agent_killed'> | EventOf<'redispatch'> | EventOf<'escalated_to_blocked'> | EventOf<'action_failed'>;

export interface ActionRecord {
  key: string;
  started: ActionEvent;
  /** The event that finished the action (its own outcome event, or action_failed). */
  outcome?: OutcomeEvent;
  /** Every event name logged with this key, so a resumed action never logs a step twice. */
  steps: Set<string>;
}

export interface History {
  /** Last verdict-event kind logged per task id of this epic (for change-only logging). */
  lastLogged: Map<string, VerdictKind>;
  /** Completed `redispatch` events per ticket, all epics, exact id match. */
  redispatchCount: Map<string, number>;
  /** Every write-ahead action of this epic by idempotency key. */
  actions: Map<string, ActionRecord>;
  /** Completed redispatches of this epic by recovery task id (replacements we know of). */
  replacements: Map<string, EventOf<'redispatch'>>;
  /** Stall events per ticket, all epics (escalation history). */
  stalls: Map<string, EventOf<'stall_detected'>[]>;
  /** Task ids of the last mass_stall event of this epic, sorted and joined (logged once per episode). */
  lastMassStall?: string;
  /** Escalations of this epic whose latest tracker attempt failed, by key (retried later). */
  trackerPending: Map<string, EventOf<'escalated_to_blocked'>>;
  /** Keys already reported as orphans by a recovery_summary (never reported twice). */
  reportedOrphans: Set<string>;
}

export function emptyHistory(): History {
  return { lastLogged: new Map(), redispatchCount: new Map(), actions: new Map(), replacements: new Map(), stalls: new Map(), trackerPending: new Map(), reportedOrphans: new Set() };
}

/** Fold one event into `h` (mutates and returns it). Events of other epics count only toward per-ticket totals. */
export function foldEvent(h: History, e: DispatchEvent, epicId: string): History {
  const own = e.epic_id === epicId;
  switch (e.event) {
    case 'redispatch':
      h.redispatchCount.set(e.ticket_id, (h.redispatchCount.get(e.ticket_id) ?? 0) + 1);
      if (own) h.replacements.set(e.recovery_task_id, e);
      break;
    case 'stall_detected': {
      const list = h.stalls.get(e.ticket_id) ?? [];
      list.push(e);
      h.stalls.set(e.ticket_id, list);
      break;
    }
    case 'escalated_to_blocked':
      if (own && e.key) {
        if (e.tracker === 'failed') h.trackerPending.set(e.key, e);
        else h.trackerPending.delete(e.key);
      }
      break;
    case 'recovery_summary':
      if (own) for (const k of [...e.orphans, ...(e.more_orphans ?? [])]) h.reportedOrphans.add(k);
      break;
    case 'mass_stall':
      if (own) h.lastMassStall = [...e.task_ids].sort().join(',');
      break;
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
    }
  }
  const kind = verdictOfEvent(e.event);
  if (own && kind && 'task_id' in e) h.lastLogged.set(String(e.task_id), kind);
  return h;
}

/** Fold a whole log. */
export function foldHistory(events: readonly DispatchEvent[], epicId: string): History {
  const h = emptyHistory();
  for (const e of events) foldEvent(h, e, epicId);
  return h;
}

/** Task ids that already have an action under way or done (never acted on again). */
export function actedTaskIds(h: History): Set<string> {
  return new Set([...h.actions.values()].map((r) => r.started.task_id));
}
