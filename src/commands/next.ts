// `dispatch-watchdog next --epic-id ID [--json]` (DESIGN §8): run the watchdog (same lock, journal
// and checks) until something needs the orchestrator, print it, journal that it was printed, exit
// with the code of the most urgent news. An LLM lead runs it in the background and is woken by its exit.
import path from 'node:path';
import type { CheckResult } from '../check.js';
import { NEXT_EXIT, type NextDoc } from '../contracts/next.js';
import { msToIso } from '../contracts/time.js';
import type { History, RequestRecord } from '../core/history.js';
import { ATTENTION_WHAT_TO_DO, newsOf, nextReason, type NextNews } from '../core/next.js';
import { escalationNoticeFile } from '../act/recovery/escalation-notice.js';
import type { DispatchLog } from '../journal/dispatch-log.js';
import { StatePaths } from '../files/paths.js';
import { readOwnFile } from '../files/atomic-write.js';
import { ancestry } from '../sys/proc-identity.js';
import { toJson, toTerminal } from '../present/sinks.js';
import type { ResolvedOptions } from '../options.js';
import { runWatch, type NextMode, type WatchDeps } from '../watch.js';
import type { Command } from 'commander';
import { parseDurationMs } from '../core/period.js';
import { InputError } from '../contracts/errors.js';
import { EXIT } from '../contracts/exit-codes.js';
import type { TrackerOutcomeKind, VerdictKind } from '../contracts/vocabulary.js';
import type { StatusClass } from '../contracts/state-file.js';
import { followHolder, liveHolder } from './next-follow.js';
import { resolveOptions, type WatchdogFlags } from '../options.js';
import { teach } from '../cli-help.js';
import { configOption, stateDirOption, watchOptions, type CliContext } from './command.js';

type OkResult = Extract<CheckResult, { ok: true }>;

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
      return { ...rest, pid_withheld: `pid ${pid} is ${pid <= 1 ? 'not an agent' : 'an ancestor of this `next` (the lead, or the shell that runs it)'}, not the agent: do not kill it`, path: r.path };
    }
    return { ...json, path: r.path };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new InputError('unsafe_state_path', `refusing to follow the symlink ${file}: the watchdog wrote this request file itself, and never prints what a link in its place points to.`, {
        hint: 'Remove the link: the request is in the dispatch log, and next prints it from there once the file is gone.',
      });
    }
    return {
      schema_version: '1', kind: r.kind, key: r.key, epic_id: epicId, task_id: r.taskId, ticket_id: r.ticketId, created_at: msToIso(r.createdAtMs),
      answer_by: msToIso(r.answerByMs), ...(r.recoveryTaskId ? { recovery_task_id: r.recoveryTaskId, redispatch_attempt: r.attempt } : {}), path: r.path,
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
    unanswered: news.unanswered.map((q) => ({ key: q.key, kind: q.kind, task_id: q.taskId, ticket_id: q.ticketId, ...(q.recoveryTaskId ? { recovery_task_id: q.recoveryTaskId } : {}), answer_by: msToIso(q.answerByMs) })),
    escalations: news.escalations.map((e) => ({
      key: e.key!, ticket_id: e.ticket_id, task_id: e.task_id, friction_path: e.friction_path, tracker: e.tracker ?? 'skipped',
      notice_path: paths.relative(escalationNoticeFile(paths, epicId, e.key!)),
    })),
    attention: news.attention.map((a) => ({
      key: a.key, kind: a.kind, ...(a.taskId ? { task_id: a.taskId } : {}), ...(a.ticketId ? { ticket_id: a.ticketId } : {}),
      ...(a.sinceMs !== undefined ? { since: msToIso(a.sinceMs) } : {}), detail: a.detail, what_to_do: ATTENTION_WHAT_TO_DO[a.kind],
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
    const what = q.kind === 'redispatch'
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
    lines.push(`request ${q.kind} ${q.key}: ${what}; file ${q.path}; answer by ${q.answer_by ?? '-'}: ${q.how_to_answer ?? `dispatch-watchdog ack ${q.key}`}${why}`);
  }
  for (const u of doc.unanswered) {
    lines.push(`unanswered ${u.kind} ${u.key}: ${u.task_id} (${u.ticket_id}) was not answered by ${u.answer_by}${u.kind === 'redispatch' ? '; counted as a failed attempt' : ''}`);
  }
  for (const e of doc.escalations) {
    lines.push(
      `escalation ${e.key}: ${e.ticket_id} escalated (${TRACKER_SAYS[e.tracker] ?? `tracker ${e.tracker}`}); stop its agents that still run, set its rows to blocked, do not redispatch it; ` +
        `friction note ${e.friction_path}; notice ${e.notice_path}; needs no answer`,
    );
  }
  for (const a of doc.attention) lines.push(`attention ${a.kind} ${a.key}: ${a.detail}. ${a.what_to_do}`);
  const fresh = new Set(doc.requests.map((q) => q.key));
  for (const p of doc.pending) if (!fresh.has(p.key)) lines.push(`pending ${p.kind} ${p.key}: still waiting for your answer (by ${p.answer_by}); file ${p.path}`);
  const w = doc.wave;
  const unknown = w.unknown_status ? `, ${w.unknown_status} with an unknown status (NOT watched)` : '';
  lines.push(`wave ${doc.epic_id}: ${w.in_flight} in flight, ${w.terminal} terminal, ${w.blocked} blocked${unknown}, ${w.pending_requests} requests pending`);
  const then = doc.reason === 'wave_complete' ? ': the watchdog is done' : doc.reason === 'max_wait' ? ': nothing needed you within --max-wait; run next again to keep waiting' : ': carry these out, then run next again';
  lines.push(`next: ${doc.reason} (exit ${doc.exit_code})${then}`);
  // A row's free text (a status, an agent's words) leaves here: each line escaped, so none can forge another or drive the terminal.
  return lines.map((l) => toTerminal(l)).join('\n') + '\n';
}

/** The `next` behaviour for runWatch. */
export function nextMode(opts: ResolvedOptions, print: (text: string) => void, maxWaitMs?: number, warn: (text: string) => void = print): NextMode {
  const paths = new StatePaths(opts.stateDir);
  return {
    ...(maxWaitMs !== undefined ? { maxWaitMs } : {}),
    shouldStop: (r, history) => nextReason(newsOf(history), r.isWaveDone) !== undefined,
    async finish(r: OkResult | undefined, history: History, log: DispatchLog, isMaxWait: boolean) {
      if (!r) {
        // --max-wait ran out before any check could read the state file (its problem is on stderr).
        warn(`dispatch-watchdog next: --max-wait passed before the state file could be read once; nothing to report (exit ${NEXT_EXIT.max_wait}).\n`);
        await log.append({ event: 'next_returned', reason: 'max_wait', exit_code: NEXT_EXIT.max_wait, requests: [], unanswered: [], escalations: [] });
        return NEXT_EXIT.max_wait;
      }
      const news = newsOf(history);
      const doc = await buildNextDoc(paths, opts.epicId, news, history, r, isMaxWait);
      print(opts.isJson ? toJson(doc) + '\n' : renderNextDoc(doc));
      // Printed first, journaled second: a crash in between repeats the news rather than lose it.
      await log.append({
        event: 'next_returned', reason: doc.reason, exit_code: doc.exit_code,
        requests: news.requests.map((q) => q.key), unanswered: news.unanswered.map((q) => q.key), escalations: news.escalations.map((e) => e.key!),
        ...(news.attention.length > 0 ? { attention: news.attention.map((a) => a.key) } : {}),
      });
      return doc.exit_code;
    },
  };
}

/**
 * Run `next`; resolves to its exit code. An epic another watchdog holds (`serve`, a standalone
 * loop) is followed, not refused: `next` reports what that watchdog finds (next-follow.ts), and
 * watches the epic itself once that one stops.
 */
export async function runNext(opts: ResolvedOptions, deps: WatchDeps, maxWaitMs?: number): Promise<number> {
  const paths = new StatePaths(opts.stateDir);
  const untilMs = maxWaitMs === undefined ? undefined : deps.clock.nowMs() + maxWaitMs;
  const left = () => (untilMs === undefined ? undefined : Math.max(0, untilMs - deps.clock.nowMs()));
  for (;;) {
    const holder = await liveHolder(paths, opts.epicId, deps.pid);
    if (holder) {
      const makeDoc = async (news: NextNews, history: History, wave: WaveFacts, isMaxWait: boolean) => {
        const doc = await buildNextDoc(paths, opts.epicId, news, history, wave, isMaxWait);
        return { doc, text: opts.isJson ? JSON.stringify(doc) + '\n' : renderNextDoc(doc) };
      };
      const followed = await followHolder(opts, { ...deps, makeDoc }, holder, left());
      if (followed === 'signal') {
        deps.output.err(`dispatch-watchdog next: stopped by a signal before anything needed the orchestrator; run it again.\n`);
        return EXIT.failure;
      }
      if (followed !== 'free') return followed;
    }
    try {
      return await runWatch(opts, deps, nextMode(opts, (t) => deps.output.out(t), left(), (t) => deps.output.err(t)));
    } catch (e) {
      // Taken by another watchdog between the look and the lock: follow that one.
      if (e instanceof InputError && e.code === 'lock_held' && !deps.signal.aborted) continue;
      throw e;
    }
  }
}

export function registerNext(program: Command, { env, setCode, flags: parsers }: CliContext): void {
  const cmd = program
    .command('next')
    .description(
      `watch until the orchestrator must act, print it, exit: ${EXIT.ok} wave complete, ${EXIT.requests} new requests, ${EXIT.unanswered} a request unanswered, ${EXIT.escalation} an escalation, ${EXIT.attention} a person is needed (${EXIT.input} bad input, ${EXIT.failure} failure)`,
    )
    .requiredOption('--epic-id <id>', 'epic to watch');
  configOption(stateDirOption(watchOptions(cmd, parsers)))
    .option('--json', 'print one JSON document (schemas/next.schema.json)')
    .option('--max-wait <duration>', `return after this long even if nothing needs the orchestrator (45s, 10m, 2h), exit ${EXIT.max_wait}`)
    .action(async (flags: WatchdogFlags & { maxWait?: string }) => {
      const maxWaitMs = flags.maxWait === undefined ? undefined : parseDurationMs(flags.maxWait);
      if (flags.maxWait !== undefined && !maxWaitMs) {
        throw new InputError('bad_flag', `--max-wait: expected a duration (45s, 10m, 2h), got ${JSON.stringify(flags.maxWait)}.`, { hint: 'e.g. --max-wait 30m' });
      }
      const opts = await resolveOptions({ ...flags, once: false, dryRun: false }, env.env, env.cwd);
      setCode(await runNext(opts, { ...env.watchDeps, output: env.output }, maxWaitMs));
    });
  teach(cmd, {
    examples: [
      ['dispatch-watchdog next --epic-id PROJ-1000 --json', 'wait until the orchestrator must act, then print one JSON document (schemas/next.schema.json)'],
      ['dispatch-watchdog next --epic-id PROJ-1000 --stall-window 300 --max-wait 30m', `the same, as lines for people, with a 5-minute stall window; back after 30 minutes at most (exit ${EXIT.max_wait})`],
    ],
    exitCodes: [
      ['ok', 'the wave is complete: every row terminal or blocked and no request pending'],
      ['requests', 'new requests to carry out on agents: cancel, redispatch, resume, nudge (then answer each; run next again)'],
      ['unanswered', 'a request passed its answer_by without an answer'],
      ['escalation', 'a ticket was escalated to Blocked (needs no answer)'],
      ['attention', 'a person is needed: a reconcile request, a long human wait, an orphaned action, an unobservable agent, a row whose status is unknown, a stall in report mode'],
      ['max_wait', '--max-wait passed and nothing needed the orchestrator (run next again to keep waiting)'],
      ['input', 'bad input or usage; an epic with no state file (after a short settle: nothing is created for it)'],
      ['failure', 'a failure, or stopped by a signal before anything needed the orchestrator'],
    ],
  });
}
