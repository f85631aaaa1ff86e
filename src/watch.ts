// The main command: take the epic's lock, replay the log, then run one check (--once) or the
// loop, and journal start and stop. Returns the exit code (DESIGN §10).
import { toJson } from './present/sinks.js';
import { safeText } from './present/safe-text.js';
import { randomUUID } from 'node:crypto';
import type { Clock, Output, Terminal } from './deps.js';
import { createWatchView } from './watch-view.js';
import type { DispatchEvent } from './contracts/events.js';
import { newCheckMemory, runCheck, type CheckEnv, type CheckResult } from './check.js';
import { EXIT } from './contracts/exit-codes.js';
import { renderStatus } from './core/format.js';
import { DispatchLog } from './journal/dispatch-log.js';
import { loadHistory, refreshSummary } from './journal/log-summary.js';
import type { History } from './core/history.js';
import { acquireLock, type HeldLock } from './journal/lock.js';
import { guardStateDir, removeStaleTemps, tempFileDirs } from './files/atomic-write.js';
import { isAlive, sampleBootTime } from './sys/proc-identity.js';
import { StatePaths } from './files/paths.js';
import { runLoop } from './loop.js';
import { wakeOnChange } from './journal/watch-file.js';
import type { ResolvedOptions } from './options.js';
import { packageVersion } from './version.js';
import { DEFAULTS } from './contracts/defaults.js';
import { missingEpicError, stateFileAppears } from './observe/read/known-epics.js';
import { formatSeconds } from './act/friction/stall-history.js';
import type { TelemetrySink } from './act/telemetry/telemetry.js';
import { startConfiguredReceiver, type OtlpReceiver } from './receive/otlp-receiver.js';
import type { NextMode, NotifierPort, WatchDeps } from './watch-deps.js';
export type { NextMode, NotifierPort, WatchDeps } from './watch-deps.js';

/** The stderr line for a row the watchdog cannot judge: such an agent is not watched, and says so. */
export function unwatchedLine(taskId: string, ticketId: string, reason: string): string {
  return `dispatch-watchdog: warning: ${taskId} (${ticketId}) cannot be judged: ${safeText(reason)}\n`;
}

/**
 * With --once: a person is needed, as `next` would return attention (13) for it: a row its agent
 * disagrees with whose reconcile request is due or pending, or a human wait past its limit. (A row
 * that cannot be judged keeps its own exit, unwatched.)
 */
function needsPerson(r: Extract<CheckResult, { ok: true }>, h: History): boolean {
  const disagreeing = new Set(r.verdicts.filter((v) => v.kind === 'inconsistent').map((v) => v.taskId));
  return (
    r.plan.actions.some((a) => a.kind === 'reconcile') ||
    r.plan.events.some((e) => e.event === 'attention_needed' && e.kind === 'human_wait') ||
    [...h.requests.values()].some((q) => q.kind === 'reconcile' && q.status === 'pending' && disagreeing.has(q.taskId))
  );
}

function printResult(r: CheckResult, opts: ResolvedOptions, out: Output, terminal?: Terminal) {
  if (!r.ok) return out.err(`dispatch-watchdog: ${r.error.describe()}\n`);
  out.out(opts.isJson ? toJson(r.report) + '\n' : renderStatus(r.report, { columns: terminal?.isTty ? terminal.columns() : undefined }));
}

/** Run the watchdog for one epic. */
export async function runWatch(opts: ResolvedOptions, deps: WatchDeps, next?: NextMode): Promise<number> {
  const paths = new StatePaths(opts.stateDir);
  guardStateDir(paths.root);
  const runId = randomUUID();
  const isReadOnly = opts.isDryRun || opts.nowOverrideMs !== undefined;
  const clock: Clock = opts.nowOverrideMs === undefined ? deps.clock : { ...deps.clock, nowMs: () => opts.nowOverrideMs! };
  const out = deps.output;

  // --dry-run journals nothing for a live view to show: each check is printed whole instead.
  const view =
    !opts.isOnce && !opts.isJson && !next && !isReadOnly
      ? (deps.view ??
        createWatchView(out, {
          epicId: opts.epicId,
          terminal: deps.terminal ?? { isTty: false, hasColor: false, columns: () => undefined },
          heartbeatMs: deps.heartbeatMs,
        }))
      : undefined;
  // A row that cannot be judged is never silent: its event goes to stderr too (once, when it changes).
  // An epic with no state file is refused after a short settle (the orchestrator may be writing it),
  // before anything is created for it: no lock, no log line, no derived files.
  const settleMs = deps.missingEpicSettleMs ?? (opts.isOnce ? 0 : DEFAULTS.fixed.missing_epic_settle_ms);
  const announceWait =
    settleMs > DEFAULTS.fixed.missing_epic_settle_ms
      ? () =>
          out.err(
            `dispatch-watchdog: waiting up to ${formatSeconds(settleMs / 1000)} for ${paths.stateFile(opts.epicId)} (--wait-for-state); the orchestrator writes it when it dispatches a wave.\n`,
          )
      : undefined;
  if (!(await stateFileAppears(paths, opts.epicId, clock, deps.signal, settleMs, announceWait))) {
    if (deps.signal.aborted) return next ? EXIT.failure : EXIT.ok;
    out.err(`dispatch-watchdog: ${(await missingEpicError(paths, opts.epicId)).describe()}\n`);
    return EXIT.input;
  }
  let notifier: NotifierPort | undefined;
  let telemetry: TelemetrySink | undefined;
  const live = (e: DispatchEvent) => {
    view?.event(e);
    notifier?.onAppended(e);
    telemetry?.onEvent(e);
    if (e.event === 'task_unknown' && !opts.isOnce) {
      out.err(unwatchedLine(e.task_id, e.ticket_id, e.reason));
      view?.interrupt();
    }
  };
  // Take the lock before reading the log, so the history includes the previous holder's last line.
  const lock: HeldLock | undefined = isReadOnly
    ? undefined
    : await acquireLock(paths.lockFile(opts.epicId), { pid: deps.pid, run_id: runId, started_at: new Date(clock.nowMs()).toISOString() }, opts.epicId);
  let receiver: OtlpReceiver | undefined;
  try {
    // Read-only runs journal nothing: they have nothing to export either.
    telemetry = lock ? await deps.makeTelemetry?.(out) : undefined;
    const figures = (r: CheckResult) => {
      if (r.ok)
        telemetry?.onCheck({
          epicId: opts.epicId,
          verdicts: r.verdicts.map((v) => v.kind),
          pendingRequests: r.requestDeadlinesMs.length,
          durationMs: clock.nowMs() - r.nowMs,
        });
    };
    // --otlp: the OTLP/HTTP receiver runs beside the loop (a single check has no use for one).
    if (opts.receiver && !opts.isOnce && !isReadOnly)
      receiver = await startConfiguredReceiver(
        opts.receiver,
        paths,
        () => clock.nowMs(),
        (t) => out.err(t),
      );
    if (lock) {
      // Temp files a killed watchdog left (before its rename): ours to clean, now that we hold the lock.
      for (const dir of await tempFileDirs(paths, opts.epicId)) await removeStaleTemps(dir, isAlive);
    }
    const journal = await openJournal(opts, deps, clock, runId, live);
    const history = journal.history;
    const log: DispatchLog | undefined = isReadOnly ? undefined : journal.log;
    const ctx = log ? { paths, opts, log, history, runId } : undefined;
    const env: CheckEnv = {
      paths,
      opts,
      observers: deps.makeObservers?.(paths, opts) ?? [],
      history,
      log,
      performer: ctx && opts.action !== 'report' ? deps.makePerformer?.(ctx) : undefined,
      overlay: deps.makeOverlay?.(opts),
      runId,
      version: packageVersion(),
      pid: deps.pid,
      settle: deps.settle,
    };
    // Before recovery: its recovery_summary may be news for the webhook.
    notifier = ctx ? attachNotifier(deps, ctx, out) : undefined;
    if (ctx && deps.recover) await deps.recover(ctx);

    if (opts.isOnce) {
      const r = await runCheck(env, newCheckMemory(), clock.nowMs());
      figures(r);
      await env.performer?.drain?.();
      await notifier?.drain();
      for (const o of env.observers) await o.flush?.(clock.nowMs());
      printResult(r, opts, out, deps.terminal);
      if (!r.ok) {
        await log?.append({ event: 'input_error', code: r.error.code, message: r.error.describe(), file: r.error.location?.file });
        return EXIT.input;
      }
      // A request gone unanswered is as much a problem as a stall (DESIGN §8); a row that cannot
      // be judged is an agent nobody watches: never "all good".
      const unwatched = r.verdicts.filter((v) => v.kind === 'unknown');
      for (const v of unwatched) out.err(unwatchedLine(v.taskId, v.ticketId, v.reason));
      if (r.hasStall || r.requestEvents.some((e) => e.event === 'request_unanswered') || needsPerson(r, history)) return EXIT.stall;
      return unwatched.length > 0 ? EXIT.unwatched : EXIT.ok;
    }

    // A start time is read against the boot time: seen now, a clock stepped later cannot pass an agent off as a stranger.
    if (env.performer) await sampleBootTime();
    // --dry-run journals nothing: the loop runs on the history as read, and prints each check instead.
    await log?.append({
      event: 'watchdog_started',
      pid: deps.pid,
      version: env.version,
      action: opts.action,
      timeout_seconds: opts.timeoutSeconds,
      check_interval_seconds: opts.checkIntervalSeconds,
      max_redispatches: opts.maxRedispatches,
      adapter: opts.adapter,
    });
    const waker = deps.shouldWatchStateFile === false ? undefined : wakeOnChange(paths.stateFile(opts.epicId));
    // A terminal's view ticks every second between checks (idle times, countdowns); it only reads the clock.
    const ticker = view && deps.terminal?.isTty ? setInterval(() => view.tick(clock.nowMs()), 1000) : undefined;
    ticker?.unref();
    const pauses = deps.makePauseMeter?.();
    // --now evaluates an invented moment: nothing to sleep through in real time. A receiver's
    // requests are not kept waiting behind blocking waits either (sys/batched-idle.ts).
    const idle = opts.nowOverrideMs === undefined && !receiver ? deps.makeIdle?.((ms, signal) => clock.sleep(ms, signal)) : undefined;
    const end = await runLoop(env, {
      clock,
      ...(pauses ? { lostTimeMs: () => pauses.read() } : {}),
      ...(idle ? { idle } : {}),
      ...(next?.maxWaitMs !== undefined ? { untilMs: clock.nowMs() + next.maxWaitMs } : {}),
      signal: deps.signal,
      wakeSignal: () => waker?.next(),
      onResult: async (r) => {
        figures(r);
        if ((opts.isJson || isReadOnly) && !next) printResult(r, opts, out);
        await view?.result(r);
      },
      shouldStop: next ? (r) => next.shouldStop(r, history) : undefined,
      onCheckError: (e) => {
        out.err(
          `dispatch-watchdog: a check failed: ${safeText((e as Error)?.message ?? String(e))} (still watching; retrying every ${opts.checkIntervalSeconds}s)\n`,
        );
        view?.interrupt();
      },
      onNewInputError: async (r) => {
        await log?.append({ event: 'input_error', code: r.error.code, message: r.error.describe(), file: r.error.location?.file });
        // `next --json` keeps stdout for its one document, but an orchestrator waiting on it must be
        // able to see why it waits: the problem goes to stderr (the loop's --json keeps it in the log).
        if (opts.isJson && !next) return;
        out.err(`dispatch-watchdog: ${r.error.describe()} (still watching)\n`);
        view?.interrupt();
      },
    }).finally(() => {
      waker?.close();
      pauses?.stop();
      if (ticker) clearInterval(ticker);
    });
    // An escalation left running in the background (a slow tracker) ends before we do.
    await env.performer?.drain?.();
    await notifier?.drain();
    for (const o of env.observers) await o.flush?.(clock.nowMs());
    await view?.flush();
    view?.finish(end.reason);
    const code =
      next && end.reason !== 'signal' && (end.last || end.reason === 'max_wait')
        ? await next.finish(end.last, history, log!, end.reason === 'max_wait')
        : EXIT.ok;
    const signalName = deps.signal.aborted ? String((deps.signal.reason as { signal?: string } | undefined)?.signal ?? 'SIGTERM') : undefined;
    await log?.append({ event: 'watchdog_stopped', reason: end.reason, ...(signalName ? { signal: signalName } : {}), checks: end.checks });
    // The appender keeps the summary up to date: the next start reads only what follows this run.
    if (lock) await refreshSummary(paths, opts.epicId, journal.logBytes);
    if (next && end.reason === 'signal') {
      out.err(`dispatch-watchdog next: stopped by ${signalName} before anything needed the orchestrator; run it again.\n`);
      return EXIT.failure;
    }
    return code;
  } finally {
    // The last check's lines and figures are flushed before the lock goes.
    await telemetry?.shutdown();
    await receiver?.close();
    await lock?.release();
  }
}

/** The webhook notifier, if one is configured, attached to `ctx.log` (its lines go in the same write as their events) and settling what a crash left unfinished. */
export function attachNotifier(
  deps: WatchDeps,
  ctx: { paths: StatePaths; opts: ResolvedOptions; log: DispatchLog; history: History; runId: string },
  output: Output,
): NotifierPort | undefined {
  const notifier = deps.makeNotifier?.({ ...ctx, output });
  if (!notifier) return undefined;
  ctx.log.companionsOf = (e) => notifier.companionsOf(e);
  notifier.recover();
  return notifier;
}

/** Prepare the journal for one epic: history from every day's log, the lock, and a log writer. */
export async function openJournal(opts: ResolvedOptions, deps: WatchDeps, clock: Clock, runId: string, live?: (e: DispatchEvent) => void) {
  const paths = new StatePaths(opts.stateDir);
  // The derived summary plus the days after it, not every day (DESIGN §12); read-only runs never write it.
  const past = await loadHistory(paths, opts.epicId, { isWritable: !opts.isDryRun && opts.nowOverrideMs === undefined });
  for (const d of past.diagnostics.slice(0, 5)) deps.output.err(`dispatch-watchdog: warning: ${d.file}:${d.line} ${d.message}\n`);
  if (past.diagnosticCount > 5) deps.output.err(`dispatch-watchdog: warning: ${past.diagnosticCount - 5} more corrupt dispatch-log lines skipped\n`);
  const history = past.history;
  return { paths, history, logBytes: past.stats.logBytes, log: new DispatchLog(paths, opts.epicId, runId, () => clock.nowMs(), live) };
}
