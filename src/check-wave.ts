// checkWave: one read-only check of a wave for programs that import dispatch-watchdog. It judges
// like `--dry-run` (no log lines, no actions, no watchdog.json written) at the time the caller gives.
import { randomUUID } from 'node:crypto';
import { newCheckMemory, runCheck, type CheckEnv } from './check.js';
import type { WatchdogConfig } from './contracts/config.js';
import type { Strategy } from './contracts/vocabulary.js';
import type { Task } from './contracts/state-file.js';
import type { WatchdogJson } from './contracts/watchdog-json.js';
import type { Verdict } from './core/assess.js';
import { loadHistory } from './journal/log-summary.js';
import { StatePaths } from './files/paths.js';
import { resolveOptions } from './options.js';
import { packageVersion } from './version.js';
import { realActionDeps, realObservers } from './wiring.js';

export interface CheckWaveOptions {
  /** The state dir (the one holding `epics/<epicId>/state.yaml`). */
  stateDir: string;
  epicId: string;
  /** The moment to judge the wave at, in ms since the epoch (an injected clock). @defaultValue Date.now() */
  nowMs?: number;
  /** Base stall window in seconds; overrides the config file. @defaultValue 120 */
  timeoutSeconds?: number;
  /** The strategy reported in `watchdog.action` (nothing is acted on). @defaultValue 'report' */
  action?: Strategy;
  /** A config file to read; default `<stateDir>/watchdog.config.yaml` when present. */
  configFile?: string;
  /** Read each agent CLI's own files (its harness's observers: transcripts, hook activity) as evidence. @defaultValue true */
  shouldReadAgentFiles?: boolean;
  /** @deprecated The name before agent harnesses (issue 32): `shouldReadAgentFiles`. */
  shouldReadClaudeCode?: boolean;
  /** Environment for `CLAUDE_CONFIG_DIR`. @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
}

export interface WaveCheck {
  /** The document `watchdog.json` would hold (schema_version "1.1"). */
  report: WatchdogJson;
  /** The wave's tasks, normalised, including replacements the watchdog's log says it launched. */
  tasks: Task[];
  /** One verdict per task, in the same order. */
  verdicts: Verdict[];
  /** A task is stalled (the CLI's `--once` would exit 3). */
  hasStall: boolean;
  /** No task is left in flight (the loop would stop). */
  isWaveDone: boolean;
  /** The config file that was read, if any. */
  config: WatchdogConfig;
}

/** Judge the wave of one epic as of `nowMs`; throws an InputError (file, line, field, fix) on bad input. */
export async function checkWave(o: CheckWaveOptions): Promise<WaveCheck> {
  const env = o.env ?? process.env;
  const nowMs = o.nowMs ?? Date.now();
  const opts = await resolveOptions(
    { epicId: o.epicId, stateDir: o.stateDir, config: o.configFile, timeout: o.timeoutSeconds, action: o.action ?? 'report', once: true, dryRun: true },
    env,
    process.cwd(),
  );
  const paths = new StatePaths(opts.stateDir);
  const clock = { nowMs: () => nowMs, sleep: async () => {} };
  // The log's summary plus the days after it (never written here: this call is read-only).
  const { history } = await loadHistory(paths, opts.epicId, { isWritable: false });
  const checkEnv: CheckEnv = {
    paths,
    opts,
    observers: (o.shouldReadAgentFiles ?? o.shouldReadClaudeCode) === false ? [] : realObservers(env)(paths, opts),
    history,
    overlay: realActionDeps({ clock, env }).makeOverlay?.(opts),
    runId: randomUUID(),
    version: packageVersion(),
    pid: process.pid,
  };
  const r = await runCheck(checkEnv, newCheckMemory(), nowMs);
  if (!r.ok) throw r.error;
  return { report: r.report, tasks: r.tasks, verdicts: r.verdicts, hasStall: r.hasStall, isWaveDone: r.isWaveDone, config: opts.config };
}
