import type { Clock, Output, Terminal } from './deps.js';
import type { WatchView } from './watch-view.js';
import type { DispatchEvent, EventBody } from './contracts/events.js';
import type { ActionPerformer, CheckResult, WaveOverlay } from './check.js';
import type { DispatchLog } from './journal/dispatch-log.js';
import type { History } from './core/history.js';
import type { PauseMeter } from './sys/pause-meter.js';
import type { StatePaths } from './files/paths.js';
import type { TaskObserver } from './observe/read/observer.js';
import type { SettleOptions } from './observe/read/settle.js';
import type { ResolvedOptions } from './options.js';
import type { RecoveryReport } from './act/recovery/recover.js';
import type { TelemetrySink } from './act/telemetry/telemetry.js';

export interface WatchDeps {
  clock: Clock;
  output: Output;
  signal: AbortSignal;
  pid: number;
  /** Evidence sources beyond the row (Claude Code transcripts and hooks). */
  makeObservers?: (paths: StatePaths, opts: ResolvedOptions) => TaskObserver[];
  /** Recovery actions (cancel / redispatch / escalate); absent → report only. */
  makePerformer?: (ctx: { paths: StatePaths; opts: ResolvedOptions; log: DispatchLog; history: History; runId: string }) => ActionPerformer;
  makeOverlay?: (opts: ResolvedOptions) => WaveOverlay;
  /** The terminal the live view draws on (absent: plain lines). */
  terminal?: Terminal;
  /** The live view to draw on instead of one made here (the demo's, which adds its own lines to the feed). */
  view?: WatchView;
  /** Plain output: a heartbeat line after this long without one. @defaultValue 300000 */
  heartbeatMs?: number;
  /** Wake early when the state file changes. @defaultValue true (tests on a manual clock turn it off) */
  shouldWatchStateFile?: boolean;
  /** How a confirming read waits for the state file to stop changing (tests shorten it). */
  settle?: SettleOptions;
  /** How long a missing state file may take to appear at start-up (--wait-for-state). @defaultValue DEFAULTS.fixed.missing_epic_settle_ms, 0 with --once */
  missingEpicSettleMs?: number;
  /** Webhook notifications (absent, or undefined: none configured). */
  makeNotifier?: (ctx: {
    paths: StatePaths;
    opts: ResolvedOptions;
    log: DispatchLog;
    history: History;
    runId: string;
    output: Output;
  }) => NotifierPort | undefined;
  /** The watchdog's own telemetry (OTel logs and metrics; undefined: OTEL_* asks for none). */
  makeTelemetry?: (output: Output) => Promise<TelemetrySink | undefined>;
  /** Measures how long the process stood still (real runs: sys/pause-meter.ts; absent on a manual clock). */
  makePauseMeter?: () => PauseMeter;
  /**
   * The loop's sleep between checks, made from the clock's (real runs: sys/batched-idle.ts, which
   * blocks the thread in short waits while a busy wave writes; absent on a manual clock and under
   * `serve`, whose receivers and other loops share the thread).
   */
  makeIdle?: (sleep: Clock['sleep']) => Clock['sleep'];
  /** Start-up recovery of actions a crash left unfinished. */
  recover?: (ctx: { paths: StatePaths; opts: ResolvedOptions; log: DispatchLog; history: History; runId: string }) => Promise<RecoveryReport>;
}

/** What the watch needs of a notifier (act/notify/notifier.ts). */
export interface NotifierPort {
  /** Lines to write with an event, in the same write. */
  companionsOf(e: DispatchEvent): readonly EventBody[];
  /** Told of every line written. */
  onAppended(e: DispatchEvent): void;
  /** Start-up: settle what a crash left unfinished (in the background). */
  recover(): void;
  drain(): Promise<void>;
}

/** `next`: the loop stops when the orchestrator has something to do, and prints it. */
export interface NextMode {
  shouldStop(r: Extract<CheckResult, { ok: true }>, history: History): boolean;
  /** Print what stopped the loop and journal that it was printed; returns the exit code. `isMaxWait`: --max-wait ran out first. */
  finish(r: Extract<CheckResult, { ok: true }> | undefined, history: History, log: DispatchLog, isMaxWait: boolean): Promise<number>;
  /** --max-wait: return after this long even with nothing to report. */
  maxWaitMs?: number;
}
