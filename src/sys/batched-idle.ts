// The watch loop's sleep between checks while a busy wave writes (issue 37). Every write to a
// watched directory is an inotify event, and an event that arrives alone wakes the process for
// it: about 28 µs of CPU each on this 2-core VM at ~1,000 events a second, against 10 µs when
// the events of 50 ms are taken in one wake-up and 5 µs for those of 250 ms (a busy wave of
// 1,000 Claude Code 2.1.332 agents writes ~600 a second: three writes a turn, a turn every 5 s).
// So while events come fast, the thread sleeps in short blocking waits (Atomics.wait: no CPU)
// and lets the event loop turn once between two: everything that arrived meanwhile (events,
// timers, signals, a wake of the loop) is handled in one turn, at most `chunkMs` late. Quiet
// waves sleep as before: a blocking wait's own wake-up costs more than the few events it saves.
// I/O only through the event loop; no judgment.

export interface BatchedIdleOptions {
  /** The plain sleep, used while events come slowly (resolves early when `signal` aborts). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Change events seen by this process so far (a counter that only grows). */
  events: () => number;
  /** Events a second from which the sleep is taken in blocking waits. @defaultValue 200 */
  busyEventsPerSecond?: number;
  /** The longest blocking wait, in ms: how late an event, timer or signal is handled at most. @defaultValue 100 */
  chunkMs?: number;
  /** Monotonic ms. @defaultValue performance.now */
  now?: () => number;
}

/** Events a second from which the loop sleeps in blocking waits. @defaultValue 200 */
export const BUSY_EVENTS_PER_SECOND = 200;
/** The longest blocking wait, in ms. @defaultValue 100 */
export const IDLE_CHUNK_MS = 100;

/**
 * A sleep for the watch loop: as `sleep` while change events come slower than
 * `busyEventsPerSecond` (counted since the last call), else in blocking waits of at most
 * `chunkMs` with one turn of the event loop after each. Resolves at `ms`, or within a turn of
 * `signal` aborting. Only for a process whose one job is this loop: a wait blocks every other
 * piece of work on the thread for up to `chunkMs`.
 */
export function batchedIdle(o: BatchedIdleOptions): (ms: number, signal?: AbortSignal) => Promise<void> {
  const now = o.now ?? (() => performance.now());
  const busy = o.busyEventsPerSecond ?? BUSY_EVENTS_PER_SECOND;
  const chunkMs = o.chunkMs ?? IDLE_CHUNK_MS;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  let lastEvents = o.events();
  let lastAtMs = now();
  return async (ms, signal) => {
    const t = now();
    const events = o.events();
    const perSecond = ((events - lastEvents) * 1000) / Math.max(1, t - lastAtMs);
    lastEvents = events;
    lastAtMs = t;
    if (perSecond < busy) return o.sleep(ms, signal);
    const endMs = t + ms;
    for (;;) {
      if (signal?.aborted) return;
      const leftMs = endMs - now();
      if (leftMs <= 0) return;
      Atomics.wait(cell, 0, 0, Math.min(chunkMs, leftMs));
      // One whole turn: its poll phase takes every event the kernel queued during the wait.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
}
