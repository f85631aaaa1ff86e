// The live owner of a Codex thread (reference §2, §4, §12.3): the process holding the flock on the
// thread's writer lock (the native `codex`, whatever the row's pid is: the npm node wrapper on
// Node < 22.15), and the commands it runs (`bash -lc` children, each in a process group of its own).
// I/O: /proc. Off Linux nothing can be told ('unknown').
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { parseProcLocks } from '../parse/proc-locks.js';

/** The pid holding an flock on `lockPath` (confirmed by its open files), or undefined; null when /proc/locks cannot be read. */
export function lockHolder(lockPath: string): number | undefined | null {
  let text: string;
  try {
    text = readFileSync('/proc/locks', 'utf8');
  } catch {
    return null;
  }
  let ino: number;
  try {
    ino = statSync(lockPath).ino;
  } catch {
    return undefined; // no lock file: never started, or exited cleanly (Codex removes it)
  }
  for (const h of parseProcLocks(text)) {
    if (h.inode !== ino) continue;
    if (opensFile(h.pid, lockPath)) return h.pid;
  }
  return undefined;
}

function opensFile(pid: number, file: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
    } catch {
      return false;
    }
  });
}

const statFields = (pid: number): string[] | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ...stat.slice(stat.lastIndexOf(')') + 2).split(' ')];
  } catch {
    return undefined;
  }
};

/** The children of `pid`: pid, comm and process group, from /proc. */
export function childrenOf(pid: number): { pid: number; comm: string; pgid: number }[] {
  const out: { pid: number; comm: string; pgid: number }[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const d of names) {
    if (!/^\d+$/.test(d)) continue;
    const f = statFields(Number(d));
    // fields: [comm, state, ppid, pgrp, …]
    if (f && Number(f[2]) === pid) out.push({ pid: Number(d), comm: f[0]!, pgid: Number(f[3]) });
  }
  return out;
}

/** The command process groups the owner runs now: its `bash` children leading a group of their own. */
export function commandGroupsOf(ownerPid: number): number[] {
  return childrenOf(ownerPid)
    .filter((c) => c.comm === 'bash' && c.pgid === c.pid)
    .map((c) => c.pgid);
}

/** The native agent of a launched `codex` pid: itself when it is the native binary, else its child named codex. */
export function nativeCodexPid(pid: number): number | undefined {
  const f = statFields(pid);
  if (!f) return undefined;
  if (f[0] === 'codex') return pid;
  return childrenOf(pid).find((c) => c.comm === 'codex')?.pid;
}
