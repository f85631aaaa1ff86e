// The agent harness port (issue 32 item 1): everything the watchdog knows about one agent CLI
// (Claude Code, Codex), behind one interface that the check, `plan`, `replay` and the docs use.
// The core never names a CLI or its tools: it reads tool-call kinds (observe/parse/observation.ts
// ToolKind) and the wording and commands a harness gives. One harness per folder under
// src/agents/<name>/ (docs/architecture.md "How to add an agent CLI"); a row names its CLI with
// `agent:` (default claude-code), and only that harness reads it. Every harness passes
// test/integration/harness-conformance.test.ts. Later changes to this interface are additive.
import type { WatchdogConfig } from '../contracts/config.js';
import type { Task } from '../contracts/state-file.js';
import type { TelemetryDialect } from '../contracts/telemetry-dialects.js';
import type { AgentCli } from '../contracts/vocabulary.js';
import type { Policy } from '../core/policy.js';
import type { ReplayInput, ReplayResult, ScoreOptions, WindowScore } from '../core/replay-types.js';
import type { StatePaths } from '../files/paths.js';
import type { AgentWords, PartialObservation, ToolClassifier } from '../observe/parse/observation.js';
import type { TaskObserver } from '../observe/read/observer.js';

export type { ToolClass, ToolClassifier, ToolKind } from '../observe/parse/observation.js';

/** Where a row's agent writes what the harness reads, as found now (never throws: a miss is a reason). */
export interface AgentFiles {
  /** The agent's own transcript (session log), when found. */
  transcript?: string;
  /** Why no transcript was found (the row names nothing to look by, no file matched, …). */
  reason?: string;
}

/**
 * Command templates (argv, run without a shell; placeholders as in act/agents/argv-template.ts:
 * {session_id} {prompt} {cwd} …). A request shows them filled, each value quoted (`commandLine`).
 */
export interface HarnessCommands {
  /** Continue the agent's own session with a prompt (a resume after a transport stall). */
  resume: readonly string[];
  /** One message to an agent between turns, through its session (the `resume` nudge route). */
  nudge: readonly string[];
  /** A fresh agent with the whole prompt, working in {cwd}. */
  redispatch: readonly string[];
}

/**
 * Words a verdict reason or a request takes from the harness (the core has none of its own about a
 * CLI): `displayName` (`Claude Code`: "the API was overloaded and Claude Code gave up retrying"),
 * `hiddenPromptHint` (said after an open call that overran its timeout while the agent's process
 * lives, most likely a prompt the watchdog cannot see: `install the Notification hook to see it`).
 */
export interface HarnessWording extends AgentWords {
  /** Where the resume and nudge routes of a request are spelled out for a person: `claude --resume <session_id> -p "<prompt>"`. */ resumeHint: string;
  /** How a request tells a person to stop this CLI's agent, when "stop the agent" is not enough (Codex: its native pid, then its commands). */
  stopHint?: string;
}

/** The harness's own defaults (the config can override the ones it names in `contracts/defaults.ts`). */
export interface HarnessDefaults {
  /** The CLI's limit on a shell call that names no timeout, in ms (its `shell` kind's defaultTimeoutMs). */
  shellTimeoutMs: number;
}

/** What the watch gives a harness to build its readers with (once per watch). */
export interface HarnessContext {
  paths: StatePaths;
  config: WatchdogConfig;
  env: NodeJS.ProcessEnv;
  /** Keep read positions across restarts under <stateDir>/observe/ (off for a dry run or a --now moment). */
  isPersistent: boolean;
  baseTimeoutMs: number;
}

/** A harness bound to one watch: its readers and lookups. */
export interface HarnessSession {
  /** The observers it contributes; each observes only rows `readsRow` accepts. */
  observers: readonly TaskObserver[];
  /**
   * Observers of live processes (Claude Code: whether a session's process is still there): used
   * by a live check only, never for a `--now` moment (the processes then are not those of that moment).
   */
  liveObservers?: readonly TaskObserver[];
  /** Finds the row's files as of `nowMs` (never throws; a miss is a reason). */
  findFiles(task: Task, nowMs: number): Promise<AgentFiles>;
  /**
   * The process identity check: the pid of the process that runs the row's session, as the CLI
   * records it (Claude Code's `<config dir>/sessions/<pid>.json`), when it does; undefined: the
   * row's own `pid` is all there is. Synchronous and cheap (cached; re-listed at most every few s).
   */
  sessionPid?(sessionId: string, nowMs: number): number | undefined;
}

/** Replay of recorded files through the same observation and assess code the check uses (`replay`). */
export interface HarnessReplay {
  /** Whether a recorded file is this CLI's own (its path, its first lines): `replay` picks the harness by it. */
  isOwnFile(file: string, head: string): boolean;
  /** The files recorded with `file` that a replay folds with it (subagents' transcripts), found now. */
  childFiles(file: string): Promise<string[]>;
  replay(input: ReplayInput, policy: Policy): ReplayResult;
  score(inputs: readonly ReplayInput[], policy: Policy, opts?: ScoreOptions): WindowScore;
}

/** One agent CLI. It is the EvidenceLens the merge of its rows' evidence reads (classifyTool, wording). */
export interface AgentHarness {
  readonly name: AgentCli;
  /** Whether this harness reads `task` (the row's `agent`, default claude-code, names it). */
  readsRow(task: Task): boolean;
  /** A call's kind, the timeout the CLI applies to it, whether it only polls. Pure and total. */
  readonly classifyTool: ToolClassifier;
  /** Tools whose finished call is work done on a file (`Edit`, `apply_patch`): a recovery checkpoint's completed work. */
  readonly editTools: ReadonlySet<string>;
  readonly commands: HarnessCommands;
  readonly wording: HarnessWording;
  readonly defaults: HarnessDefaults;
  readonly replay: HarnessReplay;
  /**
   * What its OpenTelemetry logs say (TELEMETRY_DIALECTS[name]: which records are its events, the
   * session attribute, what each event means): the receiver stores them in one vocabulary, and the
   * agent-neutral telemetry observer (observe/read/telemetry-observer.ts) reads them for any row.
   */
  readonly telemetry: TelemetryDialect;
  /** Builds its readers for one watch. */
  connect(ctx: HarnessContext): HarnessSession;
}

/**
 * An argv shown as one shell line a person can paste: each element single-quoted unless it is
 * plainly safe, so a prompt or id with spaces, quotes, `$` or `;` stays one argument.
 */
export function commandLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`)).join(' ');
}

/**
 * A command template filled for a person to paste: each `{placeholder}` replaced by its value, and
 * every element that held one single-quoted whatever it holds (a prompt naming a path with `$(…)`
 * runs nothing); literal words as `commandLine` writes them. An unknown placeholder stays as is.
 */
export function fillCommandLine(template: readonly string[], values: Readonly<Record<string, string>>): string {
  return template
    .map((word) => {
      if (!/\{[a-z_]+\}/.test(word)) return commandLine([word]);
      const filled = word.replace(/\{([a-z_]+)\}/g, (m, name: string) => (Object.hasOwn(values, name) ? values[name]! : m));
      return `'${filled.replaceAll("'", `'\\''`)}'`;
    })
    .join(' ');
}

/** No evidence: one array, so an unchanged check can return it again. */
const NONE: readonly PartialObservation[] = [];

/**
 * `observer` for the rows `reads` accepts only (a row naming another CLI gets no parts from it):
 * only the harness a row names reads it.
 */
export function onlyRows<O extends TaskObserver>(observer: O, reads: (task: Task) => boolean): O {
  return Object.assign(Object.create(observer) as O, {
    observe: (task: Task, nowMs: number, mayDefer?: boolean) =>
      reads(task) ? observer.observe(task, nowMs, mayDefer) : Promise.resolve(NONE as PartialObservation[]),
    ...(observer.observeUnchanged && {
      observeUnchanged: (task: Task, nowMs: number, isStatRequired?: boolean) => (reads(task) ? observer.observeUnchanged!(task, nowMs, isStatRequired) : NONE),
    }),
  });
}
