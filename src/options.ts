// Flags + config file + defaults → ResolvedOptions. Flags override the file (DESIGN §10).
import { existsSync, promises as fs, statSync } from 'node:fs';
import path from 'node:path';
import { parseConfig, type WatchdogConfig } from './contracts/config.js';
import { DEFAULTS } from './contracts/defaults.js';
import type { AdapterName, Strategy } from './contracts/vocabulary.js';
import { combineProblems, InputError } from './contracts/errors.js';
import { yamlLocator, type Locate } from './contracts/parse-yaml.js';
import { assertSafeId } from './files/paths.js';
import { pseudoFileReason } from './files/pseudo-files.js';
import { resolvePolicy, type Policy } from './core/policy.js';
import { resolveControls, type ControlOptions } from './core/controls.js';
import { hasZone } from './core/period.js';
import { resolveReceiver, type ReceiverSettings } from './core/listen-address.js';
import { StatePaths } from './files/paths.js';

/** What the user wrote on the command line (all optional). */
export interface WatchdogFlags {
  epicId?: string;
  /** --stall-window (its alias --timeout, the seed's name, is `timeout`). */
  stallWindow?: number;
  timeout?: number;
  action?: Strategy;
  checkInterval?: number;
  maxRedispatches?: number;
  once?: boolean;
  dryRun?: boolean;
  stateDir?: string;
  config?: string;
  json?: boolean;
  now?: string;
  /** --otlp HOST:PORT: run the OTLP/HTTP logs receiver beside the loop (docs/fleet.md). */
  otlp?: string;
}

export interface ResolvedOptions {
  epicId: string;
  stateDir: string;
  configFile?: string;
  /** Where each config field is, for messages (set when a config file was read). */
  configLocate?: Locate;
  config: WatchdogConfig;
  timeoutSeconds: number;
  checkIntervalSeconds: number;
  action: Strategy;
  maxRedispatches: number;
  isOnce: boolean;
  isDryRun: boolean;
  isJson: boolean;
  /** --now: evaluate as of this moment (implies --once, no log lines, no actions). */
  nowOverrideMs?: number;
  policy: Policy;
  adapter: AdapterName;
  blockedStateName: string;
  circuitBreaker: { minStalled: number; fraction: number; maxHoldMs: number };
  shouldActOnLooping: boolean;
  /** How long a request may stay pending (config requests.deadline_seconds, default 2 × the base window). */
  requestDeadlineSeconds: number;
  /** Resume, nudge, reconcile and attention settings (config `recovery`, `attention`). @defaultValue DEFAULT_CONTROLS */
  controls?: ControlOptions;
  /** The OTLP/HTTP receiver to run beside the loop (--otlp, config otlp.listen); undefined: none. */
  receiver?: ReceiverSettings;
}

/** State dir: --state-dir > $ONEX_STATE_DIR > ./.onex_state. */
export function resolveStateDir(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  return path.resolve(cwd, flag ?? (env.ONEX_STATE_DIR || '.onex_state'));
}

/**
 * The state dir, which must exist: a mistyped --state-dir (or none in this directory) is an input
 * error, never a fresh empty state dir that makes every command report success. `hook` alone
 * does not ask (it must stay silent); the orchestrator creates the dir when it writes a state file.
 */
export function existingStateDir(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  const dir = resolveStateDir(flag, env, cwd);
  let isDir: boolean | undefined;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = undefined;
  }
  if (isDir === false) {
    throw new InputError('bad_flag', `the state dir ${dir} is not a directory.`, {
      hint: 'Point --state-dir (or $ONEX_STATE_DIR) at the directory that holds epics/ and dispatch-log/.',
    });
  }
  if (isDir === undefined) {
    const from = flag !== undefined ? '--state-dir' : env.ONEX_STATE_DIR ? '$ONEX_STATE_DIR' : 'the default ./.onex_state';
    throw new InputError('missing_file', `the state dir does not exist (from ${from}).`, {
      location: { file: dir },
      hint: 'Check --state-dir or $ONEX_STATE_DIR (run from the directory that holds .onex_state). To start a new one, create it first (mkdir -p); the orchestrator writes epics/<id>/state.yaml in it.',
    });
  }
  return dir;
}

/** Why a config file could not be read, in words (never just "not found" when it was something else). */
function readFailure(e: unknown, file: string): InputError {
  const code = (e as NodeJS.ErrnoException).code;
  const location = { file };
  if (code === 'ENOENT') return new InputError('missing_file', 'config file not found.', { location, hint: 'Check the --config path.', cause: e });
  if (code === 'EACCES' || code === 'EPERM')
    return new InputError('unreadable_file', 'cannot read the config file: permission denied.', { location, hint: 'Make it readable by this user.', cause: e });
  if (code === 'ENOTDIR')
    return new InputError('missing_file', 'config file not found: a part of its path is a file, not a directory.', {
      location,
      hint: 'Check the --config path.',
      cause: e,
    });
  const what = code ?? (e instanceof Error ? e.message : String(e));
  return new InputError('unreadable_file', `cannot read the config file (${what}).`, { location, cause: e });
}

/** Largest config file we read (a real one is a few hundred bytes). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Read the config file named by --config, else <state dir>/watchdog.config.yaml if present. */
export async function loadConfig(flag: string | undefined, stateDir: string, cwd: string): Promise<{ config: WatchdogConfig; file?: string; locate?: Locate }> {
  const file = flag ? path.resolve(cwd, flag) : new StatePaths(stateDir).configFile();
  if (!flag && !existsSync(file)) return { config: {} };
  let text: string;
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) throw new InputError('unreadable_file', 'the config file is not a regular file.', { location: { file } });
    const pseudo = pseudoFileReason(file, st.dev);
    if (pseudo) throw new InputError('unreadable_file', `${pseudo}.`, { location: { file }, hint: 'Point --config at a watchdog.config.yaml (a plain file).' });
    if (st.size > MAX_CONFIG_BYTES) {
      throw new InputError('unreadable_file', `the config file is ${st.size} bytes, over the ${MAX_CONFIG_BYTES}-byte limit.`, {
        location: { file },
        hint: 'Point --config at watchdog.config.yaml (a few hundred bytes).',
      });
    }
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw readFailure(e, file);
  }
  const parsed = parseConfig(text, file);
  if (!parsed.ok) throw parsed.error;
  return { config: parsed.value, file, locate: yamlLocator(text, file) };
}

/** Combine flags, config and defaults; throws one InputError listing every problem found (after `flagProblems`, the flag values the parser refused). */
export async function resolveOptions(
  flags: WatchdogFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
  flagProblems: readonly InputError[] = [],
): Promise<ResolvedOptions> {
  const problems: InputError[] = [...flagProblems];
  const collect = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push(e);
      return undefined;
    }
  };
  if (!flags.epicId) problems.push(new InputError('bad_flag', '--epic-id is required.', { hint: 'e.g. dispatch-watchdog --epic-id PROJ-1000' }));
  const epicId = flags.epicId ? collect(() => assertSafeId(flags.epicId!, 'epic id')) : undefined;
  let nowOverrideMs: number | undefined;
  if (flags.now !== undefined) {
    nowOverrideMs = Date.parse(flags.now);
    if (!hasZone(flags.now) || Number.isNaN(nowOverrideMs)) {
      const why = Number.isNaN(nowOverrideMs)
        ? 'expected an ISO-8601 time with a zone'
        : "the time has no zone, so it would be read in this machine's local time";
      problems.push(
        new InputError('bad_flag', `--now: ${why}, got ${JSON.stringify(flags.now)}.`, {
          hint: 'Add Z for UTC or an offset, e.g. --now 2026-04-02T10:10:00Z or --now 2026-04-02T12:10:00+02:00',
        }),
      );
    }
  }
  const stateDir = collect(() => existingStateDir(flags.stateDir, env, cwd)) ?? resolveStateDir(flags.stateDir, env, cwd);
  let loaded: Awaited<ReturnType<typeof loadConfig>> | undefined;
  try {
    loaded = await loadConfig(flags.config, stateDir, cwd);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    problems.push(e);
  }
  const receiver = loaded ? collect(() => resolveReceiver(flags.otlp, loaded.config.otlp, env)) : undefined;
  const problem = combineProblems(problems);
  if (problem || !loaded || epicId === undefined) throw problem;
  const { config, file, locate } = loaded;
  const D = DEFAULTS;
  const timeoutSeconds = flags.stallWindow ?? flags.timeout ?? config.timeout_seconds ?? D.timeout_seconds;
  return {
    epicId,
    stateDir,
    configFile: file,
    configLocate: locate,
    config,
    timeoutSeconds,
    checkIntervalSeconds: flags.checkInterval ?? config.check_interval_seconds ?? D.check_interval_seconds,
    action: flags.action ?? config.action ?? D.action,
    maxRedispatches: flags.maxRedispatches ?? config.max_redispatches ?? D.max_redispatches,
    isOnce: Boolean(flags.once) || nowOverrideMs !== undefined,
    isDryRun: Boolean(flags.dryRun),
    isJson: Boolean(flags.json),
    nowOverrideMs,
    policy: resolvePolicy(config, timeoutSeconds),
    adapter: config.agents?.adapter ?? D.agents.adapter,
    blockedStateName: config.linear?.blocked_state ?? D.linear.blocked_state,
    circuitBreaker: {
      minStalled: config.circuit_breaker?.min_stalled ?? D.circuit_breaker.min_stalled,
      fraction: config.circuit_breaker?.fraction ?? D.circuit_breaker.fraction,
      maxHoldMs: (config.circuit_breaker?.max_hold_seconds ?? D.circuit_breaker.max_hold_seconds) * 1000,
    },
    shouldActOnLooping: config.looping?.act ?? D.looping.act,
    requestDeadlineSeconds: config.requests?.deadline_seconds ?? D.requests.deadline_windows * timeoutSeconds,
    controls: {
      ...resolveControls(config, config.agents?.adapter ?? D.agents.adapter, timeoutSeconds),
      // The process adapter resumes a Codex row with agents.codex.resume_argv, else `codex exec resume` (act/agents/process.ts).
      ...((config.agents?.adapter ?? D.agents.adapter) === 'process' ? { resumableAgents: new Set(['codex']) } : {}),
    },
    ...(receiver ? { receiver } : {}),
  };
}
