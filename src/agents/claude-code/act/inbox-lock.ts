// The lock Claude Code takes around an inbox write: a directory made with mkdir (the proper-lockfile
// convention: atomic, stale when its mtime is older than 10 s). Waits a bounded time, never forever.
import { promises as fs } from 'node:fs';
import type { Clock } from '../../../deps.js';

/** proper-lockfile's default: a holder refreshes the mtime every 5 s, so 10 s old means it died. */
export const DEFAULT_LOCK_STALE_MS = 10_000;
/** How long to wait for a held inbox lock before giving up (retryable). */
export const DEFAULT_LOCK_WAIT_MS = 5_000;
const POLL_MS = 20;

export interface LockOptions {
  clock: Clock;
  waitMs?: number;
  staleMs?: number;
}

export type LockResult = { ok: true; release: () => Promise<void> } | { ok: false; retryable: boolean; detail: string };

/** Take one mkdir lock; a stale one is taken over, a plain file there is refused (a protocol we cannot share). */
async function takeOne(lockPath: string, deadline: number, opts: LockOptions): Promise<LockResult> {
  const staleMs = opts.staleMs ?? DEFAULT_LOCK_STALE_MS;
  for (;;) {
    try {
      await fs.mkdir(lockPath);
      return { ok: true, release: () => fs.rmdir(lockPath).catch(() => undefined) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const st = await fs.lstat(lockPath).catch(() => undefined);
    if (st && !st.isDirectory()) {
      return {
        ok: false,
        retryable: false,
        detail: `${lockPath} is a file, not a lock directory: another tool guards this inbox in a way the watchdog cannot share. Remove it if nothing uses it.`,
      };
    }
    if (st && opts.clock.nowMs() - st.mtimeMs > staleMs) {
      await fs.rm(lockPath, { recursive: true, force: true });
      continue;
    }
    if (opts.clock.nowMs() >= deadline) {
      return { ok: false, retryable: true, detail: `${lockPath} is still held after ${opts.waitMs ?? DEFAULT_LOCK_WAIT_MS} ms.` };
    }
    if (st) await opts.clock.sleep(POLL_MS);
  }
}

/** Take every lock in order (released in reverse); all or nothing. */
export async function acquireLocks(lockPaths: readonly string[], opts: LockOptions): Promise<LockResult> {
  const deadline = opts.clock.nowMs() + (opts.waitMs ?? DEFAULT_LOCK_WAIT_MS);
  const held: (() => Promise<void>)[] = [];
  const releaseAll = async () => {
    for (const r of held.reverse()) await r();
  };
  try {
    for (const p of lockPaths) {
      const r = await takeOne(p, deadline, opts);
      if (!r.ok) {
        await releaseAll();
        return r;
      }
      held.push(r.release);
    }
  } catch (e) {
    await releaseAll();
    throw e;
  }
  return { ok: true, release: releaseAll };
}
