// How long this process was not running: the longest gap between two ticks of an unref'd timer
// (every 500 ms) since the last reading, less the tick itself. A stopped process (SIGSTOP, a
// paused VM) or a blocked event loop stalls it whole, wherever the pause fell: in a check as well
// as between checks (where the loop's own lateness sees it too).
export interface PauseMeter {
  /** The longest stall since the last call, in ms (0 when none was measured). */
  read(): number;
  stop(): void;
}

/** Start measuring; `stop` when the watch ends. @param tickMs how often the timer ticks */
export function startPauseMeter(tickMs = 500): PauseMeter {
  let last = performance.now();
  let longest = 0;
  const sample = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last - tickMs);
    last = now;
  };
  const timer = setInterval(sample, tickMs);
  timer.unref();
  return {
    read() {
      sample(); // the stall still under way when read counts too
      const ms = Math.max(0, longest);
      longest = 0;
      return ms;
    },
    stop: () => clearInterval(timer),
  };
}
