// One health check of one epic: read the state file, observe, assess, plan, journal, act,
// write watchdog.json. The shell around the pure core; the loop calls it repeatedly.
import type { Task, Wave } from './contracts/state-file.js';
import type { WatchdogJson } from './contracts/watchdog-json.js';
import { InputError } from './contracts/errors.js';
import { assess, type Verdict } from './core/assess.js';
import { writeFileAtomic } from './journal/atomic-write.js';
import type { DispatchLog } from './journal/dispatch-log.js';
import { foldEvent, type History } from './core/history.js';
import type { StatePaths } from './journal/paths.js';
import { mergeObservations, type Observation } from './observe/parse/observation.js';
import { observeRow } from './observe/parse/observe-row.js';
import type { TaskObserver } from './observe/read/observer.js';
import { stateFileReader } from './observe/read/state-file-reader.js';
import type { ResolvedOptions } from './options.js';
import { planCheck, type ActionPerformer, type Plan } from './core/plan.js';

export type { ActionPerformer } from './core/plan.js';
import { buildWatchdogJson } from './core/report.js';

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
}

export type CheckResult =
  | { ok: true; nowMs: number; tasks: Task[]; verdicts: Verdict[]; plan: Plan; report: WatchdogJson; hasStall: boolean; isWaveDone: boolean }
  | { ok: false; nowMs: number; error: InputError };

export { MAX_STATE_FILE_BYTES } from './observe/read/state-file-reader.js';

/** Read and parse epics/<id>/state.yaml (parsed again only when it changed); every problem is an InputError naming the file. */
export async function readWave(paths: StatePaths, epicId: string): Promise<Wave> {
  return stateFileReader.read(paths.stateFile(epicId), epicId);
}

/** Observe one in-flight task from its row and every observer; a failing observer is a missing source. */
async function observeTask(task: Task, observers: readonly TaskObserver[], nowMs: number): Promise<Observation> {
  const parts = [observeRow(task)];
  for (const o of observers) {
    try {
      parts.push(...(await o.observe(task, nowMs)));
    } catch (e) {
      parts.push({ source: 'transcript', missing: [{ source: 'transcript', reason: `${o.name} failed: ${(e as Error).message}` }] });
    }
  }
  return mergeObservations(parts);
}

/** Run one check as of `nowMs`. */
export async function runCheck(env: CheckEnv, nowMs: number): Promise<CheckResult> {
  const { opts, paths } = env;
  let wave: Wave;
  try {
    wave = await readWave(paths, opts.epicId);
  } catch (e) {
    if (e instanceof InputError) return { ok: false, nowMs, error: e };
    throw e;
  }
  if (env.overlay) wave = await env.overlay(wave, env.history);
  for (const o of env.observers) o.beginCheck?.(nowMs);
  const observations = new Map<string, Observation>();
  const verdicts: Verdict[] = [];
  for (const task of wave.tasks) {
    const obs = task.statusClass === 'in_flight' ? await observeTask(task, env.observers, nowMs) : mergeObservations([]);
    observations.set(task.taskId, obs);
    verdicts.push(assess(task, obs, opts.policy, nowMs));
  }
  const tasks = new Map(wave.tasks.map((t) => [t.taskId, t]));
  const plan = planCheck(verdicts, tasks, env.history, {
    epicId: opts.epicId,
    strategy: opts.action,
    maxRedispatches: opts.maxRedispatches,
    shouldActOnLooping: opts.shouldActOnLooping,
    circuitBreaker: opts.circuitBreaker,
    isLagged: Boolean(env.isLagged),
    isReadOnly: !env.log,
  });
  if (env.log) {
    // One write and one fsync for all of this check's verdict lines (1,000 `healthy` lines at a cold start).
    for (const e of await env.log.appendAll(plan.events)) foldEvent(env.history, e, opts.epicId);
    if (env.performer) {
      for (const action of plan.actions) await env.performer.perform(action, observations.get(action.task.taskId)!);
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
  if (!opts.isDryRun) await writeFileAtomic(paths.watchdogJson(opts.epicId), JSON.stringify(report, null, 2) + '\n');
  return {
    ok: true,
    nowMs,
    tasks: wave.tasks,
    verdicts,
    plan,
    report,
    hasStall: verdicts.some((v) => v.kind === 'stalled'),
    // Verdicts, not row statuses: a replacement we launched is done once its output says so.
    isWaveDone: verdicts.every((v) => v.kind === 'terminal' || v.kind === 'blocked'),
  };
}
