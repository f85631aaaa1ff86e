// Judging one read of the wave: the check's environment, and one read observed, assessed and
// planned (what runCheck does once, or twice when a conclusion needs a second read). Split out of
// check.ts, which runs the check around it.
import type { Task, Wave } from './contracts/state-file.js';
import { assess, type Verdict, type WaveContext } from './core/assess.js';
import type { DispatchLog } from './journal/dispatch-log.js';
import { hasPendingRequest, type History } from './core/history.js';
import { applyRowOutputProgress } from './core/row-output.js';
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
import { guardRows, type GuardedRead } from './core/row-trust.js';
import type { RowLoss } from './core/read-diff.js';
import type { CheckMemory } from './check-memory.js';
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

/** What a check writes into its memory as it goes (the returned memory is this). */
export type Memo = { -readonly [K in keyof CheckMemory]: CheckMemory[K] };

export interface Judged {
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
export const confirmMs = (env: CheckEnv) => Math.max((env.settle ?? DEFAULT_SETTLE).restMs, 2 * env.opts.checkIntervalSeconds * 1000);

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
export function planFor(
  env: CheckEnv,
  isLagged: boolean,
  wave: Wave,
  verdicts: Verdict[],
  nowMs: number,
  heldTaskIds: ReadonlySet<string>,
  confirmedActionKeys?: ReadonlySet<string>,
): Plan {
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
export async function judge(env: CheckEnv, mem: Memo, read: Wave, nowMs: number): Promise<Judged> {
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
  const observeAfresh = async (task: Task, mayDefer: boolean) => {
    const o = await observeTask(task, env.observers, nowMs, mayDefer);
    observed.set(task.taskId, o);
    return o;
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
      const fresh = reused ? undefined : await observeAfresh(task, true);
      obs = reused ?? fresh!.obs;
      verdict = assess(task, obs, opts.policy, nowMs, context);
      // Change notification may have vouched for the files, and a healthy agent's recent read may
      // stand for what its files gained since (healthy_read_seconds): nothing but healthy is
      // concluded before they are stat'ed, and observed again with every file read if that shows a change.
      if (verdict.kind !== 'healthy' && (reused ? !reuseObservation(last, task, env.observers, nowMs, true) : fresh!.isDeferred)) {
        obs = (await observeAfresh(task, false)).obs;
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
export function lossOf(j: Judged, previous: Wave): RowLoss {
  if (j.loss?.before !== previous) j.loss = { before: previous, loss: compareReads(previous, j.wave) };
  return j.loss.loss;
}

/** A conclusion one read alone may not draw: a destructive action, the end of the wave, lost rows. */
export const needsSecondRead = (j: Judged, previous: Wave | undefined) =>
  j.plan.actions.length > 0 || j.saysDone || j.wave.tasks.length === 0 || (previous !== undefined && hasLoss(lossOf(j, previous)));
