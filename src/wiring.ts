// Builds the real effects for the watch command once: adapters, Linear settings, observers,
// the overlay of our own replacements, and start-up recovery.
import { createTelemetryObserver } from './observe/read/telemetry-observer.js';
import type { AgentAdapter } from './act/agents/adapter.js';
import { createAdapter } from './act/agents/make-adapter.js';
import { createPerformer, type PerformerContext } from './act/recovery/perform.js';
import { probeProcess } from './sys/proc-identity.js';
import { recoverAtStartUp } from './act/recovery/recover.js';
import type { Task, Wave } from './contracts/state-file.js';
import type { Clock } from './deps.js';
import { readWave } from './check.js';
import type { DispatchLog } from './journal/dispatch-log.js';
import type { History } from './core/history.js';
import type { StatePaths } from './files/paths.js';
import type { ResolvedOptions } from './options.js';
import { overlayWave, type ProcessState } from './core/overlay.js';
import type { WatchDeps } from './watch.js';
import type { LinearRetryOptions } from './act/tracker/linear-retry.js';
import { Notifier } from './act/notify/notifier.js';
import { resolveNotifySettings } from './act/notify/notify-config.js';
import type { WebhookRetryOptions } from './act/notify/webhook.js';
import { startTelemetry } from './act/telemetry/telemetry.js';
import { packageVersion } from './version.js';
import { claudeConfigDirOf } from './agents/claude-code/harness.js';
import { allHarnesses, harnessOf } from './agents/harnesses.js';
import { createProcessObserver } from './observe/read/process-observer.js';
import type { TaskObserver } from './observe/read/observer.js';
import { onlyRows } from './agents/harness.js';

export interface WiringEnv {
  clock: Clock;
  env: NodeJS.ProcessEnv;
  /** Test knob: fast Linear retries. */
  linearRetry?: LinearRetryOptions;
  /** Test knob: fast webhook retries. */
  notifyRetry?: Partial<WebhookRetryOptions>;
  /** Aborts on SIGINT/SIGTERM: a Linear call in flight stops at once. */
  signal?: AbortSignal;
}

interface ShellContext {
  paths: StatePaths;
  opts: ResolvedOptions;
  log: DispatchLog;
  history: History;
  runId: string;
}

/** The adapter the config names (default mailbox); a config problem is an InputError. */
export function adapterFor(opts: ResolvedOptions, clock: Clock): AgentAdapter {
  const claudeConfigDir = opts.config.claude?.config_dir === undefined ? undefined : claudeConfigDirOf({ config: opts.config, env: {} });
  return createAdapter(
    opts.adapter,
    opts.config.agents,
    { clock, requestDeadlineMs: opts.requestDeadlineSeconds * 1000, claudeConfigDir },
    { strategy: opts.action, locate: opts.configLocate },
  );
}

/** Everything the executor and recovery share. */
export function performerContext(ctx: ShellContext, w: WiringEnv, adapter: AgentAdapter): PerformerContext {
  return {
    epicId: ctx.opts.epicId,
    paths: ctx.paths,
    log: ctx.log,
    history: ctx.history,
    adapter,
    clock: w.clock,
    maxRedispatches: ctx.opts.maxRedispatches,
    requestDeadlineMs: ctx.opts.requestDeadlineSeconds * 1000,
    tracker: {
      apiKey: w.env.LINEAR_API_KEY || undefined,
      apiUrl: ctx.opts.config.linear?.api_url,
      blockedStateName: ctx.opts.blockedStateName,
      retry: w.signal ? { ...w.linearRetry, signal: w.signal } : w.linearRetry,
    },
  };
}

/** Whether each replacement we launched is still running (same pid and start time). */
/** Whether each replacement we launched is still the process we started. */
export async function replacementStates(history: History): Promise<Map<string, ProcessState>> {
  const states = new Map<string, ProcessState>();
  for (const e of history.replacements.values()) {
    if (e.pid === undefined) continue;
    const probe = await probeProcess(e.pid);
    if (probe.kind === 'gone') states.set(e.recovery_task_id, 'gone');
    else if (probe.kind === 'unknown') states.set(e.recovery_task_id, 'unknown');
    else states.set(e.recovery_task_id, e.start_ticks === undefined || probe.identity.startTicks === e.start_ticks ? 'alive' : 'gone');
  }
  return states;
}

/** The parts of WatchDeps that act on the world (everything but clock, output, signal, pid). */
export function realActionDeps(w: WiringEnv): Pick<WatchDeps, 'makePerformer' | 'makeOverlay' | 'recover' | 'makeNotifier' | 'makeTelemetry'> {
  let adapter: AgentAdapter | undefined;
  const adapterOnce = (opts: ResolvedOptions) => (adapter ??= adapterFor(opts, w.clock));
  return {
    makePerformer: (ctx) => createPerformer(performerContext(ctx, w, adapterOnce(ctx.opts))),
    makeNotifier: (ctx) => {
      const settings = resolveNotifySettings(ctx.opts.config, w.env, ctx.opts.configLocate);
      if (!settings) return undefined;
      const onError = (e: unknown) => ctx.output.err(`dispatch-watchdog: a notification could not be handled: ${(e as Error)?.message ?? String(e)}\n`);
      return new Notifier({ ...ctx, epicId: ctx.opts.epicId, clock: w.clock, settings, signal: w.signal, onError, retry: w.notifyRetry });
    },
    makeTelemetry: (output) => startTelemetry(w.env, packageVersion(), (line) => output.err(line)),
    makeOverlay: (opts) => async (wave, history) => overlayWave(wave, history, opts.epicId, opts.stateDir, await replacementStates(history)),
    recover: async (ctx) => {
      let wave: Wave | undefined;
      try {
        wave = await readWave(ctx.paths, ctx.opts.epicId);
      } catch {
        wave = undefined; // recovery works from the log alone when the state file is unreadable
      }
      return recoverAtStartUp(performerContext(ctx, w, adapterOnce(ctx.opts)), { runId: ctx.runId, wave });
    },
  };
}

/**
 * Every agent CLI's readers (its harness's observers: Claude Code's transcripts and hook activity),
 * and the agent's process where it is known, as evidence (docs/claude-code.md, docs/verdicts.md).
 */
export function realObservers(env: NodeJS.ProcessEnv): (paths: StatePaths, opts: ResolvedOptions) => TaskObserver[] {
  return (paths, opts) => {
    const ctx = { paths, config: opts.config, env, isPersistent: !opts.isDryRun && opts.nowOverrideMs === undefined, baseTimeoutMs: opts.policy.baseTimeoutMs };
    const sessions = new Map(allHarnesses().map((h) => [h, h.connect(ctx)] as const));
    // Each CLI's own readers, then the telemetry the receiver stored for any row's session (agent-neutral).
    const observers = [...[...sessions.values()].flatMap((s) => s.observers), createTelemetryObserver({ paths, isPersistent: ctx.isPersistent })];
    // A moment replayed with --now has no process to look at: its evidence is the files alone.
    if (opts.nowOverrideMs !== undefined) return observers;
    const sessionPid = (task: Task, sessionId: string, nowMs: number) => {
      const h = harnessOf(task);
      return h && sessions.get(h)?.sessionPid?.(sessionId, nowMs);
    };
    // A Codex row's liveness is its own harness's (the native agent, the thread lock): never its node wrapper's pid.
    return [...observers, onlyRows(createProcessObserver({ sessionPid }), (t) => harnessOf(t)?.name !== 'codex')];
  };
}
