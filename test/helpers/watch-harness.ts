// Run the real watch command in-process on a manual clock, capturing its output.
import type { Output } from '../../src/deps.js';
import { ManualClock } from './manual-clock.js';
import { resolveOptions, type WatchdogFlags } from '../../src/options.js';
import { runWatch, type WatchDeps } from '../../src/watch.js';

export interface Harness {
  clock: ManualClock;
  out: string[];
  err: string[];
  /** Resolves with the exit code. */
  done: Promise<number>;
  stop(signal?: string): void;
  /** Wait until the loop sleeps again (one check finished). */
  settled(): Promise<void>;
  /** Move the clock and wait for the next check to finish. */
  advance(ms: number): Promise<void>;
}

export async function startWatch(flags: WatchdogFlags, startMs: number, extra: Partial<WatchDeps> = {}): Promise<Harness> {
  const clock = new ManualClock(startMs);
  const out: string[] = [];
  const err: string[] = [];
  const output: Output = { out: (t) => void out.push(t), err: (t) => void err.push(t) };
  const controller = new AbortController();
  const opts = await resolveOptions(flags, {}, process.cwd());
  // The manual clock decides when checks run; a file watcher waking the loop would race it.
  const done = runWatch(opts, {
    clock,
    output,
    signal: controller.signal,
    pid: process.pid,
    shouldWatchStateFile: false,
    settle: { intervalMs: 5, maxWaitMs: 1000, restMs: 5 },
    ...extra,
  });
  const settled = () => Promise.race([clock.waitForSleeper(), done.then(() => undefined)]);
  await settled();
  return {
    clock,
    out,
    err,
    done,
    stop: (signal = 'SIGTERM') => controller.abort({ signal }),
    settled,
    advance: (ms: number) => clock.pass(ms, settled),
  };
}
