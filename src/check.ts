// One health check of one epic: read the state file, observe, assess, plan, journal, act,
// write watchdog.json. The shell around the pure core; the loop calls it repeatedly.
import type { Task } from './contracts/state-file.js';
import type { WatchdogJson } from './contracts/watchdog-json.js';
import type { InputError } from './contracts/errors.js';
import type { Verdict } from './core/assess.js';
import { writeFileAtomic } from './files/atomic-write.js';
import { JsonBytes } from './files/json-bytes.js';
import { foldEvent } from './core/history.js';
import { answerByMs, pendingRequests } from './core/requests.js';
import { writeMassStallNote, type MassStallEscalation } from './act/friction/mass-stall-note.js';
import { settleRequestLifecycle } from './check-requests.js';
import type { DispatchEvent } from './contracts/events.js';
import type { Plan } from './core/plan.js';
import { hasLoss } from './core/read-diff.js';
import { DEFAULT_SETTLE } from './observe/read/settle.js';
import { readSettled, tryReadWave } from './check-read.js';
import type { RowLoss } from './core/read-diff.js';
import { shouldReportLoss, type CheckMemory } from './check-memory.js';

export type { ActionPerformer } from './core/plan.js';
export { newCheckMemory, type CheckMemory } from './check-memory.js';
import { buildWatchdogJson, RowTexts } from './core/report.js';
import { judge, lossOf, needsSecondRead, planFor, type CheckEnv, type Judged, type Memo } from './check-judge.js';
export { readSaysWaveDone, type CheckEnv, type WaveOverlay } from './check-judge.js';

/** `memory`: what the check leaves for the next one, whatever its outcome. */
export type CheckResult = { memory: CheckMemory } & (
  | {
      ok: true;
      nowMs: number;
      tasks: Task[];
      verdicts: Verdict[];
      plan: Plan;
      report: WatchdogJson;
      hasStall: boolean;
      isWaveDone: boolean;
      /** request_answered / request_unanswered logged by this check. */
      requestEvents: DispatchEvent[];
      /** Answer deadlines of the requests still pending: the loop wakes then. */
      requestDeadlinesMs: number[];
      /** Other moments the loop wakes: a limit of the plan running out, a held action's second look. */
      wakeAtMs?: number[];
    }
  | { ok: false; nowMs: number; error: InputError }
);

export { MAX_STATE_FILE_BYTES } from './observe/read/state-file-reader.js';
export { readWave } from './check-read.js';

/** When to look again besides the verdicts' deadlines: the plan's limits, and an action held because the two reads disagreed (once the file rests). */
function wakeUps(env: CheckEnv, plan: Plan, nowMs: number, heldRows: ReadonlySet<string>): { wakeAtMs?: number[] } {
  const out = plan.wakeAtMs ? [...plan.wakeAtMs] : [];
  // A row held as last trusted waits for reads spread over its confirmation time (check intervals), not for this.
  for (const [taskId, d] of plan.stalls) {
    if (d.actionTaken === 'held:unconfirmed_read' && !heldRows.has(taskId)) {
      out.push(nowMs + (env.settle ?? DEFAULT_SETTLE).restMs);
      break;
    }
  }
  return out.length ? { wakeAtMs: out } : {};
}

/** Run one check as of `nowMs`, from what the checks before it left (`memory`); the result carries the memory for the next. */
export async function runCheck(env: CheckEnv, memory: CheckMemory, nowMs: number): Promise<CheckResult> {
  const { opts } = env;
  const mem: Memo = { ...memory };
  const previous = mem.previousWave;
  // First read: cheap, and enough when it concludes nothing harmful. Anything else is asked again
  // of a read taken once the file stopped changing, and only what both reads agree on is done.
  const first = await tryReadWave(env.paths, opts.epicId);
  // Requests first: an answer changes what this check judges (a replaced row, a reused one).
  let requestEvents = first.ok ? await settleRequestLifecycle(env, mem.unobserved, first.wave, nowMs) : undefined;
  let earlier: Judged | undefined;
  let current: Judged | undefined = first.ok ? await judge(env, mem, first.wave, nowMs) : undefined;
  // The first read as judged (reused rows carry their instance), to compare like with like below.
  const firstJudged = current;
  if (!current || needsSecondRead(current, previous)) {
    for (;;) {
      // With nothing trusted yet, the file must rest: a torn file at rest looks settled for seconds.
      const next = await readSettled(env.paths, opts.epicId, env.settle, !mem.trustedRead);
      if (!next.ok) return { ok: false, nowMs, error: next.error, memory: mem };
      requestEvents ??= await settleRequestLifecycle(env, mem.unobserved, next.wave, nowMs);
      const judged = await judge(env, mem, next.wave, nowMs);
      earlier = current;
      current = judged;
      if (earlier || !needsSecondRead(current, previous)) break;
    }
  }
  const { wave, verdicts } = current;
  // Only what both reads agree on: an action the earlier read did not plan waits for the next check.
  const plan = earlier ? planFor(env, mem.isLagged, wave, verdicts, nowMs, current.held, new Set(earlier.plan.actions.map((a) => a.key))) : current.plan;
  const isWaveDone = Boolean(earlier?.saysDone && current.saysDone);
  const events = [...plan.events];
  if (previous && env.log) {
    // `previous` is a judged wave: a raw read would lack the instance a reused row carries (t1-r1 in row t1) and report it vanished.
    // Held rows are told unconfirmed (this read's, else the first read's); a loss that got through is confirmed.
    const loss = lossOf(current, previous);
    const heldLoss = [current.guarded.heldLoss, firstJudged?.guarded.heldLoss].find((l): l is RowLoss => l !== undefined && hasLoss(l));
    const torn = heldLoss && !hasLoss(loss) ? heldLoss : undefined;
    for (const [l, isConfirmed] of [
      [loss, true],
      [torn, false],
    ] as const) {
      if (!l || !hasLoss(l) || !shouldReportLoss(mem, JSON.stringify([isConfirmed, l]), isConfirmed)) continue;
      events.push({ event: 'state_rows_lost', vanished: l.vanished, fields_lost: l.fieldsLost, is_confirmed: isConfirmed });
    }
  }
  mem.previousWave = wave;
  mem.trustedRead = current.guarded.wave;
  mem.suspects = current.guarded.suspects;
  const { observations } = current;
  if (env.log) {
    // The note first, then the line that names it: a crash in between leaves a note, never a dangling path.
    for (const e of events)
      if (e.event === 'mass_stall_escalated') await writeMassStallNote(env.paths, opts.epicId, e as unknown as MassStallEscalation, nowMs);
    // One write and one fsync for all of this check's verdict lines (1,000 `healthy` lines at a cold start).
    for (const e of await env.log.appendAll(events)) foldEvent(env.history, e, opts.epicId);
    if (env.performer) {
      for (const action of plan.actions) await env.performer.perform(action, observations[wave.tasks.findIndex((t) => t.taskId === action.task.taskId)]!);
      await env.performer.afterCheck?.(nowMs);
    }
  }
  const report = buildWatchdogJson(wave.tasks, verdicts, plan, env.history, {
    epicId: opts.epicId,
    nowMs,
    version: env.version,
    pid: env.pid,
    runId: env.runId,
    checkIntervalSeconds: opts.checkIntervalSeconds,
    timeoutSeconds: opts.timeoutSeconds,
    action: opts.action,
    isNowOverridden: opts.nowOverrideMs !== undefined,
  });
  // --dry-run and --now print only: a live watchdog's watchdog.json is never overwritten by an invented moment.
  // Compact: the indented form cost a third more to build and write at 10,000 agents (status --json prints it indented).
  // Encoded into a buffer kept between checks: no large string and no new buffer per check.
  if (!opts.isDryRun && opts.nowOverrideMs === undefined) {
    const rows = (mem.rowTexts ??= new RowTexts());
    rows.beginCheck();
    await writeFileAtomic(
      env.paths.watchdogJson(opts.epicId),
      (mem.reportBytes ??= new JsonBytes()).encode(report, { tasks: (e: WatchdogJson['tasks'][number]) => rows.text(e) }),
    );
  }
  for (const o of env.observers) await o.endCheck?.(nowMs);
  return {
    ok: true,
    nowMs,
    tasks: wave.tasks,
    verdicts,
    plan,
    report,
    // A loop acted on (looping.act) is treated as a stall: --once says so with its exit code.
    hasStall: verdicts.some((v) => v.kind === 'stalled' || (v.kind === 'looping' && opts.shouldActOnLooping)),
    isWaveDone,
    requestEvents: requestEvents ?? [],
    requestDeadlinesMs: pendingRequests(env.history).map((r) => answerByMs(r, nowMs, mem.unobserved)),
    ...wakeUps(env, plan, nowMs, current.held),
    memory: mem,
  };
}
