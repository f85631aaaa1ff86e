// Write epic state files and read back what the watchdog wrote.
import { mkdirSync, readFileSync, readdirSync, existsSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

export interface RowSpec {
  task_id?: string;
  ticket_id: string;
  status?: string;
  [k: string]: unknown;
}

/**
 * Write epics/<epic>/state.yaml in shape A (current_wave), whole, as a file at rest: its mtime a
 * minute back, so a fresh watchdog need not wait for it to rest (a torn file at rest, DESIGN §3).
 */
export function writeWave(stateDir: string, epicId: string, dispatchedAt: string, tasks: RowSpec[]): string {
  const dir = path.join(stateDir, 'epics', epicId);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'state.yaml');
  writeFileSync(file, stringify({ current_wave: { wave_id: 1, dispatched_at: dispatchedAt, tasks } }));
  const written = new Date(Date.now() - 60_000);
  utimesSync(file, written, written);
  return file;
}

/** Every dispatch-log line of every day, parsed. */
export function readEvents(stateDir: string): Record<string, unknown>[] {
  const dir = path.join(stateDir, 'dispatch-log');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((f) =>
      readFileSync(path.join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    );
}

export function readWatchdogJson(stateDir: string, epicId: string): Record<string, any> {
  return JSON.parse(readFileSync(path.join(stateDir, 'epics', epicId, 'watchdog.json'), 'utf8'));
}
