// The `next` document (contracts/next.ts): built from a check's news, the log and the request
// files, and rendered for a terminal. Split out of commands/next.ts, which runs and registers `next`.
import path from 'node:path';
import { NEXT_EXIT, type NextDoc } from '../contracts/next.js';
import { msToIso } from '../contracts/time.js';
import type { History, RequestRecord } from '../core/history.js';
import { ATTENTION_WHAT_TO_DO, nextReason, type NextNews } from '../core/next.js';
import { escalationNoticeFile } from '../act/recovery/escalation-notice.js';
import type { StatePaths } from '../files/paths.js';
import { readOwnFile } from '../files/atomic-write.js';
import { ancestry } from '../sys/proc-identity.js';
import { toTerminal } from '../present/sinks.js';
import { InputError } from '../contracts/errors.js';
import type { TrackerOutcomeKind, VerdictKind } from '../contracts/vocabulary.js';
import type { StatusClass } from '../contracts/state-file.js';

/** What the document needs of the wave: each instance's verdict and status class (a check's result, or another watchdog's watchdog.json). */
export interface WaveFacts {
  isWaveDone: boolean;
  verdicts: readonly { kind: VerdictKind; taskId: string; ticketId: string }[];
  tasks: readonly { taskId: string; statusClass: StatusClass }[];
}

/** The request as its file says (the orchestrator may have deleted it: then what the log knows); a link in its place is refused. */
async function requestObject(paths: StatePaths, epicId: string, r: RequestRecord): Promise<NextDoc['requests'][number]> {
  const file = path.join(paths.root, r.path);
  try {
    const json = JSON.parse(await readOwnFile(file)) as NextDoc['requests'][number];
    // Never hand the lead its own pid (or its shell's) to kill: a request written by another watchdog
    // process (`serve`) was checked against that process's ancestors, not ours.
    if (typeof json.pid === 'number' && (json.pid <= 1 || (await ancestry()).includes(json.pid))) {
      const { pid, ...rest } = json;
      return {
        ...rest,
        pid_withheld: `pid ${pid} is ${pid <= 1 ? 'not an agent' : 'an ancestor of this `next` (the lead, or the shell that runs it)'}, not the agent: do not kill it`,
        path: r.path,
      };
    }
    return { ...json, path: r.path };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new InputError(
        'unsafe_state_path',
        `refusing to follow the symlink ${file}: the watchdog wrote this request file itself, and never prints what a link in its place points to.`,
        {
          hint: 'Remove the link: the request is in the dispatch log, and next prints it from there once the file is gone.',
        },
      );
    }
    return {
      schema_version: '1',
      kind: r.kind,
      key: r.key,
      epic_id: epicId,
      task_id: r.taskId,
      ticket_id: r.ticketId,
      created_at: msToIso(r.createdAtMs),
      answer_by: msToIso(r.answerByMs),
      ...(r.recoveryTaskId ? { recovery_task_id: r.recoveryTaskId, redispatch_attempt: r.attempt } : {}),
      path: r.path,
    };
  }
}

/** The whole `next` document. */
export async function buildNextDoc(paths: StatePaths, epicId: string, news: NextNews, history: History, r: WaveFacts, isMaxWait = false): Promise<NextDoc> {
  const reason = nextReason(news, r.isWaveDone) ?? (isMaxWait ? 'max_wait' : 'wave_complete');
  // A replacement our command launched elsewhere waits for its row, not for an answer of yours.
  const pending = [...history.requests.values()].filter((q) => q.status === 'pending' && !q.isLaunched);
  return {
    schema_version: '1',
    epic_id: epicId,
    reason,
    exit_code: NEXT_EXIT[reason],
    requests: await Promise.all(news.requests.map((q) => requestObject(paths, epicId, q))),
    unanswered: news.unanswered.map((q) => ({
      key: q.key,
      kind: q.kind,
      task_id: q.taskId,
      ticket_id: q.ticketId,
      ...(q.recoveryTaskId ? { recovery_task_id: q.recoveryTaskId } : {}),
      answer_by: msToIso(q.answerByMs),
    })),
    escalations: news.escalations.map((e) => ({
      key: e.key!,
      ticket_id: e.ticket_id,
      task_id: e.task_id,
      friction_path: e.friction_path,
      tracker: e.tracker ?? 'skipped',
      notice_path: paths.relative(escalationNoticeFile(paths, epicId, e.key!)),
    })),
    attention: news.attention.map((a) => ({
      key: a.key,
      kind: a.kind,
      ...(a.taskId ? { task_id: a.taskId } : {}),
      ...(a.ticketId ? { ticket_id: a.ticketId } : {}),
      ...(a.sinceMs !== undefined ? { since: msToIso(a.sinceMs) } : {}),
      detail: a.detail,
      what_to_do: ATTENTION_WHAT_TO_DO[a.kind],
    })),
    pending: pending.map((q) => ({ key: q.key, kind: q.kind, task_id: q.taskId, answer_by: msToIso(q.answerByMs), path: q.path })),
    wave: { ...waveCounts(r, history), pending_requests: pending.length },
  };
}

/**
 * The wave's instances as the facts say: an escalated ticket is blocked even while its row still
 * says in progress (the orchestrator blocks it after reading this), and a row whose status the
 * watchdog does not know is counted apart, never as in flight.
 */
export function waveCounts(r: Pick<WaveFacts, 'verdicts' | 'tasks'>, history: Pick<History, 'escalations'>): Omit<NextDoc['wave'], 'pending_requests'> {
  const escalated = new Set([...history.escalations.values()].map((e) => e.ticket_id));
  const isUnknownStatus = new Set(r.tasks.filter((t) => t.statusClass === 'unknown').map((t) => t.taskId));
  const counts = { in_flight: 0, terminal: 0, blocked: 0, unknown_status: 0 };
  for (const v of r.verdicts) {
    if (v.kind === 'terminal') counts.terminal++;
    else if (v.kind === 'blocked' || escalated.has(v.ticketId)) counts.blocked++;
    else if (isUnknownStatus.has(v.taskId)) counts.unknown_status++;
    else counts.in_flight++;
  }
  return counts;
}

/** What the tracker did, in the words of the escalation line (a skipped tracker never moved the ticket). */
const TRACKER_SAYS: Record<string, string> = {
  updated: 'moved to Blocked in the tracker',
  already_blocked: 'already Blocked in the tracker',
  skipped: 'tracker skipped: the ticket was not moved',
  failed: 'the tracker refused: the ticket was not moved',
} satisfies Record<TrackerOutcomeKind, string>;

/** One line per item: each request with its file and the exact thing to do. */
export function renderNextDoc(doc: NextDoc): string {
  const lines: string[] = [];
  for (const q of doc.requests) {
    // A replacement never started has no agent: the one to stop is the agent still in its row.
    const who = q.stop_task_id
      ? `${q.stop_task_id} (${q.ticket_id})${q.stop_row_task_id && q.stop_row_task_id !== q.stop_task_id ? ` in row ${q.stop_row_task_id}` : ''} if it still runs (${q.task_id} was never started)`
      : `${q.task_id} (${q.ticket_id})${q.row_task_id ? ` in row ${q.row_task_id}` : ''}`;
    const what =
      q.kind === 'redispatch'
        ? `stop ${who}, launch ${q.recovery_task_id} with the prompt in the file`
        : q.kind === 'resume'
          ? `stop ${who}, resume its session ${q.session_id ?? '(none known: launch a fresh agent)'} with the resume_prompt in the file`
          : q.kind === 'nudge'
            ? `nudge ${who} (${q.route ?? 'resume'}) with the message in the file; do not stop it`
            : q.kind === 'reconcile'
              ? `make row ${q.row_task_id ?? q.task_id} say the truth (${q.disagreement ?? 'disagreement'}: ${q.what_disagrees ?? ''})`
              : `stop ${who}`;
    // Why last: a give-up reads `failed: context_exhausted, …`, a silence `stalled: inactivity, idle 240s`.
    const why = (q.reason ? ` Why: ${q.reason}.` : '') + (q.pid_withheld ? ` No pid given: ${q.pid_withheld}.` : '');
    lines.push(
      `request ${q.kind} ${q.key}: ${what}; file ${q.path}; answer by ${q.answer_by ?? '-'}: ${q.how_to_answer ?? `dispatch-watchdog ack ${q.key}`}${why}`,
    );
  }
  for (const u of doc.unanswered) {
    lines.push(
      `unanswered ${u.kind} ${u.key}: ${u.task_id} (${u.ticket_id}) was not answered by ${u.answer_by}${u.kind === 'redispatch' ? '; counted as a failed attempt' : ''}`,
    );
  }
  for (const e of doc.escalations) {
    lines.push(
      `escalation ${e.key}: ${e.ticket_id} escalated (${TRACKER_SAYS[e.tracker] ?? `tracker ${e.tracker}`}); stop its agents that still run, set its rows to blocked, do not redispatch it; ` +
        `friction note ${e.friction_path}; notice ${e.notice_path}; needs no answer`,
    );
  }
  for (const a of doc.attention) lines.push(`attention ${a.kind} ${a.key}: ${a.detail}. ${a.what_to_do}`);
  const fresh = new Set(doc.requests.map((q) => q.key));
  for (const p of doc.pending)
    if (!fresh.has(p.key)) lines.push(`pending ${p.kind} ${p.key}: still waiting for your answer (by ${p.answer_by}); file ${p.path}`);
  const w = doc.wave;
  const unknown = w.unknown_status ? `, ${w.unknown_status} with an unknown status (NOT watched)` : '';
  lines.push(`wave ${doc.epic_id}: ${w.in_flight} in flight, ${w.terminal} terminal, ${w.blocked} blocked${unknown}, ${w.pending_requests} requests pending`);
  const then =
    doc.reason === 'wave_complete'
      ? ': the watchdog is done'
      : doc.reason === 'max_wait'
        ? ': nothing needed you within --max-wait; run next again to keep waiting'
        : ': carry these out, then run next again';
  lines.push(`next: ${doc.reason} (exit ${doc.exit_code})${then}`);
  // A row's free text (a status, an agent's words) leaves here: each line escaped, so none can forge another or drive the terminal.
  return lines.map((l) => toTerminal(l)).join('\n') + '\n';
}
