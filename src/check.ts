// One health check of one epic: read the state file, observe, assess, plan, journal, act,
// write watchdog.json. The shell around the pure core; the loop calls it repeatedly.
import type { Task, Wave } from './contracts/state-file.js';
import type { WatchdogJson } from './contracts/watchdog-json.js';
import { InputError } from './contracts/errors.js';
import { assess, type Verdict, type WaveContext } from './core/assess.js';
import { writeFileAtomic } from './files/atomic-write.js';
import { JsonBytes } from './files/json-bytes.js';
import type { DispatchLog } from './journal/dispatch-log.js';
import { foldEvent, hasPendingRequest, type History } from './core/history.js';
import { answerByMs, pendingRequests } from './core/requests.js';
import { applyRowOutputProgress } from './core/row-output.js';
import { writeMassStallNote, type MassStallEscalation } from './act/friction/mass-stall-note.js';
import { settleRequestLifecycle } from './check-requests.js';
import type { DispatchEvent } from './contracts/events.js';
import type { StatePaths } from './files/paths.js';
import type { Observation } from './observe/parse/observation.js';
import { mergeObservations } from './observe/parse/observation-merge.js';
import { observeTask, reuseObservation } from './check-observe.js';
import { terminalRowWatcher } from './core/terminal-watch.js';
import { DEFAULT_CONTROLS } from './core/controls.js';
import type { TaskObserver } from './observe/read/observer.js';
import type { ResolvedOptions } from './options.js';
import { planCheck, type ActionPerformer, type Plan } from './core/plan.js';
import { carryActivityForward, compareReads, hasLoss, keepUnchangedRows } from './core/read-diff.js';
import { DEFAULT_SETTLE, type SettleOptions } from './observe/read/settle.js';
import { readSettled, tryReadWave } from './check-read.js';
import { guardRows, type GuardedRead } from './core/row-trust.js';
import type { RowLoss } from './core/read-diff.js';
import { shouldReportLoss, type CheckMemory } from './check-memory.js';

export type { ActionPerformer } from './core/plan.js';
export { newCheckMemory, type CheckMemory } from './check-memory.js';
import { buildWatchdogJson } from './core/report.js';
import { agentRows, tasksById } from './core/wave-index.js';

/** Derives the wave the watchdog judges from the state file plus its own log (replacements it launched). */
export type WaveOverlay = (wave: Wave, history: History) => Promise<Wave>;

export interface CheckEnv {
  paths: StatePaths;
  opts: ResolvedOptions;
  observers: readonly TaskObserver[];
  history: History;
  /** Absent for --dry-run and --now: nothing is journaled. */
  log?: DispatchLog;
  performer?: ActionPerformer;
  overlay?: WaveOverlay;
  runId: string;
  version: string;
  pid: number;
  /** How a second read waits for the state file to stop changing. @defaultValue DEFAULT_SETTLE */
  settle?: SettleOptions;
}

/** `memory`: what the check leaves for the next one, whatever its outcome. */
export type CheckResult = { memory: CheckMemory } & (
  | {
      ok: true; nowMs: number; tasks: Task[]; verdicts: Verdict[]; plan: Plan; report: WatchdogJson; hasStall: boolean; isWaveDone: boolean;
      /** request_answered / request_unanswered logged by this check. */
      requestEvents: DispatchEvent[];
      /** Answer deadlines of the requests still pending: the loop wakes then. */
      requestDeadlinesMs: number[];
      /** Other moments the loop wakes: a limit of the plan running out, a held action's second look. */
      wakeAtMs?: number[];
    }
  | { ok: false; nowMs: number; error: InputError }
);

/** What a check writes into its memory as it goes (the returned memory is this). */
type Memo = { -readonly [K in keyof CheckMemory]: CheckMemory[K] };

export { MAX_STATE_FILE_BYTES } from './observe/read/state-file-reader.js';
export { readWave } from './check-read.js';

interface Judged {
  wave: Wave;
  /** Each task's observation, in the order of wave.tasks (a Map by id cost a string-keyed set per task per check). */
  observations: Observation[];
  /** compareReads(before, wave), once asked (a check asks it twice of the same two waves). */
  loss?: { before: Wave; loss: RowLoss };
  verdicts: Verdict[];
  plan: Plan;
  /** This read alone says the wave is over. */
  saysDone: boolean;
  /** The read as guarded against the last trusted one (rows held as trusted). */
  guarded: GuardedRead;
  /** Rows no action may touch this check: held as trusted. */
  held: ReadonlySet<string>;
}

/** How long a regressed row is held before the read is believed: the longer settle, at least two check intervals. */
const confirmMs = (env: CheckEnv) => Math.max((env.settle ?? DEFAULT_SETTLE).restMs, 2 * env.opts.checkIntervalSeconds * 1000);

/**
 * What one read says about the end of the wave: it lists rows and every one is terminal or
 * blocked (verdicts, not row statuses: a replacement we launched is done once its output says
 * so). A read without rows never ends supervision, unless it says every wave is completed (shape
 * C). One read is never enough: runCheck asks a second, settled read for the same answer.
 */
export function readSaysWaveDone(wave: Wave, verdicts: readonly Verdict[]): boolean {
  if (wave.isEveryWaveCompleted) return true;
  return verdicts.length > 0 && verdicts.every((v) => v.kind === 'terminal' || v.kind === 'blocked');
}

/** Plan from verdicts; with `confirmedActionKeys`, only actions an earlier read also planned are taken. */
function planFor(env: CheckEnv, isLagged: boolean, wave: Wave, verdicts: Verdict[], nowMs: number, heldTaskIds: ReadonlySet<string>, confirmedActionKeys?: ReadonlySet<string>): Plan {
  const { opts } = env;
  return planCheck(verdicts, tasksById(wave.tasks), env.history, {
    epicId: opts.epicId,
    strategy: opts.action,
    maxRedispatches: opts.maxRedispatches,
    shouldActOnLooping: opts.shouldActOnLooping,
    circuitBreaker: opts.circuitBreaker,
    nowMs,
    isLagged,
    ...(opts.controls ? { controls: opts.controls } : {}),
    isReadOnly: !env.log,
    confirmedActionKeys,
    heldTaskIds,
  });
}

/** Observe, assess and plan one read of the wave. */
async function judge(env: CheckEnv, mem: Memo, read: Wave, nowMs: number): Promise<Judged> {
  const { opts } = env;
  // A rewrite of the state file parses every row anew: rows that did not change keep their tasks.
  const kept = mem.lastRead?.parsed === read ? mem.lastRead.kept : mem.lastRead ? keepUnchangedRows(mem.lastRead.kept, read) : read;
  mem.lastRead = { parsed: read, kept };
  // A row never regresses on one read: held as last trusted until later checks confirm it.
  const guarded = guardRows(mem.trustedRead, kept, mem.suspects, nowMs, confirmMs(env));
  let wave = carryActivityForward(mem.previousWave, guarded.wave);
  if (env.overlay) wave = await env.overlay(wave, env.history);
  wave = applyRowOutputProgress(wave, mem.rowOutputs, nowMs, !opts.isOnce);
  for (const o of env.observers) await o.beginCheck?.(nowMs);
  const observations: Observation[] = [];
  const verdicts: Verdict[] = [];
  const { observed, terminalSince } = mem;
  const observeAfresh = async (task: Task) => {
    const o = await observeTask(task, env.observers, nowMs);
    observed.set(task.taskId, o);
    return o.obs;
  };
  const reconciling = new Set([...env.history.requests.values()].filter((r) => r.kind === 'reconcile' && r.status === 'pending').map((r) => r.taskId));
  const watchesTerminal = terminalRowWatcher(wave.tasks, (opts.controls ?? DEFAULT_CONTROLS).reconcileGraceMs + 2 * opts.policy.baseTimeoutMs);
  const context: WaveContext = {
    rowOfAgent: agentRows(wave.tasks),
    ...(mem.unobserved.length ? { unobserved: mem.unobserved } : {}),
  };
  for (const task of wave.tasks) {
    let obs: Observation;
    let verdict: Verdict;
    if (task.statusClass === 'terminal') task.terminalSinceMs ??= terminalSince.get(task.taskId) ?? (terminalSince.set(task.taskId, nowMs), nowMs);
    if (task.statusClass !== 'in_flight' && !watchesTerminal(task, nowMs, reconciling.has(task.taskId))) {
      obs = mergeObservations([]);
      observed.delete(task.taskId);
      verdict = assess(task, obs, opts.policy, nowMs, context);
    } else {
      const last = observed.get(task.taskId);
      const reused = reuseObservation(last, task, env.observers, nowMs);
      obs = reused ?? (await observeAfresh(task));
      verdict = assess(task, obs, opts.policy, nowMs, context);
      // Change notification may have vouched for the files: nothing but healthy is concluded
      // before they are stat'ed (and observed again if that shows a change).
      if (reused && verdict.kind !== 'healthy' && !reuseObservation(last, task, env.observers, nowMs, true)) {
        obs = await observeAfresh(task);
        verdict = assess(task, obs, opts.policy, nowMs, context);
      }
    }
    observations.push(obs);
    verdicts.push(verdict);
  }
  // Rows gone from the state file take their observations with them.
  if (observed.size > wave.tasks.length) {
    const ids = new Set(wave.tasks.map((t) => t.taskId));
    for (const id of observed.keys()) if (!ids.has(id)) observed.delete(id);
  }
  const held = guarded.held;
  const plan = planFor(env, mem.isLagged, wave, verdicts, nowMs, held);
  // The wave is not over while a request waits for the orchestrator (DESIGN §8), nor while a row is held.
  const saysDone = readSaysWaveDone(wave, verdicts) && !hasPendingRequest(env.history) && guarded.held.size === 0;
  return { wave, observations, verdicts, plan, saysDone, guarded, held };
}

/** What `previous` lost in the judged read, compared once per pair. */
function lossOf(j: Judged, previous: Wave): RowLoss {
  if (j.loss?.before !== previous) j.loss = { before: previous, loss: compareReads(previous, j.wave) };
  return j.loss.loss;
}

/** A conclusion one read alone may not draw: a destructive action, the end of the wave, lost rows. */
const needsSecondRead = (j: Judged, previous: Wave | undefined) =>
  j.plan.actions.length > 0 || j.saysDone || j.wave.tasks.length === 0 || (previous !== undefined && hasLoss(lossOf(j, previous)));

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
    for (const [l, isConfirmed] of [[loss, true], [torn, false]] as const) {
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
    for (const e of events) if (e.event === 'mass_stall_escalated') await writeMassStallNote(env.paths, opts.epicId, e as unknown as MassStallEscalation, nowMs);
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
  if (!opts.isDryRun && opts.nowOverrideMs === undefined) await writeFileAtomic(env.paths.watchdogJson(opts.epicId), (mem.reportBytes ??= new JsonBytes()).encode(report));
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
