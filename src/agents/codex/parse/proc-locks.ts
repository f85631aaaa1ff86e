// /proc/locks (Linux) read for the holders of flock(2) locks: Codex's live owner of a thread holds
// `FLOCK ADVISORY WRITE` on `$CODEX_HOME/thread-writer-locks/<thread>.lock` (reference §4). Pure.
//
// Line shape: `1: FLOCK  ADVISORY  WRITE 12345 08:01:1234567 0 EOF` (id, class, mode, type, pid,
// major:minor:inode with major and minor in hex, range). Blocked waiters (`->`) are not holders.

export interface LockHolder {
  pid: number;
  inode: number;
  /** `major:minor` as written (hex). */
  device: string;
}

/** The FLOCK holders listed in a /proc/locks text. */
export function parseProcLocks(text: string): LockHolder[] {
  const out: LockHolder[] = [];
  for (const line of text.split('\n')) {
    const m = /^\d+:\s+FLOCK\s+\S+\s+\S+\s+(\d+)\s+([0-9a-f]+:[0-9a-f]+):(\d+)\s/.exec(line);
    if (m) out.push({ pid: Number(m[1]), device: m[2]!, inode: Number(m[3]) });
  }
  return out;
}
