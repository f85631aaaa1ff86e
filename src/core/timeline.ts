// The wave as lanes over time (`dispatch-watchdog timeline`): one lane per task instance, with the
// moments the agent made progress and what the watchdog logged about it. Built only from the
// dispatch log and recorded activity times (transcripts, hook lines, rows), never from guesses: a
// lane's end is the last thing known of it. Pure: the shell reads the files and passes the time.
import type { DispatchEvent } from '../contracts/events.js';
import type { TimelineMarkKind } from '../contracts/vocabulary.js';

/** One moment on a lane. */
export interface TimelineMark {
  kind: TimelineMarkKind;
  atMs: number;
  /** What the log said, for a tooltip. */
  text: string;
}

/** One task instance (`t1`, its replacement `t1-r1`, …). */
export interface TimelineLane {
  taskId: string;
  ticketId: string;
  /** The instance it replaces (`t1` for `t1-r1`). */
  replaces?: string;
  startMs: number;
  /** When it was known to end (redispatched, escalated, cancelled, or its last record when the row is done), else undefined (in flight: drawn to the picture's end). */
  endMs?: number;
  /** Progress times (tool calls, results, hook events), sorted. */
  activityMs: number[];
  marks: TimelineMark[];
  /** `done (completed)`, `in flight`, `replaced by t1-r1`, `escalated`, … */
  outcome: string;
}

export interface Timeline {
  epicId: string;
  startMs: number;
  endMs: number;
  lanes: TimelineLane[];
  /** Circuit-breaker moments (a whole wave held at once). */
  massStallsMs: number[];
  summary: WaveSummary;
}

/** What a wave went through, in counts (the timeline's footer and the loop's closing summary). */
export interface WaveSummary {
  stalls: number;
  redispatches: number;
  cancels: number;
  escalations: number;
  /** Escalations whose tracker step was skipped (no LINEAR_API_KEY): not moved to Blocked. */
  trackerSkipped: number;
  requestsAnswered: number;
  requestsUnanswered: number;
  waitingHuman: number;
  massStalls: number;
  /** How long past its window each stall was seen, in ms (detection latency), in log order. */
  detectLagMs: number[];
}

/** A row of the state file as the timeline needs it. */
export interface TimelineRow {
  taskId: string;
  ticketId: string;
  status: string;
  statusClass: 'in_flight' | 'terminal' | 'blocked' | 'unknown';
  dispatchedAtMs?: number;
}

export interface TimelineInput {
  epicId: string;
  /** This epic's events, oldest first. */
  events: readonly DispatchEvent[];
  rows: readonly TimelineRow[];
  /** Task id → recorded progress times. */
  activity: ReadonlyMap<string, readonly number[]>;
  /** When the watchdog last checked the wave (watchdog.json), if it did. */
  lastCheckMs?: number;
  /** Used only when nothing at all was recorded. */
  nowMs: number;
}

/** Count what the log says happened (retried tracker lines are one escalation). */
export function summarizeWave(events: readonly DispatchEvent[]): WaveSummary {
  const s: WaveSummary = {
    stalls: 0,
    redispatches: 0,
    cancels: 0,
    escalations: 0,
    trackerSkipped: 0,
    requestsAnswered: 0,
    requestsUnanswered: 0,
    waitingHuman: 0,
    massStalls: 0,
    detectLagMs: [],
  };
  for (const e of events) {
    if (e.event === 'stall_detected') {
      s.stalls++;
      if (e.effective_timeout_seconds !== undefined && e.stall_reason !== 'request_unanswered')
        s.detectLagMs.push(Math.max(0, Math.round((e.idle_seconds - e.effective_timeout_seconds) * 1000)));
    } else if (e.event === 'redispatch') s.redispatches++;
    else if (e.event === 'agent_killed' && e.step === 'cancel') s.cancels++;
    else if (e.event === 'escalated_to_blocked' && !e.is_retry) {
      s.escalations++;
      if ((e.tracker ?? 'skipped') === 'skipped') s.trackerSkipped++;
    } else if (e.event === 'request_answered') s.requestsAnswered++;
    else if (e.event === 'request_unanswered') s.requestsUnanswered++;
    else if (e.event === 'waiting_human') s.waitingHuman++;
    else if (e.event === 'mass_stall') s.massStalls++;
  }
  return s;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `3 stalls, 2 redispatches, 1 escalation (tracker skipped), 1 request answered; seen 0.4–1.2 s past the window`. */
export function summaryLine(s: WaveSummary): string {
  const parts = [
    plural(s.stalls, 'stall'),
    plural(s.redispatches, 'redispatch', 'redispatches'),
    s.cancels ? plural(s.cancels, 'cancel') : '',
    plural(s.escalations, 'escalation') +
      (s.trackerSkipped ? ` (tracker skipped${s.trackerSkipped < s.escalations ? ` for ${s.trackerSkipped}` : ''}: not moved to Blocked)` : ''),
    plural(s.requestsAnswered, 'request') + ' answered',
    s.requestsUnanswered ? `${s.requestsUnanswered} unanswered` : '',
    s.waitingHuman ? `${s.waitingHuman} human wait${s.waitingHuman === 1 ? '' : 's'}` : '',
    s.massStalls ? plural(s.massStalls, 'mass stall') : '',
  ].filter(Boolean);
  const lag = s.detectLagMs;
  const secs = (ms: number) => (ms / 1000).toFixed(1);
  const detect =
    lag.length === 0
      ? ''
      : `; time to detect: ${Math.min(...lag) === Math.max(...lag) ? secs(lag[0]!) : `${secs(Math.min(...lag))}–${secs(Math.max(...lag))}`} s past the window`;
  return parts.join(', ') + detect;
}

/** Lanes in dispatch order, each replacement right under the instance it replaces. */
export function buildTimeline(input: TimelineInput): Timeline {
  const lanes = new Map<string, TimelineLane>();
  const order: string[] = [];
  const lane = (taskId: string, ticketId: string, atMs: number, replaces?: string): TimelineLane => {
    let l = lanes.get(taskId);
    if (!l) {
      lanes.set(taskId, (l = { taskId, ticketId, startMs: atMs, activityMs: [], marks: [], outcome: 'in flight', ...(replaces ? { replaces } : {}) }));
      order.push(taskId);
    }
    if (atMs < l.startMs) l.startMs = atMs;
    return l;
  };
  for (const r of input.rows) if (r.dispatchedAtMs !== undefined) lane(r.taskId, r.ticketId, r.dispatchedAtMs);
  const mass: number[] = [];
  const mark = (l: TimelineLane, kind: TimelineMarkKind, atMs: number, text: string) => l.marks.push({ kind, atMs, text });
  for (const e of input.events) {
    const at = Date.parse(e.timestamp_utc);
    switch (e.event) {
      case 'healthy':
      case 'stall_detected': {
        const l = lane(e.task_id, e.ticket_id, at);
        // The line says how long the agent had been quiet: its last progress is a fact, unless it never started.
        if (e.event === 'healthy' || e.stall_reason !== 'never_started') l.activityMs.push(at - Math.round(e.idle_seconds * 1000));
        if (e.event === 'stall_detected') mark(l, 'stall', at, `stalled (${e.stall_reason}): ${e.reason ?? ''} -> ${e.action_taken}`);
        break;
      }
      case 'looping_detected':
        mark(lane(e.task_id, e.ticket_id, at), 'looping', at, `looping: ${e.reason}`);
        break;
      case 'waiting_human':
        mark(lane(e.task_id, e.ticket_id, at), 'waiting_human', at, `waiting on a human: ${e.reason}`);
        break;
      case 'task_unknown':
        mark(lane(e.task_id, e.ticket_id, at), 'unknown', at, `cannot judge: ${e.reason}`);
        break;
      case 'truth_inconsistent':
        mark(lane(e.task_id, e.ticket_id, at), 'inconsistent', at, `inconsistent: ${e.reason}`);
        break;
      case 'agent_killed': {
        const l = lane(e.task_id, e.ticket_id, at);
        if (e.step === 'cancel' || e.step === undefined) {
          mark(l, 'cancel', at, e.request_path ? `stop requested (${e.request_path})` : `agent stopped${e.detail ? `: ${e.detail}` : ''}`);
          l.endMs ??= at;
          l.outcome = 'cancelled';
        }
        break;
      }
      case 'redispatch': {
        const l = lane(e.task_id, e.ticket_id, at);
        mark(l, 'redispatch', at, `${e.request_path ? 'replacement requested' : 'redispatched'} as ${e.recovery_task_id} (attempt ${e.redispatch_attempt})`);
        l.endMs ??= at;
        l.outcome = `replaced by ${e.recovery_task_id}`;
        lane(e.recovery_task_id, e.ticket_id, at, e.task_id);
        break;
      }
      case 'escalated_to_blocked': {
        if (e.is_retry) break;
        const l = lane(e.task_id, e.ticket_id, at);
        const tracker = (e.tracker ?? 'skipped') === 'skipped' ? 'tracker skipped: not moved to Blocked' : `tracker ${e.tracker}`;
        mark(l, 'escalated', at, `escalated after ${e.attempt_count} stalls (${tracker}); ${e.friction_path}`);
        l.endMs ??= at;
        l.outcome = (e.tracker ?? 'skipped') === 'skipped' ? 'escalated (tracker skipped)' : 'escalated';
        break;
      }
      case 'request_answered': {
        const target = e.recovery_task_id && lanes.has(e.recovery_task_id) ? e.recovery_task_id : e.task_id;
        mark(lane(target, e.ticket_id, at), 'answered', at, `${e.kind} request answered (${e.how})`);
        break;
      }
      case 'request_unanswered': {
        const target = e.recovery_task_id && lanes.has(e.recovery_task_id) ? e.recovery_task_id : e.task_id;
        mark(lane(target, e.ticket_id, at), 'unanswered', at, `${e.kind} request unanswered by ${e.answer_by}`);
        break;
      }
      case 'mass_stall':
        mass.push(at);
        break;
      default:
        break;
    }
  }
  for (const [taskId, times] of input.activity) {
    const l = lanes.get(taskId);
    if (l) l.activityMs.push(...times);
  }
  const rowOf = new Map(input.rows.map((r) => [r.taskId, r]));
  let startMs = Infinity;
  let endMs = -Infinity;
  for (const l of lanes.values()) {
    l.activityMs.sort((a, b) => a - b);
    l.activityMs = l.activityMs.filter((t, i, a) => i === 0 || t !== a[i - 1]);
    l.marks.sort((a, b) => a.atMs - b.atMs);
    const row = rowOf.get(l.taskId);
    // The row's word is the latest for an instance the log has not ended.
    if (row && l.endMs === undefined)
      l.outcome =
        row.statusClass === 'terminal'
          ? `done (${row.status})`
          : row.statusClass === 'blocked'
            ? 'blocked'
            : row.statusClass === 'unknown'
              ? `status "${row.status}"?`
              : 'in flight';
    if (row?.statusClass === 'terminal' || row?.statusClass === 'blocked')
      l.endMs ??= Math.max(l.startMs, l.activityMs.at(-1) ?? l.startMs, l.marks.at(-1)?.atMs ?? l.startMs);
    startMs = Math.min(startMs, l.startMs, l.activityMs[0] ?? Infinity);
    endMs = Math.max(endMs, l.endMs ?? l.startMs, l.activityMs.at(-1) ?? -Infinity, l.marks.at(-1)?.atMs ?? -Infinity);
  }
  // The picture ends at the last recorded moment (the watchdog's last check included), not at
  // "now": a wave looked at a week later is not a week of silence.
  if (input.lastCheckMs !== undefined && input.lastCheckMs > endMs && [...lanes.values()].some((l) => l.endMs === undefined)) endMs = input.lastCheckMs;
  if (!Number.isFinite(startMs)) startMs = endMs = input.nowMs;
  // Replacements under the instance they replace.
  const placed: TimelineLane[] = [];
  const place = (id: string) => {
    placed.push(lanes.get(id)!);
    for (const child of order.filter((c) => lanes.get(c)!.replaces === id)) place(child);
  };
  for (const id of order) if (!lanes.get(id)!.replaces || !lanes.has(lanes.get(id)!.replaces!)) place(id);
  return { epicId: input.epicId, startMs, endMs: Math.max(endMs, startMs + 1000), lanes: placed, massStallsMs: mass, summary: summarizeWave(input.events) };
}

/** A tick step for an axis `spanMs` long with room for about `maxTicks` labels. */
export function tickStepMs(spanMs: number, maxTicks: number): number {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400].map((s) => s * 1000);
  return steps.find((s) => spanMs / s <= Math.max(1, maxTicks)) ?? steps.at(-1)!;
}

/** `0s`, `30s`, `1m`, `1m30s`, `2h`, `1h30m`: an offset from the wave's start. */
export function offsetLabel(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s / 60}m`;
  const m = Math.round(s / 60);
  return m % 60 ? `${Math.floor(m / 60)}h${m % 60}m` : `${m / 60}h`;
}
