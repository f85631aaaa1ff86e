// epics/<id>/watchdog.lock: which watchdog watches the epic (docs/recovery.md). Written whole, once, by
// the watchdog that takes the lock; read by a second watchdog and by `status`. Pure.
import * as z from 'zod';
import { IsoTimestamp } from './time.js';

export const LockSchema = z
  .looseObject({
    pid: z.number().int().describe('The process that holds the lock.'),
    run_id: z.string().describe("Its run id (the dispatch log's run_id); only that run releases the lock."),
    started_at: IsoTimestamp.describe('When it took the lock.'),
    start_ticks: z.number().int().optional().describe('Its process start time (/proc/<pid>/stat field 22), so a reused pid is not taken for it.'),
    boot_id: z.string().optional(),
  })
  .meta({ title: 'WatchdogLock', description: 'epics/<epic_id>/watchdog.lock: the watchdog that watches the epic now.' });
export type LockInfo = z.output<typeof LockSchema>;

// A reader needs only the pid to tell a live holder from a dead one; a lock with less is still a lock.
const LockAsRead = LockSchema.partial().required({ pid: true });

/** The lock as read: undefined for garbage (no pid), which a new watchdog may take over. */
export function parseLock(text: string): (Partial<LockInfo> & Pick<LockInfo, 'pid'>) | undefined {
  try {
    const r = LockAsRead.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}
