// One health check of one epic: read the state file, observe, assess, plan, journal, act,
// write watchdog.json. The shell around the pure core; the loop calls it repeatedly.
import type { Task, Wave } from './contracts/state-file.js';
import type { WatchdogJson } from './contracts/watchdog-json.js';
import { InputError } from './contracts/errors.js';
import { assess, type Verdict, type WaveContext } from './core/assess.js';
import type { UnobservedSpan } from './core/unobserved.js';
import { writeFileAtomic } from './files/atomic-write.js';
import { JsonBytes } from './files/json-bytes.js';
import type { DispatchLog } from './journal/dispatch-log.js';
import { foldEvent, hasPendingRequest, type History } from './core/history.js';
import { answerByMs, pendingRequests, settleRequests } from './core/requests.js';
import { applyRowOutputProgress, type RowOutputs } from './core/row-output.js';
import { writeMassStallNote, type MassStallEscalation } from './act/friction/mass-stall-note.js';
import { readAcks } from './act/recovery/acks.js';
import type { DispatchEvent, EventBody } from './contracts/events.js';
import { msToIso } from './contracts/time.js';
import type { StatePaths } from './files/paths.js';
import { mergeObservations, type Observation } from './observe/parse/observation.js';
import { observeTask, reuseObservation, type ObservedTask } from './check-observe.js';
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

export type { ActionPerformer } from './core/plan.js';
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
  /** The watchdog ran late; plan re-observes before acting. */
  isLagged?: boolean;
  /** Each late wake of the loop (how late, when): time the watchdog did not see pass is no agent's silence. */
  unobserved?: UnobservedSpan[];
  /** How a second read waits for the state file to stop changing. @defaultValue DEFAULT_SETTLE */
  settle?: SettleOptions;
  /** The last read judged, kept between checks: rows it lists may not silently vanish. */
  previousWave?: Wave;
  /** The last read as trusted (before the overlay): what a later read may not regress from. */
  trustedRead?: Wave;
  /** Rows of trustedRead that later reads regressed: since when (check time), until confirmed. */
  suspects?: Map<string, number>;
  /** state_rows_lost already logged this run (each once). */
  reportedLosses?: Set<string>;
  tornReports?: number;
  /** Each row's last_output as last seen: a change is progress (kept between checks). */
  rowOutputs?: RowOutputs;
  /** Each in-flight task's last observation, by task id (kept between checks; reused while unchanged). */
  observed?: Map<string, ObservedTask>;
  /** When each terminal row was first read terminal this run: its agent is watched a while for still running. */
  terminalSince?: Map<string, number>;
  /** The last read as parsed, and as judged (its unchanged rows' tasks kept from the read before). */
  lastRead?: { parsed: Wave; kept: Wave };
  /** Encodes watchdog.json into one buffer kept from check to check (files/json-bytes.ts). */
  reportBytes?: JsonBytes;
}

export type CheckResult =
  | {
      ok: true; nowMs: number; tasks: Task[]; verdicts: Verdict[]; plan: Plan; report: WatchdogJson; hasStall: boolean; isWaveDone: boolean;
      /** request_answered / request_unanswered logged by this check. */
      requestEvents: DispatchEvent[];
      /** Answer deadlines of the requests still pending: the loop wakes then. */
      requestDeadlinesMs: number[];
      /** Other moments the loop wakes: a limit of the plan running out, a held action's second look. */
      wakeAtMs?: number[];
    }
  | { ok: false; nowMs: number; error: InputError };

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
function planFor(env: CheckEnv, wave: Wave, verdicts: Verdict[], nowMs: number, heldTaskIds: ReadonlySet<string>, confirmedActionKeys?: ReadonlySet<string>): Plan {
  const { opts } = env;
  return planCheck(verdicts, tasksById(wave.tasks), env.history, {
    epicId: opts.epicId,
    strategy: opts.action,
    maxRedispatches: opts.maxRedispatches,
    shouldActOnLooping: opts.shouldActOnLooping,
    circuitBreaker: opts.circuitBreaker,
    nowMs,
    isLagged: Boolean(env.isLagged),
    ...(opts.controls ? { controls: opts.controls } : {}),
    isReadOnly: !env.log,
    confirmedActionKeys,
    heldTaskIds,
  });
}

/** Observe, assess and plan one read of the wave. */
async function judge(env: CheckEnv, read: Wave, nowMs: number): Promise<Judged> {
  const { opts } = env;
  // A rewrite of the state file parses every row anew: rows that did not change keep their tasks.
  const kept = env.lastRead?.parsed === read ? env.lastRead.kept : env.lastRead ? keepUnchangedRows(env.lastRead.kept, read) : read;
  env.lastRead = { parsed: read, kept };
  // A row never regresses on one read: held as last trusted until later checks confirm it.
  const guarded = guardRows(env.trustedRead, kept, env.suspects ?? new Map(), nowMs, confirmMs(env));
  let wave = carryActivityForward(env.previousWave, guarded.wave);
  if (env.overlay) wave = await env.overlay(wave, env.history);
  wave = applyRowOutputProgress(wave, (env.rowOutputs ??= new Map()), nowMs, !opts.isOnce);
  for (const o of env.observers) await o.beginCheck?.(nowMs);
  const observations: Observation[] = [];
  const verdicts: Verdict[] = [];
  const observed = (env.observed ??= new Map());
  const observeAfresh = async (task: Task) => {
    const o = await observeTask(task, env.observers, nowMs);
    observed.set(task.taskId, o);
    return o.obs;
  };
  const terminalSince = (env.terminalSince ??= new Map());
  const reconciling = new Set([...env.history.requests.values()].filter((r) => r.kind === 'reconcile' && r.status === 'pending').map((r) => r.taskId));
  const watchesTerminal = terminalRowWatcher(wave.tasks, (opts.controls ?? DEFAULT_CONTROLS).reconcileGraceMs + 2 * opts.policy.baseTimeoutMs);
  const context: WaveContext = {
    rowOfAgent: agentRows(wave.tasks),
    ...(env.unobserved?.length ? { unobserved: env.unobserved } : {}),
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
  const plan = planFor(env, wave, verdicts, nowMs, held);
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

/** At most this many state_rows_lost events about torn (ignored) reads per run. */
const MAX_TORN_REPORTS = 10;

/** Journal one event (or, read-only, only fold it) so the rest of the check sees it. */
async function record(env: CheckEnv, body: EventBody, nowMs: number): Promise<DispatchEvent> {
  const e = env.log ? await env.log.append(body) : ({ ...body, timestamp_utc: msToIso(nowMs), epic_id: env.opts.epicId, run_id: env.runId } as DispatchEvent);
  foldEvent(env.history, e, env.opts.epicId);
  return e;
}

/** Answers and deadlines of pending requests, judged from the state file as written (DESIGN §8). */
async function settleRequestLifecycle(env: CheckEnv, wave: Wave, nowMs: number): Promise<DispatchEvent[]> {
  const pending = pendingRequests(env.history);
  if (pending.length === 0) return [];
  const acks = await readAcks(env.paths, env.opts.epicId, pending.map((r) => r.key));
  const out: DispatchEvent[] = [];
  for (const body of settleRequests(wave, env.history, acks, nowMs, env.unobserved)) out.push(await record(env, body, nowMs));
  return out;
}

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

/** Run one check as of `nowMs`. */
export async function runCheck(env: CheckEnv, nowMs: number): Promise<CheckResult> {
  const { opts } = env;
  const previous = env.previousWave;
  // First read: cheap, and enough when it concludes nothing harmful. Anything else is asked again
  // of a read taken once the file stopped changing, and only what both reads agree on is done.
  const first = await tryReadWave(env.paths, opts.epicId);
  // Requests first: an answer changes what this check judges (a replaced row, a reused one).
  let requestEvents = first.ok ? await settleRequestLifecycle(env, first.wave, nowMs) : undefined;
  let earlier: Judged | undefined;
  let current: Judged | undefined = first.ok ? await judge(env, first.wave, nowMs) : undefined;
  // The first read as judged (reused rows carry their instance), to compare like with like below.
  const firstJudged = current;
  if (!current || needsSecondRead(current, previous)) {
    for (;;) {
      // With nothing trusted yet, the file must rest: a torn file at rest looks settled for seconds.
      const next = await readSettled(env.paths, opts.epicId, env.settle, !env.trustedRead);
      if (!next.ok) return { ok: false, nowMs, error: next.error };
      requestEvents ??= await settleRequestLifecycle(env, next.wave, nowMs);
      const judged = await judge(env, next.wave, nowMs);
      earlier = current;
      current = judged;
      if (earlier || !needsSecondRead(current, previous)) break;
    }
  }
  const { wave, verdicts } = current;
  // Only what both reads agree on: an action the earlier read did not plan waits for the next check.
  const plan = earlier ? planFor(env, wave, verdicts, nowMs, current.held, new Set(earlier.plan.actions.map((a) => a.key))) : current.plan;
  const isWaveDone = Boolean(earlier?.saysDone && current.saysDone);
  const events = [...plan.events];
  if (previous && env.log) {
    // `previous` is a judged wave: a raw read would lack the instance a reused row carries (t1-r1 in row t1) and report it vanished.
    // Held rows are told unconfirmed (this read's, else the first read's); a loss that got through is confirmed.
    const loss = lossOf(current, previous);
    const heldLoss = [current.guarded.heldLoss, firstJudged?.guarded.heldLoss].find((l): l is RowLoss => l !== undefined && hasLoss(l));
    const torn = heldLoss && !hasLoss(loss) ? heldLoss : undefined;
    for (const [l, isConfirmed] of [[loss, true], [torn, false]] as const) {
      if (!l || !hasLoss(l)) continue;
      env.reportedLosses ??= new Set();
      const fingerprint = JSON.stringify([isConfirmed, l]);
      if (env.reportedLosses.has(fingerprint)) continue;
      if (!isConfirmed && (env.tornReports ?? 0) >= MAX_TORN_REPORTS) continue;
      env.reportedLosses.add(fingerprint);
      if (!isConfirmed) env.tornReports = (env.tornReports ?? 0) + 1;
      events.push({ event: 'state_rows_lost', vanished: l.vanished, fields_lost: l.fieldsLost, is_confirmed: isConfirmed });
    }
  }
  env.previousWave = wave;
  env.trustedRead = current.guarded.wave;
  env.suspects = current.guarded.suspects;
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
  if (!opts.isDryRun && opts.nowOverrideMs === undefined) await writeFileAtomic(env.paths.watchdogJson(opts.epicId), (env.reportBytes ??= new JsonBytes()).encode(report));
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
    requestDeadlinesMs: pendingRequests(env.history).map((r) => answerByMs(r, nowMs, env.unobserved)),
    ...wakeUps(env, plan, nowMs, current.held),
  };
}
