// Who a pid is: its start time (/proc/<pid>/stat field 22, clock ticks since boot) and the boot id,
// so a recycled pid is never mistaken for the agent that once had it. Linux only; elsewhere "unknown".
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';

/** A process as it was when first seen: the same pid with another start time or boot is someone else. */
export interface ProcessIdentity {
  pid: number;
  /** /proc/<pid>/stat field 22 (starttime), in clock ticks since boot. */
  startTicks: number;
  /** /proc/sys/kernel/random/boot_id: start ticks restart at every boot. */
  bootId?: string;
}

/** Parse /proc/<pid>/stat: the command name is in parentheses and may hold spaces and ")". */
export function parseProcStat(text: string): { state: string; ppid: number; pgrp: number; startTicks: number } | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3 (state), so field n is rest[n - 3].
  const state = rest[0];
  const ppid = Number(rest[1]);
  const pgrp = Number(rest[2]);
  const startTicks = Number(rest[19]);
  if (!state || !Number.isSafeInteger(startTicks) || !Number.isSafeInteger(pgrp)) return undefined;
  return { state, ppid, pgrp, startTicks };
}

/** Every live process in group `pgrp` (from /proc; empty without it): pid, parent, start ticks. */
export async function processGroupMembers(pgrp: number): Promise<{ pid: number; ppid: number; startTicks: number }[]> {
  let names: string[];
  try {
    names = await fs.readdir('/proc');
  } catch {
    return [];
  }
  const members: { pid: number; ppid: number; startTicks: number }[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const text = await fs.readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined);
    const st = text === undefined ? undefined : parseProcStat(text);
    if (st && st.pgrp === pgrp && st.state !== 'Z' && st.state !== 'X') members.push({ pid: Number(name), ppid: st.ppid, startTicks: st.startTicks });
  }
  return members;
}

/** `pid` and every ancestor of it up to init (from /proc; just `pid` and `ppid` of ours without it). */
export async function ancestry(pid = process.pid): Promise<number[]> {
  const out = [pid];
  for (let p = pid; out.length < 4096; ) {
    const text = await fs.readFile(`/proc/${p}/stat`, 'utf8').catch(() => undefined);
    const st = text === undefined ? undefined : parseProcStat(text);
    const parent = st?.ppid ?? (p === process.pid ? process.ppid : undefined);
    if (parent === undefined || parent <= 0 || out.includes(parent)) break;
    out.push(parent);
    p = parent;
  }
  return out;
}

let bootIdCache: Promise<string | undefined> | undefined;
const readBootId = () =>
  (bootIdCache ??= fs.readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
    (s) => s.trim(),
    () => undefined,
  ));

/** What /proc says about a pid right now. */
export type ProcessProbe =
  | { kind: 'alive'; identity: ProcessIdentity /** process group id (field 5) */; pgrp: number }
  | { kind: 'gone' }
  | { kind: 'unknown'; reason: string };

/** The live process behind `pid` now: `gone` (no such process, or a zombie), or `unknown` without /proc. */
export async function probeProcess(pid: number): Promise<ProcessProbe> {
  let text: string;
  try {
    text = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') {
      try {
        await fs.access('/proc/self/stat');
        return { kind: 'gone' };
      } catch {
        return isAlive(pid) ? { kind: 'unknown', reason: 'no /proc on this system' } : { kind: 'gone' };
      }
    }
    return { kind: 'unknown', reason: `cannot read /proc/${pid}/stat (${code ?? String(e)})` };
  }
  const stat = parseProcStat(text);
  if (!stat) return { kind: 'unknown', reason: `cannot parse /proc/${pid}/stat` };
  // A zombie has exited; only its parent's wait() is missing. X = dead.
  if (stat.state === 'Z' || stat.state === 'X') return { kind: 'gone' };
  return { kind: 'alive', identity: { pid, startTicks: stat.startTicks, bootId: await readBootId() }, pgrp: stat.pgrp };
}

/** The identity of a running process, to record when a task (or a replacement) is first seen; undefined if gone or unknowable. */
export async function readProcessIdentity(pid: number): Promise<ProcessIdentity | undefined> {
  const p = await probeProcess(pid);
  return p.kind === 'alive' ? p.identity : undefined;
}

/** Same process: same pid, same start ticks, and the same boot when both sides know it. */
export function isSameProcess(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.pid === b.pid && a.startTicks === b.startTicks && (a.bootId === undefined || b.bootId === undefined || a.bootId === b.bootId);
}

/** `kill(pid, 0)`: true when the pid exists (EPERM means it exists but is not ours). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let hzCache: Promise<number> | undefined;
/** Clock ticks per second (`getconf CLK_TCK`, run once without a shell); 100 on every common Linux. */
export function clockTicksPerSecond(): Promise<number> {
  return (hzCache ??= new Promise((resolve) => {
    execFile('getconf', ['CLK_TCK'], { timeout: 2000 }, (err, stdout) => {
      const hz = Number(String(stdout).trim());
      resolve(!err && Number.isInteger(hz) && hz > 0 ? hz : 100);
    });
  }));
}

/**
 * The boot time (/proc/stat `btime`, epoch s) seen so far by this process, lowest and highest. The
 * kernel derives it from the wall clock, so a clock stepped forward (a VM resumed, NTP) moves it
 * and every start time computed from it: a time written before the step is compared with both.
 */
export interface BootTimes {
  minS: number;
  maxS: number;
}
let bootTimes: BootTimes | undefined;

/** `seen` widened by one more reading of `btime`. */
export function widenBootTimes(seen: BootTimes | undefined, btimeS: number): BootTimes {
  return seen ? { minS: Math.min(seen.minS, btimeS), maxS: Math.max(seen.maxS, btimeS) } : { minS: btimeS, maxS: btimeS };
}

/** Read `btime` now and remember it; undefined without /proc. Called at watch start so a later step is seen. */
export async function sampleBootTime(): Promise<BootTimes | undefined> {
  const btime = await readBootTimeS();
  return btime === undefined ? bootTimes : (bootTimes = widenBootTimes(bootTimes, btime));
}

/** /proc/stat `btime` as of now, in epoch seconds. */
async function readBootTimeS(): Promise<number | undefined> {
  try {
    const btime = Number(/^btime (\d+)$/m.exec(await fs.readFile('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(btime) ? btime : undefined;
  } catch {
    return undefined;
  }
}

/** A process's wall-clock start in epoch ms, earliest and latest under every boot time seen; undefined without /proc. */
export async function processStartRangeMs(identity: ProcessIdentity): Promise<{ earliestMs: number; latestMs: number } | undefined> {
  const seen = await sampleBootTime();
  if (!seen) return undefined;
  const sinceBootMs = (identity.startTicks * 1000) / (await clockTicksPerSecond());
  return { earliestMs: seen.minS * 1000 + sinceBootMs, latestMs: seen.maxS * 1000 + sinceBootMs };
}

/** Wall-clock start of a process in epoch ms (boot time from /proc/stat `btime` + start ticks, as of now); undefined without /proc. */
export async function processStartMs(identity: ProcessIdentity): Promise<number | undefined> {
  const btime = await readBootTimeS();
  return btime === undefined ? undefined : btime * 1000 + (identity.startTicks * 1000) / (await clockTicksPerSecond());
}

/** The live processes whose environment holds every `name=value` of `vars` (/proc/<pid>/environ, readable for our own user's processes only). */
export async function findProcessesWithEnv(vars: Record<string, string>): Promise<ProcessIdentity[]> {
  let names: string[];
  try {
    names = await fs.readdir('/proc');
  } catch {
    return [];
  }
  const needles = Object.entries(vars).map(([k, v]) => `${k}=${v}`);
  const found: ProcessIdentity[] = [];
  for (const entry of names) {
    if (!/^\d+$/.test(entry)) continue;
    const env = await fs.readFile(`/proc/${entry}/environ`, 'utf8').catch(() => undefined);
    const entries = env?.split('\0');
    if (!entries || !needles.every((n) => entries.includes(n))) continue;
    const probe = await probeProcess(Number(entry));
    if (probe.kind === 'alive') found.push(probe.identity);
  }
  return found;
}
