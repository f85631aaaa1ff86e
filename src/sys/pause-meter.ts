// How long this process was not running: the longest gap between two ticks of an unref'd timer
// (every 500 ms) since the last reading, less the tick itself and less the CPU time the process
// used in that gap. A stopped process (SIGSTOP, a paused VM) stalls the timer and uses no CPU,
// wherever the pause fell: in a check as well as between checks (where the loop's own lateness
// sees it too). A check of its own that holds the event loop for seconds (a cold check of 10,000
// agents on a slow machine) stalls the timer too, but the process was running and so were the
// agents: their silence went on, and counting it as unseen time moved every stall deadline on by
// that long (the bench's detection among 10,000 agents: every stall 2.4-6 s late).
export interface PauseMeter {
  /** The longest stall since the last call, in ms (0 when none was measured). */
  read(): number;
  stop(): void;
}

/** CPU time this process has used, all threads, in ms. */
const processCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Start measuring; `stop` when the watch ends.
 * @param tickMs how often the timer ticks
 * @param cpuMs the process's CPU time so far, in ms (tests inject it)
 */
export function startPauseMeter(tickMs = 500, cpuMs: () => number = processCpuMs): PauseMeter {
  let last = performance.now();
  let lastCpu = cpuMs();
  let longest = 0;
  const sample = () => {
    const now = performance.now();
    const cpu = cpuMs();
    longest = Math.max(longest, now - last - tickMs - (cpu - lastCpu));
    last = now;
    lastCpu = cpu;
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
