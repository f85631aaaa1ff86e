// The effects the shell uses, on one Deps object that cli.ts builds once. Tests inject fakes
// (a manual clock) where real effects would make them slow or flaky.

export interface Clock {
  nowMs(): number;
  /** Resolve after `ms`, or early (without error) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  nowMs: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const t = setTimeout(done, Math.max(0, ms));
      function done() {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};

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
      const entry = { until: this.now + ms, resolve };
      this.sleepers.push(entry);
      signal?.addEventListener(
        'abort',
        () => {
          this.sleepers = this.sleepers.filter((s) => s !== entry);
          resolve();
        },
        { once: true },
      );
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
}

/** Where human-readable output goes; tests capture it. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: Output = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
};
