// Reads activity/<agent_id or session_id>.ndjson (written by `dispatch-watchdog hook`)
// incrementally, keeping a HookState per file; positions persist in <stateDir>/observe/hooks.json.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { StatePaths } from '../../../files/paths.js';
import { emptyHookState, isHookState, parseHookLine, type HookState } from '../parse/parse-hook-activity.js';
import { AGENT_TASK_ID } from '../parse/records/tasks.js';
import type { TailReader } from '../../../observe/read/tail-file.js';
import { createIdFileReader, type IdFileRead } from '../../../observe/read/id-files.js';

// The per-id file reader is shared with telemetry (observe/read/id-files.ts).
export { createIdFileReader, type IdFileRead, type IdHandle } from '../../../observe/read/id-files.js';

/** What an activity file says; a missing file is no evidence (hooks are optional), not an error. */
export type HookActivity = IdFileRead<HookState>;

/** The hook activity files of one state dir, read through `reader`. */
export function createHookActivityReader(paths: StatePaths, reader: TailReader, opts: { isPersistent: boolean }) {
  const files = createIdFileReader<HookState>({
    dir: paths.activityDir(),
    fileOf: (id) => paths.activityFile(id),
    parser: { empty: emptyHookState, line: parseHookLine },
    reader,
    storeFile: opts.isPersistent ? paths.observeFile('hooks.json') : undefined,
    isState: isHookState,
  });
  return {
    ...files,
    /**
     * The subagents of session `sessionId` whose activity files were written since `sinceMs`, not in
     * `except`, at most `max` (newest first): the children of a foreground call no transcript or
     * progress line names. Lists the directory: only for that rare case.
     */
    async sessionChildren(
      sessionId: string,
      sinceMs: number,
      except: ReadonlySet<string>,
      nowMs: number,
      max = 8,
    ): Promise<{ agentId: string; state: HookState }[]> {
      const names = await fs.readdir(paths.activityDir()).catch(() => [] as string[]);
      const fresh: { id: string; file: string; mtimeMs: number }[] = [];
      for (const n of names) {
        const id = n.endsWith('.ndjson') ? n.slice(0, -'.ndjson'.length) : '';
        if (!AGENT_TASK_ID.test(id) || except.has(id)) continue;
        const file = path.join(paths.activityDir(), n); // an agent-shaped name is a safe one
        const st = await fs.stat(file).catch(() => undefined);
        if (st?.isFile() && st.mtimeMs >= sinceMs) fresh.push({ id, file, mtimeMs: st.mtimeMs });
      }
      const out: { agentId: string; state: HookState }[] = [];
      for (const f of fresh.sort((a, b) => b.mtimeMs - a.mtimeMs)) {
        if (out.length >= max) break;
        const r = await files.readPath(f.file, nowMs);
        if (r.ok && r.state.sessionId === sessionId) out.push({ agentId: f.id, state: r.state });
      }
      return out;
    },
  };
}
