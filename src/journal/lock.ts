// One watchdog per epic (DESIGN §8): epics/<id>/watchdog.lock holds the owner's pid. A lock
// left by a dead process is taken over; a live holder makes the second watchdog exit 2.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isAlive } from '../sys/proc-identity.js';
import { InputError } from '../contracts/errors.js';
import { parseLock, type LockInfo } from '../contracts/lock.js';

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

/** Take the lock or throw InputError('lock_held') naming the holder. */
export async function acquireLock(file: string, info: LockInfo, epicId: string): Promise<HeldLock> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const body = JSON.stringify(info) + '\n';
  for (let attempt = 0; attempt < 3; attempt++) {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await fs.writeFile(tmp, body);
    try {
      await fs.link(tmp, file); // atomic create-if-absent of a complete lock file
      return { file, release: () => releaseLock(file, info.run_id) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      await fs.rm(tmp, { force: true });
    }
    const holder = await readLock(file);
    if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
      throw new InputError('lock_held', `another dispatch-watchdog (pid ${holder.pid}, since ${holder.started_at}) is already watching epic ${epicId}.`, {
        location: { file },
        hint: `Stop that one first (kill ${holder.pid}), or read its results with \`dispatch-watchdog status --epic-id ${epicId}\`.`,
      });
    }
    // The holder is dead (or the file is garbage): take over. Rename the stale lock aside so
    // two watchdogs taking over at once cannot both succeed: only one rename finds it.
    const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      await fs.rename(file, aside);
      await fs.rm(aside, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  throw new InputError('lock_held', `could not take the lock for epic ${epicId}: another watchdog keeps taking it.`, { location: { file } });
}

/** Remove the lock if it is still ours. */
async function releaseLock(file: string, runId: string): Promise<void> {
  const holder = await readLock(file);
  if (holder?.run_id === runId) await fs.rm(file, { force: true });
}
