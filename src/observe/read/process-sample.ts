// Samples agent processes on Linux (issue 19 item 1): identity and CPU from /proc/<pid>/stat, read
// bytes from /proc/<pid>/io, live descendants from /proc/<pid>/task/*/children, and the bytes each
// TCP connection to the model API received from `ss -tinp` (iproute2; one run per check for every
// pid). Without /proc a pid gets no sample; without `ss` a sample has no API bytes. I/O.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { parseProcStat } from '../../sys/proc-identity.js';
import type { ProcessSample } from '../parse/process-evidence.js';

/** The peer port of the model API when the process names none (`ANTHROPIC_BASE_URL` unset: https). */
export const DEFAULT_API_PORT = 443;
/** Descendants listed at most per process. @defaultValue 64 */
const CHILDREN_MAX = 64;
/** How long one `ss` run may take, in ms. @defaultValue 2000 */
const SS_TIMEOUT_MS = 2000;

const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/** utime + stime (fields 14, 15) of a /proc/<pid>/stat line. */
function cpuTicksOf(stat: string): number | undefined {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(rest[11]) + Number(rest[12]);
  return Number.isFinite(ticks) ? ticks : undefined;
}

/** The live descendants of `pid` (threads' `children` files; needs CONFIG_PROC_CHILDREN), at most CHILDREN_MAX. */
function liveDescendants(pid: number): number | undefined {
  const seen = new Set<number>();
  const queue = [pid];
  let listed = false;
  while (queue.length > 0 && seen.size < CHILDREN_MAX) {
    const p = queue.shift()!;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const text = readText(`/proc/${p}/task/${tid}/children`);
      if (text === undefined) continue;
      listed = true;
      for (const c of text.trim().split(/\s+/).filter(Boolean).map(Number)) {
        const st = readText(`/proc/${c}/stat`);
        const state = st === undefined ? undefined : parseProcStat(st)?.state;
        if (state === undefined || state === 'Z' || state === 'X' || seen.has(c)) continue;
        seen.add(c);
        queue.push(c);
      }
    }
  }
  return listed ? seen.size : undefined;
}

/** The API port a process talks to: its `ANTHROPIC_BASE_URL`'s, else 443 (environ is readable for our own processes only). */
export function apiPortOf(pid: number): number {
  const env = readText(`/proc/${pid}/environ`);
  const url = env
    ?.split('\0')
    .find((e) => e.startsWith('ANTHROPIC_BASE_URL='))
    ?.slice('ANTHROPIC_BASE_URL='.length);
  if (!url) return DEFAULT_API_PORT;
  try {
    const u = new URL(url);
    return u.port ? Number(u.port) : u.protocol === 'http:' ? 80 : DEFAULT_API_PORT;
  } catch {
    return DEFAULT_API_PORT;
  }
}

/** A /proc sample of `pid` without API bytes; undefined when the process is gone, a zombie, or there is no /proc. */
export function readProcFields(pid: number): ProcessSample | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  const parsed = stat === undefined ? undefined : parseProcStat(stat);
  if (!stat || !parsed || parsed.state === 'Z' || parsed.state === 'X') return undefined;
  const rchar = Number(/^rchar: (\d+)$/m.exec(readText(`/proc/${pid}/io`) ?? '')?.[1]);
  const children = liveDescendants(pid);
  const cpu = cpuTicksOf(stat);
  return {
    pid,
    startTicks: parsed.startTicks,
    ...(children !== undefined ? { liveChildren: children } : {}),
    ...(cpu !== undefined ? { cpuTicks: cpu } : {}),
    ...(Number.isFinite(rchar) ? { readBytes: rchar } : {}),
  };
}

/**
 * Parse `ss -tinpH` output: per socket a line `[State] Recv-Q Send-Q local peer users:(("name",pid=N,fd=M),…)`
 * and an indented line of TCP info holding `bytes_received:N` (absent while nothing was received).
 * Returns, per pid, the bytes received by each connection whose peer port is `portOf(pid)`.
 */
export function parseSsOutput(text: string, portOf: (pid: number) => number | undefined): Map<number, Record<string, number>> {
  const out = new Map<number, Record<string, number>>();
  let current: { key: string; peerPort: number; pids: number[] } | undefined;
  const add = (bytes: number) => {
    if (!current) return;
    for (const pid of current.pids) {
      if (portOf(pid) !== current.peerPort) continue;
      const conns = out.get(pid) ?? {};
      conns[current.key] = bytes;
      out.set(pid, conns);
    }
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (!/^\s/.test(line)) {
      if (current) add(0);
      // `Recv-Q Send-Q local peer` (a state column first unless filtered by state), then users:(…).
      const cols = line.split(' users:')[0]!.trim().split(/\s+/);
      const local = cols.at(-2);
      const peer = cols.at(-1);
      const pids = [...line.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1]));
      const peerPort = Number(peer?.slice(peer.lastIndexOf(':') + 1));
      current = local && peer && pids.length > 0 && Number.isInteger(peerPort) ? { key: `${local}>${peer}`, peerPort, pids } : undefined;
      const same = /bytes_received:(\d+)/.exec(line);
      if (same && current) {
        add(Number(same[1]));
        current = undefined;
      }
      continue;
    }
    const m = /bytes_received:(\d+)/.exec(line);
    if (current && m) {
      add(Number(m[1]));
      current = undefined;
    }
  }
  if (current) add(0);
  return out;
}

/** `ss -tinpH state established`, or undefined when it cannot run (not Linux, no iproute2). */
function runSs(): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('ss', ['-tinpH', 'state', 'established'], { timeout: SS_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, windowsHide: true }, (err, stdout) =>
      resolve(err ? undefined : String(stdout)),
    );
  });
}

/** Sample every pid now: one `ss` run for all of them, then /proc. A pid that is gone has no entry. */
export async function readProcessSamples(pids: readonly number[], apiPorts: Map<number, number>): Promise<Map<number, ProcessSample>> {
  const out = new Map<number, ProcessSample>();
  if (pids.length === 0) return out;
  const ss = process.platform === 'linux' ? await runSs() : undefined;
  const bytes = ss === undefined ? undefined : parseSsOutput(ss, (pid) => apiPorts.get(pid));
  for (const pid of pids) {
    const s = readProcFields(pid);
    if (!s) continue;
    out.set(pid, bytes ? { ...s, apiBytesReceived: bytes.get(pid) ?? {} } : s);
  }
  return out;
}
