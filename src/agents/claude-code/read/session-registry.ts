// Claude Code's session registry (2.1.x): `<config dir>/sessions/<pid>.json` names the session each
// process runs, its `version` and its `procStart` (contracts/claude-session.ts), and is removed when
// the process exits cleanly. From it: which pid runs a session (the process observer samples it),
// which Claude Code the session runs, and whether its run is over though no `SessionEnd` hook said
// so: the process killed with -9 (its file left behind, its pid gone or someone else's), or gone
// with its file removed and no hook installed (issue 38). I/O (synchronous, cheap: the dir is
// listed at most every `relistMs` on a miss, a known process probed at most every `probeMs`).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ClaudeSessionFileSchema } from '../../../contracts/claude-session.js';
import { parseProcStat } from '../../../sys/proc-identity.js';

/** What the registry knows of one session's process. */
export interface SessionRun {
  pid: number;
  /** When the process started (`startedAt`), in ms. */
  startedAtMs?: number;
  /** The Claude Code it runs (`version`), when its file says. */
  version?: string;
  /** `/proc/<pid>/stat` start ticks as Claude Code recorded them (`procStart`): a recycled pid is someone else. */
  procStart?: number;
  /** Its file was listed, then gone at a later listing (a clean exit removes it). */
  isFileGone?: boolean;
  /** When its process was first found gone (the run's end as far as we know), in ms. */
  goneAtMs?: number;
  /** When its process was last probed, in ms. */
  probedAtMs?: number;
}

/** Is `pid` alive and (when `procStart` is known) the process that had it? Undefined: cannot tell (no /proc). */
export type PidProbe = (pid: number, procStart?: number) => boolean | undefined;

/** `/proc/<pid>/stat`: gone, a zombie or another start time is not the process. Undefined without /proc. */
export const probePid: PidProbe = (pid, procStart) => {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ESRCH') return undefined;
    try {
      readdirSync('/proc/self');
    } catch {
      return undefined; // no /proc here: nothing to say
    }
    return false;
  }
  const st = parseProcStat(text);
  if (!st) return undefined;
  if (st.state === 'Z' || st.state === 'X') return false;
  return procStart === undefined || st.startTicks === procStart;
};

export interface SessionRegistry {
  /** The pid that runs `sessionId`, as its file said (also after the process is gone). */
  sessionPid(sessionId: string, nowMs: number): number | undefined;
  /** What is known of the session's process, its liveness probed as of `nowMs`. */
  run(sessionId: string, nowMs: number): SessionRun | undefined;
  /** When the process `pid` (a row's own `pid`) was first found gone, probed as of `nowMs`; undefined: alive or unknown. */
  pidGone(pid: number, nowMs: number): number | undefined;
}

export interface SessionRegistryOptions {
  /** Re-list the dir at most this often when a session is not found, in ms. @defaultValue 5000 */
  relistMs?: number;
  /** Probe a known process at most this often, in ms. @defaultValue 1000 */
  probeMs?: number;
  probe?: PidProbe;
}

/** The registry over `sessionsDir` (undefined or missing: knows nothing). */
export function createSessionRegistry(sessionsDir: string | undefined, opts: SessionRegistryOptions = {}): SessionRegistry {
  const relistMs = opts.relistMs ?? 5000;
  const probeMs = opts.probeMs ?? 1000;
  const probe = opts.probe ?? probePid;
  const runs = new Map<string, SessionRun>();
  /** File name → the session it names (a file's pid, session and version never change while it exists). */
  const files = new Map<string, string>();
  const pids = new Map<number, { goneAtMs?: number; probedAtMs: number }>();
  let listedAtMs = -Infinity;

  function list(nowMs: number): void {
    if (!sessionsDir || nowMs - listedAtMs < relistMs) return;
    listedAtMs = nowMs;
    let names: string[];
    try {
      names = readdirSync(sessionsDir).filter((n) => /^\d+\.json$/.test(n));
    } catch {
      return;
    }
    const now = new Set(names);
    for (const [name, id] of files) {
      if (now.has(name)) continue;
      files.delete(name);
      const r = runs.get(id);
      if (r && `${r.pid}.json` === name) r.isFileGone = true;
    }
    for (const n of names) {
      if (files.has(n)) continue;
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(path.join(sessionsDir, n), 'utf8'));
      } catch {
        continue; // being written, or not Claude Code's: looked at again on the next listing
      }
      const f = ClaudeSessionFileSchema.safeParse(json);
      if (!f.success) continue;
      files.set(n, f.data.sessionId);
      const procStart = Number(f.data.procStart);
      const startedAtMs = typeof f.data.startedAt === 'number' ? f.data.startedAt : undefined;
      // A session resumed by another process (`claude --resume`) is that process's now; a file a
      // killed process left behind never displaces a newer one.
      const prev = runs.get(f.data.sessionId);
      if (prev && prev.goneAtMs === undefined && !prev.isFileGone && (prev.startedAtMs ?? 0) > (startedAtMs ?? 0)) continue;
      runs.set(f.data.sessionId, {
        pid: f.data.pid,
        ...(startedAtMs !== undefined ? { startedAtMs } : {}),
        ...(typeof f.data.version === 'string' ? { version: f.data.version } : {}),
        ...(Number.isSafeInteger(procStart) && procStart > 0 ? { procStart } : {}),
      });
    }
  }

  function find(sessionId: string, nowMs: number): SessionRun | undefined {
    if (!runs.has(sessionId)) list(nowMs);
    return runs.get(sessionId);
  }

  return {
    sessionPid: (sessionId, nowMs) => find(sessionId, nowMs)?.pid,
    run(sessionId, nowMs) {
      if (!find(sessionId, nowMs)) return undefined;
      // Its file removed (a clean exit), or the session resumed by another process (the listing names that one).
      list(nowMs);
      const now = runs.get(sessionId)!;
      if (now.goneAtMs === undefined && (now.probedAtMs === undefined || nowMs - now.probedAtMs >= probeMs)) {
        now.probedAtMs = nowMs;
        if (probe(now.pid, now.procStart) === false) now.goneAtMs = nowMs;
      }
      return now;
    },
    pidGone(pid, nowMs) {
      let p = pids.get(pid);
      if (!p || (p.goneAtMs === undefined && nowMs - p.probedAtMs >= probeMs)) {
        p = { probedAtMs: nowMs, ...(p?.goneAtMs !== undefined || probe(pid) === false ? { goneAtMs: p?.goneAtMs ?? nowMs } : {}) };
        pids.set(pid, p);
      }
      return p.goneAtMs;
    },
  };
}
