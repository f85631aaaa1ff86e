// Answers given by hand (`dispatch-watchdog ack <key> [--task-id ID]`): one small file per key under
// epics/<epic>/acks/, created once; the running watchdog reads them at its next check and logs
// request_answered, so the log stays written by the watchdog alone.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Ack } from '../../core/requests.js';
import { keyToFileName } from '../agents/step-file.js';
import { createFileExclusive } from '../../files/atomic-write.js';
import type { StatePaths } from '../../files/paths.js';

/** The ack file of one key. */
export function ackFile(paths: StatePaths, epicId: string, key: string): string {
  return path.join(paths.acksDir(epicId), `${keyToFileName(key)}.ack.json`);
}

/** Record an ack once; false when one was already there. */
export async function writeAck(paths: StatePaths, epicId: string, key: string, ack: Ack & { at: string }): Promise<boolean> {
  return createFileExclusive(ackFile(paths, epicId, key), JSON.stringify({ key, ...(ack.taskId ? { task_id: ack.taskId } : {}), acked_at: ack.at }) + '\n');
}

/** The acks present for these keys (a missing or unreadable file is no ack). */
export async function readAcks(paths: StatePaths, epicId: string, keys: readonly string[]): Promise<Map<string, Ack>> {
  const out = new Map<string, Ack>();
  for (const key of keys) {
    try {
      const json = JSON.parse(await fs.readFile(ackFile(paths, epicId, key), 'utf8')) as { task_id?: unknown };
      out.set(key, typeof json.task_id === 'string' ? { taskId: json.task_id } : {});
    } catch {
      // no ack (yet)
    }
  }
  return out;
}
