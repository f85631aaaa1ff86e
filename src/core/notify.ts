// Which dispatch-log events a webhook hears about, the idempotency key and message of each, and the
// body POSTed for it (docs/fleet.md "Notifications"). Pure: events in, a notify_started body and
// JSON text out; the shell (act/notify/) journals and sends.
import { toJson, toSlack } from '../present/sinks.js';
import type { DispatchEvent, EventOf } from '../contracts/events.js';
import type { NotifyFormat, NotifyTrigger } from '../contracts/vocabulary.js';

/** A notify_started line before the journal stamps it (its fields spelt out: EventBody of a loose object keeps only the index signature). */
export type NotificationBody = {
  event: 'notify_started';
  key: string;
  trigger: NotifyTrigger;
  about: string;
  text: string;
  ticket_id?: string;
  task_id?: string;
};
type Started = NotificationBody;

const PREFIX = '[dispatch-watchdog]';

/** `<epic>:notify:<trigger>:<about>`: one notification per thing it is about, whatever restarts happen. */
export const notifyKey = (epicId: string, trigger: NotifyTrigger, about: string) => `${epicId}:notify:${trigger}:${about}`;

const listed = (keys: readonly string[], max = 5) => keys.slice(0, max).join(', ') + (keys.length > max ? ` and ${keys.length - max} more` : '');

function tracker(e: EventOf<'escalated_to_blocked'>): string {
  switch (e.tracker) {
    case 'updated':
      return 'moved to Blocked';
    case 'already_blocked':
      return 'it was already Blocked';
    case 'failed':
      return 'moving it to Blocked FAILED (the watchdog retries); move it by hand';
    default:
      return 'not moved (no LINEAR_API_KEY): move it to Blocked by hand';
  }
}

/** The notification an event calls for, or undefined (not a trigger, not enabled, or a retry of one already told). */
export function notificationFor(e: DispatchEvent, on: ReadonlySet<NotifyTrigger>): Started | undefined {
  const make = (trigger: NotifyTrigger, about: string, text: string, ids: { ticket_id?: string; task_id?: string } = {}): Started | undefined =>
    on.has(trigger) ? { event: 'notify_started', key: notifyKey(e.epic_id, trigger, about), trigger, about, text: `${PREFIX} ${text}`, ...ids } : undefined;
  switch (e.event) {
    case 'escalated_to_blocked':
      // A retried tracker step is the same escalation: told once.
      if (e.is_retry || !e.key) return undefined;
      return make(
        'escalation',
        e.key,
        `${e.ticket_id} (epic ${e.epic_id}) escalated after ${e.attempt_count} stall(s): ${tracker(e)}. Friction note: ${e.friction_path}`,
        { ticket_id: e.ticket_id, task_id: e.task_id },
      );
    case 'request_unanswered':
      return make(
        'unanswered_request',
        e.key,
        `the ${e.kind} request for ${e.task_id} (${e.ticket_id}, epic ${e.epic_id}) was not answered by ${e.answer_by}${e.kind === 'redispatch' ? ' (counted as a failed attempt)' : ''}. Key: ${e.key}`,
        { ticket_id: e.ticket_id, task_id: e.task_id },
      );
    case 'recovery_summary': {
      if (e.orphan_count === 0) return undefined;
      const keys = [...e.orphans, ...(e.more_orphans ?? [])];
      // One start-up reports its orphans once: the run names the set.
      return make(
        'orphan',
        `recovery@${e.run_id}`,
        `epic ${e.epic_id}: ${e.orphan_count} action(s) a crash left undecided, never re-fired: ${listed(keys)}. Check each by hand${e.friction_path ? ` (friction note ${e.friction_path})` : ''}.`,
      );
    }
    case 'mass_stall': {
      const episode = e.episode_started_at ?? e.timestamp_utc;
      return make(
        'mass_stall',
        `episode@${episode}`,
        `epic ${e.epic_id}: ${e.stalled} of ${e.in_flight} tasks stalled at once (${listed(e.task_ids)}); cancels and redispatches are held: the host or the model provider is likely in trouble.`,
      );
    }
    case 'attention_needed':
      if (e.kind !== 'human_wait') return undefined;
      return make('human_wait', e.key, `${e.task_id} (${e.ticket_id}, epic ${e.epic_id}) waits on a person: ${e.reason}`, {
        ticket_id: e.ticket_id,
        task_id: e.task_id,
      });
    default:
      return undefined;
  }
}

/** The JSON text POSTed for a notification: the same bytes on every attempt and after a restart (all of it comes from its journal line). */
export function renderNotifyBody(n: EventOf<'notify_started'>, format: NotifyFormat): string {
  // Slack mrkdwn escaped where the text leaves (no <!channel>, no disguised link); JSON with C1 and bidi escaped.
  if (format === 'slack') return toJson({ text: toSlack(n.text) });
  return toJson({
    source: 'dispatch-watchdog',
    trigger: n.trigger,
    key: n.key,
    epic_id: n.epic_id,
    ...(n.ticket_id ? { ticket_id: n.ticket_id } : {}),
    ...(n.task_id ? { task_id: n.task_id } : {}),
    about: n.about,
    text: n.text,
    at: n.timestamp_utc,
  });
}
