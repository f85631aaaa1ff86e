// The watchdog's own telemetry as plain data (docs/fleet.md "Telemetry out"): each dispatch-log
// event as a log record's severity and attributes, and the figures it adds to (stalls, actions,
// detection latency). Pure: events in, records out; act/telemetry/ hands them to the OTel SDK.
import { OUTCOME_EVENT_OF, type DispatchEvent } from '../contracts/events.js';
import type { ActionKind } from '../contracts/vocabulary.js';

export type Severity = 'info' | 'warn' | 'error';
export type AttributeValue = string | number | boolean | string[];

const WARN = new Set([
  'stall_detected',
  'mass_stall',
  'request_unanswered',
  'attention_needed',
  'looping_detected',
  'waiting_human',
  'task_unknown',
  'truth_inconsistent',
  'state_rows_lost',
  'escalated_to_blocked',
  'mass_stall_escalated',
  'input_error',
  'reconcile_requested',
]);
const ERROR = new Set(['action_failed', 'notify_failed']);

/** How loud an event is as a log record. */
export function eventSeverity(e: DispatchEvent): Severity {
  if (ERROR.has(e.event) || (e.event === 'recovery_summary' && e.orphan_count > 0)) return 'error';
  return WARN.has(e.event) ? 'warn' : 'info';
}

/** An event's fields as log attributes: scalars and string lists as they are, anything else as JSON text; the envelope's time is the record's own. */
export function eventAttributes(e: DispatchEvent): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [k, v] of Object.entries(e)) {
    if (k === 'timestamp_utc' || v === undefined || v === null) continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v as string[];
    else out[k] = JSON.stringify(v);
  }
  return out;
}

const ACTION_OF_OUTCOME = new Map<string, ActionKind>((Object.entries(OUTCOME_EVENT_OF) as [ActionKind, string][]).map(([a, ev]) => [ev, a]));

/** What an event adds to the figures: a stall, an action's start or end, a detection latency. */
export interface EventFigures {
  stall?: { stall_reason: string };
  action?: { action: string; outcome: 'started' | 'done' | 'failed' };
  /** How long past its window the stall was seen: idle − effective window, in seconds. */
  detectionLatencySeconds?: number;
}

export function eventFigures(e: DispatchEvent): EventFigures {
  switch (e.event) {
    case 'stall_detected':
      return {
        stall: { stall_reason: e.stall_reason },
        ...(e.effective_timeout_seconds !== undefined ? { detectionLatencySeconds: Math.max(0, e.idle_seconds - e.effective_timeout_seconds) } : {}),
      };
    case 'action_started':
      return { action: { action: e.action, outcome: 'started' } };
    case 'action_failed':
      return { action: { action: e.action, outcome: 'failed' } };
    default: {
      const action = ACTION_OF_OUTCOME.get(e.event);
      // A tracker retry's second escalated_to_blocked line finishes nothing new; a stop before a
      // redispatch or an escalation is a step of that action, not a cancel.
      if (!action || (e.event === 'escalated_to_blocked' && e.is_retry) || (e.event === 'agent_killed' && e.step !== undefined && e.step !== 'cancel'))
        return {};
      return { action: { action, outcome: 'done' } };
    }
  }
}
