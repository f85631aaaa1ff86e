// Claude Code's session registry (2.1.x): `<config dir>/sessions/<pid>.json` names the session each
// process runs (contracts/claude-session.ts). The harness's process identity lookup: which pid runs
// a session, re-listing the dir at most every `relistMs` on a miss. I/O (synchronous, cheap).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ClaudeSessionFileSchema } from '../../../contracts/claude-session.js';

/** `(sessionId, nowMs) → pid` over `sessionsDir`; a missing or unreadable dir finds nothing. */
export function createSessionPids(sessionsDir: string | undefined, relistMs = 5000): (sessionId: string, nowMs: number) => number | undefined {
  const sessionPids = new Map<string, number>();
  let listedAtMs = -Infinity;
  return function sessionPid(sessionId, nowMs) {
    const hit = sessionPids.get(sessionId);
    if (hit !== undefined || !sessionsDir || nowMs - listedAtMs < relistMs) return hit;
    listedAtMs = nowMs;
    let names: string[] = [];
    try {
      names = readdirSync(sessionsDir).filter((n) => /^\d+\.json$/.test(n));
    } catch {
      return undefined;
    }
    for (const n of names) {
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(path.join(sessionsDir, n), 'utf8'));
      } catch {
        continue; // being written, or not Claude Code's: looked at again on the next miss
      }
      const f = ClaudeSessionFileSchema.safeParse(json);
      if (f.success) sessionPids.set(f.data.sessionId, f.data.pid);
    }
    return sessionPids.get(sessionId);
  };
}
