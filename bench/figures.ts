// What every bench module shares: the two scales, the CLI under test, percentiles and their text,
// a figure's shape, and running node with its peak RSS. Imports nothing of bench/ (no cycle).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Scale {
  quick: boolean;
  agents: number;
  fileBytes: number;
  steadyChecks: number;
  naiveChecks: number;
  logEvents: number;
  logDays: number;
  startRuns: number;
  detectAgents: number;
  detectSpreadS: number;
  detectTimeoutS: number;
  /** Detection again with `detectAgents` stalling among this many agents in flight (0: not run). */
  detectFleetAgents: number;
  hookRuns: number;
  /** Fleets of these sizes for the whole-process steady check (bench/scale.ts). */
  scaleAgents: number[];
  scaleBytes: number;
  /**
   * Checks of the real loop in each measured window. A full collection (or the memory reducer's
   * three) costs 100+ ms at once: a window of 15 checks either held one or missed it, so the
   * full bench averages over 60 (docs/performance.md).
   */
  loopChecks: number;
  /** Checks of the real loop before its settled figure is taken (V8 compiles the hot path meanwhile). */
  settleChecks: number;
}

export const FULL: Scale = {
  quick: false,
  agents: 1000,
  fileBytes: 1024 * 1024,
  steadyChecks: 40,
  naiveChecks: 2,
  logEvents: 1_000_000,
  logDays: 90,
  startRuns: 5,
  detectAgents: 200,
  detectSpreadS: 30,
  detectTimeoutS: 20,
  detectFleetAgents: 10_000,
  hookRuns: 60,
  scaleAgents: [100, 1000, 10_000],
  scaleBytes: 32 * 1024,
  loopChecks: 60,
  settleChecks: 60,
};
export const QUICK: Scale = {
  quick: true,
  agents: 1000,
  fileBytes: 32 * 1024,
  steadyChecks: 20,
  naiveChecks: 2,
  logEvents: 100_000,
  logDays: 90,
  startRuns: 3,
  detectAgents: 200,
  detectSpreadS: 8,
  detectTimeoutS: 8,
  detectFleetAgents: 0,
  hookRuns: 40,
  scaleAgents: [100, 1000],
  scaleBytes: 16 * 1024,
  loopChecks: 8,
  settleChecks: 30,
};

export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');
/**
 * The CLI as an installed package runs it: the npm bin runs the one-file bundle there
 * (bin/dispatch-watchdog.js; a checkout's bin runs dist/). `npm run bench` builds it first (npm run build).
 */
export const cli = path.join(root, 'bundle', 'cli.cjs');

export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};
export const f0 = (n: number) => n.toFixed(0);
export const f1 = (n: number) => n.toFixed(1);
export const lat = (xs: number[], unit = 'ms', fmt = f1) => `p50 ${fmt(pct(xs, 50))} ${unit}, p99 ${fmt(pct(xs, 99))} ${unit}`;

export interface Figure {
  figure: string;
  goal: string;
  ours: string;
  naive: string;
  met: boolean;
  /** Not a goal of the table: shown, not counted. */
  isExtra?: boolean;
  /** The figure's own number (ms), for a figure printed beside it. */
  value?: number;
}

/** Run node with `args`; its wall time and, from outside (GNU time: wait4's ru_maxrss, the process's VmHWM), its peak RSS. */
export function node(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string } = {},
): { ms: number; rssMb?: number; cpuMs?: number; stdout: string; status: number | null } {
  const time = existsSync('/usr/bin/time');
  const cmd = time ? '/usr/bin/time' : process.execPath;
  const argv = time ? ['-f', '__RSS_KB=%M __CPU_S=%U+%S', process.execPath, ...args] : args;
  const t = performance.now();
  const r = spawnSync(cmd, argv, { env: { ...process.env, ...opts.env }, input: opts.input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - t;
  const m = /__RSS_KB=(\d+) __CPU_S=([\d.]+)\+([\d.]+)/.exec(r.stderr ?? '');
  if (r.error) throw r.error;
  return { ms, rssMb: m ? Number(m[1]) / 1024 : undefined, cpuMs: m ? (Number(m[2]) + Number(m[3])) * 1000 : undefined, stdout: r.stdout, status: r.status };
}
