// Human-readable renderings of a check: the status table and one-line event summaries. Pure.
import type { DispatchEvent } from '../contracts/events.js';
import { SEED_WRITER, type WatchdogJson } from '../contracts/watchdog-json.js';
import { safeText } from '../present/safe-text.js';
import { ADAPTER_TRAITS, type AdapterName } from '../contracts/vocabulary.js';

export const fmtSecs = (s: number | null | undefined) => {
  if (s === null || s === undefined || !Number.isFinite(s)) return '-';
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
};

/**
 * `75s / 2m00s`. A stall is strictly past its window, so a stalled task whose whole seconds read no
 * more than the window says so: `>4s / 4s`, never `4s / 4s`.
 */
export function idleWindowCell(idleSeconds: number | null, windowSeconds: number, isStalled: boolean): string {
  if (idleSeconds === null) return '-';
  return `${isStalled && idleSeconds <= windowSeconds ? `>${fmtSecs(windowSeconds)}` : fmtSecs(idleSeconds)} / ${fmtSecs(windowSeconds)}`;
}

/** Cut `s` to `n` characters with an ellipsis; whitespace runs (newlines too) become one space unless told not to. */
export function cut(s: string, n: number, isFlattened = true): string {
  const flat = isFlattened ? s.replace(/\s+/g, ' ') : s;
  return flat.length <= n ? flat : n <= 1 ? flat.slice(0, n) : flat.slice(0, n - 1) + '…';
}

/** Longest reason shown in a table; --json has it whole. */
export const MAX_REASON_CHARS = 100;

/** Lay out rows as aligned columns; the last column is not padded. */
export function renderTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/**
 * Which agent CLI versions the rows run, as their own records say (`agent_version`), most rows
 * first: the rules that differ by version (docs/claude-code.md) are read from it. Empty when no
 * row says.
 */
export function agentVersionsLine(doc: WatchdogJson): string {
  const counts = new Map<string, number>();
  for (const t of doc.tasks) if (t.agent_version) counts.set(t.agent_version, (counts.get(t.agent_version) ?? 0) + 1);
  if (counts.size === 0) return '';
  const parts = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([v, n]) => `${safeText(v)} (${n} ${n === 1 ? 'row' : 'rows'})`);
  return `agent versions: ${parts.join(', ')}\n`;
}

/** The `status` table of one watchdog.json: task, ticket, verdict, idle vs window, exemptions, reason. */
export function renderStatus(doc: WatchdogJson, live: { ageSeconds?: number; watcher?: string; columns?: number } = {}): string {
  const s = doc.summary;
  const age = live.ageSeconds === undefined ? '' : ` (${fmtSecs(live.ageSeconds)} ago)`;
  const policy =
    doc.watchdog.version === SEED_WRITER
      ? 'written by the onex skill (no action or window recorded)'
      : `action ${doc.watchdog.action}  base window ${fmtSecs(doc.watchdog.timeout_seconds)}`;
  const head =
    `epic ${doc.epic_id}  checked ${doc.check_timestamp}${doc.watchdog.evaluated_at_override ? ' (--now)' : age}  ` +
    `${policy}${live.watcher ? `  ${live.watcher}` : ''}\n` +
    agentVersionsLine(doc);
  const rows = doc.tasks.map((t) =>
    [
      t.task_id,
      t.ticket_id,
      t.verdict === 'stalled' ? 'STALLED' : t.verdict,
      idleWindowCell(t.idle_seconds, t.effective_timeout_seconds, t.verdict === 'stalled'),
      t.exemptions.join(',') || '-',
      t.reason,
    ].map((cell) => safeText(cell)),
  ); // a reason quotes the row (its status) and the agent (its last call)
  const header = ['TASK', 'TICKET', 'VERDICT', 'IDLE / WINDOW', 'EXEMPTIONS', 'REASON'];
  // A reason can run to hundreds of characters (an unknown row quotes what it could not read): cut it
  // to the terminal when we know its width, else to MAX_REASON_CHARS.
  const others = header
    .slice(0, -1)
    .map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)) + 2)
    .reduce((a, b) => a + b, 0);
  const room = live.columns ? Math.max(20, live.columns - 1 - others) : MAX_REASON_CHARS;
  for (const r of rows) r[5] = cut(r[5]!, Math.min(room, MAX_REASON_CHARS));
  const table = renderTable(header, rows);
  const actions = doc.stalls_detected
    .map(
      (st) =>
        `  ${st.task_id} (${st.ticket_id}): ${st.action_taken}${st.recovery_task_id ? ` -> ${st.recovery_task_id}` : ''}, attempt ${st.redispatch_attempt}`,
    )
    .join('\n');
  const counts = [
    `${s.total_tasks} tasks`,
    `${s.healthy} healthy`,
    `${s.stalled} stalled`,
    `${s.blocked} blocked`,
    s.waiting_human ? `${s.waiting_human} waiting on a human` : '',
    s.looping ? `${s.looping} looping` : '',
    s.inconsistent ? `${s.inconsistent} inconsistent` : '',
    s.unknown ? `${s.unknown} unknown` : '',
    `${s.terminal} done`,
    s.redispatched ? `${s.redispatched} redispatched` : '',
    s.cancelled ? `${s.cancelled} cancelled` : '',
    s.escalated ? `${s.escalated} escalated` : '',
    s.pending_requests ? `${s.pending_requests} requests pending` : '',
    s.unanswered_requests ? `${s.unanswered_requests} requests unanswered` : '',
  ].filter(Boolean);
  const requests = (doc.requests ?? [])
    .map(
      (r) =>
        `  ${r.status === 'unanswered' ? 'UNANSWERED' : 'pending'} ${r.kind} ${r.task_id} (${r.ticket_id})${r.recovery_task_id ? ` -> ${r.recovery_task_id}` : ''}, answer by ${r.answer_by}: ${r.path}`,
    )
    .join('\n');
  return (
    head +
    table +
    (actions ? `stalls:\n${actions}\n` : '') +
    (requests ? `requests to the orchestrator:\n${requests}\n` : '') +
    counts.join(', ') +
    (doc.watchdog.mass_stall ? '  [circuit breaker open: no actions]' : '') +
    '\n'
  );
}

/** Adapters that ask someone else (the orchestrator, the teammate) to act, rather than act themselves. */
const isRequestOnly = (adapter: string | undefined) =>
  adapter !== undefined && Object.hasOwn(ADAPTER_TRAITS, adapter) && ADAPTER_TRAITS[adapter as AdapterName].isRequestOnly;

/** One line per logged event, for the loop's live output: what it quotes from files made safe to print. */
export function renderEvent(e: DispatchEvent): string {
  return safeText(eventText(e));
}

function eventText(e: DispatchEvent): string {
  const t = e.timestamp_utc.slice(11, 19);
  const who = 'task_id' in e ? `${String(e.task_id)} (${String(e.ticket_id)})` : '';
  switch (e.event) {
    case 'healthy':
      return `${t} ${who} healthy${e.recovered ? ' again' : ''}, idle ${fmtSecs(e.idle_seconds)}`;
    case 'stall_detected':
      return `${t} ${who} STALLED: ${e.reason ?? e.stall_reason} -> ${e.action_taken}`;
    case 'truth_inconsistent':
    case 'looping_detected':
    case 'waiting_human':
    case 'task_unknown':
      return `${t} ${who} ${e.event.replace('_detected', '').replace('truth_', '').replace('task_', '')}: ${e.reason}`;
    case 'input_error':
      return `${t} input error: ${e.message}`;
    case 'mass_stall_ended':
      return `${t} circuit breaker closed after ${fmtSecs(e.held_seconds)}`;
    case 'mass_stall_escalated':
      return `${t} circuit breaker held actions for ${fmtSecs(e.held_seconds)}: ESCALATED (friction note ${e.friction_path}); acting on stalls again`;
    case 'mass_stall':
      return `${t} circuit breaker: ${e.stalled} of ${e.in_flight} tasks stalled at once; holding actions (host starved?)`;
    case 'action_started':
      return `${t} ${who} ${e.action} started (key ${e.key})`;
    case 'agent_killed':
      return `${t} ${who} ${isRequestOnly(e.adapter) ? 'stop requested' : 'agent stopped'}${e.was_forced ? ' (SIGKILL)' : ''}${e.detail ? `: ${e.detail}` : ''}`;
    case 'redispatch': {
      const what =
        e.mode === 'resume'
          ? isRequestOnly(e.adapter)
            ? 'resume requested'
            : 'session resumed'
          : isRequestOnly(e.adapter)
            ? 'replacement requested'
            : 'redispatched';
      return `${t} ${who} ${what} as ${e.recovery_task_id} (attempt ${e.redispatch_attempt})${e.pid ? `, pid ${e.pid}` : ''}`;
    }
    case 'nudge_sent':
      return `${t} ${who} nudge ${e.request_path ? 'requested' : 'sent'} (${e.route}); key ${e.key}`;
    case 'reconcile_requested':
      return `${t} ${who} RECONCILE requested (${e.disagreement}): ${e.detail}; key ${e.key}`;
    case 'attention_needed':
      return `${t} ${who} ATTENTION (${e.kind}): ${e.reason}`;
    case 'escalated_to_blocked': {
      const tracker =
        e.tracker === 'updated'
          ? 'moved to Blocked'
          : e.tracker === 'already_blocked'
            ? 'already Blocked'
            : e.tracker === 'failed'
              ? `moving to Blocked FAILED (${e.tracker_detail ?? 'see the log'})`
              : 'ticket not moved (no LINEAR_API_KEY): move it to Blocked by hand';
      return `${t} ${who} escalated after ${e.attempt_count} stalls: ${tracker}; friction note ${e.friction_path}`;
    }
    case 'action_failed':
      return `${t} ${who} ${e.action} FAILED: ${e.error}${e.retryable ? ' (a retry could succeed; not retried automatically)' : ''}`;
    case 'recovery_summary':
      return `${t} start-up recovery: ${e.done.length} done, ${e.finished.length} finished, ${e.orphan_count} orphaned`;
    case 'state_rows_lost': {
      const what = [e.vanished.length ? `${e.vanished.join(', ')} vanished` : '', ...e.fields_lost.map((f) => `${f.task_id} lost ${f.fields.join(', ')}`)]
        .filter(Boolean)
        .join('; ');
      return `${t} state file ${e.is_confirmed ? 'changed' : 'read torn mid-write (ignored)'}: ${what}`;
    }
    case 'watchdog_started':
      return `${t} watching epic ${e.epic_id} (action ${e.action}, window ${e.timeout_seconds}s, pid ${e.pid})`;
    case 'watchdog_stopped':
      return `${t} stopped: ${e.reason}${e.signal ? ` (${e.signal})` : ''}`;
    case 'request_answered':
      return `${t} ${who} ${e.kind} request answered (${e.how}${e.answered_by_task_id ? ` by ${e.answered_by_task_id}` : ''}); key ${e.key}`;
    case 'request_unanswered':
      return `${t} ${who} ${e.kind} request UNANSWERED by ${e.answer_by}${e.kind === 'redispatch' ? ': counted as a failed attempt' : ''}; key ${e.key}`;
    case 'next_returned':
      return `${t} next returned ${e.reason} (exit ${e.exit_code}): ${e.requests.length} new requests, ${e.unanswered.length} unanswered, ${e.escalations.length} escalations${e.attention?.length ? `, ${e.attention.length} for attention` : ''}`;
    case 'notify_started':
      return `${t} notifying (${e.trigger}): ${e.text}`;
    case 'notify_sent':
      return `${t} notification sent (${e.status}, ${e.attempts} attempt${e.attempts === 1 ? '' : 's'}); key ${e.key}`;
    case 'notify_failed':
      return `${t} notification ${e.is_orphan ? 'ORPHANED' : 'FAILED'}: ${e.error}; key ${e.key}`;
  }
}
