// Reads activity/<agent_id or session_id>.ndjson (written by `dispatch-watchdog hook`)
// incrementally, keeping a HookState per file; positions persist in <stateDir>/observe/hooks.json.
import path from 'node:path';
import type { StatePaths } from '../../journal/paths.js';
import { emptyHookState, isHookState, parseHookLine, type HookState } from '../parse/parse-hook-activity.js';
import type { TailReader } from './tail-file.js';
import { TailStore } from './tail-store.js';
import { TailTracker } from './tail-tracker.js';

/** What an activity file says; a missing file is no evidence (hooks are optional), not an error. */
export interface HookActivity {
  state?: HookState;
  /** Why an existing activity file could not be read. */
  unreadable?: string;
}

/** The hook activity files of one state dir, read through `reader`. */
export function createHookActivityReader(paths: StatePaths, reader: TailReader, opts: { isPersistent: boolean }) {
  const store = opts.isPersistent ? new TailStore(path.join(paths.root, 'observe', 'hooks.json'), isHookState) : undefined;
  const tracker = new TailTracker<HookState>(reader, { empty: emptyHookState, line: parseHookLine }, store);
  return {
    /** The activity of agent or session `id` as of now (reads only what was appended). */
    async read(id: string | undefined, nowMs: number): Promise<HookActivity> {
      if (!id) return {};
      let file: string;
      try {
        file = paths.activityFile(id);
      } catch {
        return {};
      }
      const r = await tracker.read(file, nowMs);
      if (r.ok) return { state: r.state };
      return r.code === 'ENOENT' ? {} : { unreadable: r.reason };
    },
    flush: (nowMs: number) => tracker.flush(nowMs),
    drainDiagnostics: () => tracker.drainDiagnostics(),
  };
}
