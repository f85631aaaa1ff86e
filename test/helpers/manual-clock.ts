// A clock for tests: it only moves when told, so a test of the loop never sleeps.
import type { Clock } from '../../src/deps.js';

/** A clock that only moves when told; `sleep` resolves when `advance` passes its deadline. */
export class ManualClock implements Clock {
  private now: number;
  private sleepers: { until: number; resolve: () => void }[] = [];
  private sleepWaiters: (() => void)[] = [];
  constructor(startMs: number) {
    this.now = startMs;
  }
  nowMs() {
    return this.now;
  }
  sleep(ms: number, signal?: AbortSignal) {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== entry);
        resolve();
      };
      // Woken by the clock: drop the abort listener, so a long test never piles them up on one signal.
      const entry = { until: this.now + ms, resolve: () => (signal?.removeEventListener('abort', onAbort), resolve()) };
      this.sleepers.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
      for (const w of this.sleepWaiters.splice(0)) w();
    });
  }
  /** Resolves once somebody is sleeping on this clock (the loop finished a check). */
  waitForSleeper(): Promise<void> {
    if (this.sleepers.length > 0) return Promise.resolve();
    return new Promise((r) => this.sleepWaiters.push(r));
  }
  /** The earliest time a sleeper wakes, if any. */
  nextWakeMs(): number | undefined {
    return this.sleepers.length ? Math.min(...this.sleepers.map((s) => s.until)) : undefined;
  }
  advance(ms: number) {
    this.now += ms;
    const due = this.sleepers.filter((s) => s.until <= this.now);
    this.sleepers = this.sleepers.filter((s) => s.until > this.now);
    for (const s of due) s.resolve();
  }
  set(ms: number) {
    this.advance(ms - this.now);
  }
  /**
   * Let `ms` pass as on a machine that is running: each sleeper wakes at its own deadline and
   * `settled` is awaited before the clock moves on. (`advance` is a jump: the machine slept, and
   * the watchdog sees it woke late.)
   */
  async pass(ms: number, settled: () => Promise<void>): Promise<void> {
    const target = this.now + ms;
    for (let next = this.nextWakeMs(), steps = 0; next !== undefined && next < target; next = this.nextWakeMs()) {
      if (++steps > 100_000) throw new Error(`ManualClock.pass: sleepers keep waking at ${this.now} without time passing`);
      this.set(Math.max(next, this.now));
      await new Promise((r) => setImmediate(r));
      await settled();
    }
    this.set(target);
    await new Promise((r) => setImmediate(r));
    await settled();
  }
}
