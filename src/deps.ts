// The clock and the output the shell uses. cli.ts builds the real ones once (CliEnv.watchDeps);
// tests inject test/helpers/manual-clock.ts and a captured Output where real ones would be slow or flaky.

export interface Clock {
  nowMs(): number;
  /** Resolve after `ms`, or early (without error) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The longest delay setTimeout honours. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const realClock: Clock = {
  nowMs: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      // setTimeout fires at once past 2^31-1 ms: sleep at most that long (the caller checks again).
      const t = setTimeout(done, Math.min(Math.max(0, ms), MAX_TIMER_MS));
      function done() {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** Where human-readable output goes; tests capture it. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: Output = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
};

/** What the output can do; only a human's terminal gets a table redrawn in place. */
export interface Terminal {
  /** stdout is a terminal that understands cursor movement (not TERM=dumb). */
  isTty: boolean;
  /** Colour allowed (a TTY, no NO_COLOR, not TERM=dumb). */
  hasColor: boolean;
  /** Current width in characters, read at every redraw (the terminal can be resized). */
  columns(): number | undefined;
}

/** Describe a stream as a Terminal, honouring NO_COLOR and TERM=dumb. */
export function detectTerminal(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): Terminal {
  const isTty = Boolean(stream.isTTY) && env.TERM !== 'dumb';
  return { isTty, hasColor: isTty && env.NO_COLOR === undefined, columns: () => stream.columns };
}
