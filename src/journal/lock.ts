// One watchdog per epic (DESIGN §8): epics/<id>/watchdog.lock holds the owner's pid and its
// process start time. A lock left by a dead process, or whose pid now belongs to another process
// (same pid, other start time or boot), is taken over; a live holder makes the second watchdog exit 2.
// A takeover removes only the stale lock it judged (under a short takeover mutex), never a fresh one.
import { promises as fs } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { isAlive, isSameProcess, probeProcess, readProcessIdentity } from '../sys/proc-identity.js';
import { InputError } from '../contracts/errors.js';
import { parseLock, type LockInfo } from '../contracts/lock.js';
import { createFileExclusive } from '../files/atomic-write.js';

type LockAsRead = NonNullable<ReturnType<typeof parseLock>>;

/** Whether the process that wrote the lock still runs (not merely its pid). */
async function isHolderAlive(holder: LockAsRead): Promise<boolean> {
  if (holder.start_ticks === undefined) return isAlive(holder.pid);
  const probe = await probeProcess(holder.pid);
  if (probe.kind === 'gone') return false;
  if (probe.kind === 'unknown') return isAlive(holder.pid);
  return isSameProcess({ pid: holder.pid, startTicks: holder.start_ticks, bootId: holder.boot_id }, probe.identity);
}

/** The lock file's holder, or undefined when there is none (missing, unreadable or garbage). */
export async function readLock(file: string): Promise<ReturnType<typeof parseLock>> {
  try {
    return parseLock(await fs.readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
}

export interface HeldLock {
  file: string;
  release(): Promise<void>;
}

/** The lock file as read: its inode and text (what a takeover must find unchanged), and its holder. */
async function readLockFile(file: string): Promise<{ ino: number; text: string; holder: ReturnType<typeof parseLock> } | undefined> {
  try {
    const [st, text] = await Promise.all([fs.stat(file), fs.readFile(file, 'utf8')]);
    return { ino: st.ino, text, holder: parseLock(text) };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** A takeover mutex older than this was left by a watchdog killed mid-takeover (a takeover takes milliseconds). */
const STALE_MUTEX_MS = 10_000;

/**
 * Remove the stale lock `seen`, under `<lock>.takeover` (created exclusively): only a takeover
 * removes a lock it did not write, so under the mutex the lock it finds unchanged (same inode,
 * same text) is the one judged stale, never a fresh lock another watchdog took a moment ago.
 * Returns false when another watchdog holds the mutex (try again shortly).
 */
async function removeStaleLock(file: string, seen: { ino: number; text: string }): Promise<boolean> {
  const mutex = `${file}.takeover`;
  if (!(await createFileExclusive(mutex, JSON.stringify({ pid: process.pid, at: new Date().toISOString() }) + '\n'))) {
    const held = await readLockFile(mutex).catch(() => undefined);
    const age = held
      ? Date.now() -
        (await fs.stat(mutex).then(
          (s) => s.mtimeMs,
          () => Date.now(),
        ))
      : 0;
    if (held && (age > STALE_MUTEX_MS || (held.holder && !isAlive(held.holder.pid)))) await fs.rm(mutex, { force: true });
    return false;
  }
  try {
    const now = await readLockFile(file);
    if (now && now.ino === seen.ino && now.text === seen.text) await fs.rm(file, { force: true });
    return true;
  } finally {
    await fs.rm(mutex, { force: true });
  }
}

/** Take the lock or throw InputError('lock_held') naming the holder. */
export async function acquireLock(file: string, info: LockInfo, epicId: string): Promise<HeldLock> {
  const me = await readProcessIdentity(info.pid);
  const body = JSON.stringify({ ...info, ...(me ? { start_ticks: me.startTicks, boot_id: me.bootId } : {}) }) + '\n';
  for (let attempt = 0; attempt < 50; attempt++) {
    // Atomic create-if-absent of a complete lock file (0600, its temp file never left behind).
    if (await createFileExclusive(file, body)) return { file, release: () => releaseLock(file, info.run_id) };
    const seen = await readLockFile(file);
    if (!seen) continue;
    const holder = seen.holder;
    if (holder && holder.pid !== process.pid && (await isHolderAlive(holder))) {
      throw new InputError('lock_held', `another dispatch-watchdog (pid ${holder.pid}, since ${holder.started_at}) is already watching epic ${epicId}.`, {
        location: { file },
        hint:
          holder.start_ticks === undefined
            ? `Stop that one first (check that pid ${holder.pid} is a dispatch-watchdog, then kill it), or read its results with \`dispatch-watchdog status --epic-id ${epicId}\`.`
            : `Stop that one first (kill ${holder.pid}), or read its results with \`dispatch-watchdog status --epic-id ${epicId}\`.`,
      });
    }
    // The holder is dead (or the file is garbage): take over, removing only the lock judged stale.
    if (!(await removeStaleLock(file, seen))) await delay(5 + Math.random() * 20);
  }
  throw new InputError('lock_held', `could not take the lock for epic ${epicId}: another watchdog keeps taking it.`, { location: { file } });
}

/** Remove the lock if it is still ours. */
async function releaseLock(file: string, runId: string): Promise<void> {
  const holder = await readLock(file);
  if (holder?.run_id === runId) await fs.rm(file, { force: true });
}
