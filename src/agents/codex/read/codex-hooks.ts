// The hook lines of Codex rows (parse/hook-lines.ts): activity/<thread id>.ndjson, read
// incrementally through the per-id file reader every hook reader shares (observe/read/id-files.ts).
// Only a row naming Codex is read (the harness wraps it in onlyRows). I/O.
import type { Task } from '../../../contracts/state-file.js';
import type { StatePaths } from '../../../files/paths.js';
import type { PartialObservation } from '../../../observe/parse/observation.js';
import { createIdFileReader } from '../../../observe/read/id-files.js';
import type { TaskObserver } from '../../../observe/read/observer.js';
import { TailReader } from '../../../observe/read/tail-file.js';
import { emptyCodexHookState, foldCodexHookLine, isCodexHookState, summarizeCodexHooks } from '../parse/hook-lines.js';

const NONE: PartialObservation[] = [];

/** Build the observer of Codex hook lines for one watch. */
export function createCodexHookObserver(paths: StatePaths, reader = new TailReader()): TaskObserver {
  const files = createIdFileReader({
    dir: paths.activityDir(),
    fileOf: (id) => paths.activityFile(id),
    parser: { empty: emptyCodexHookState, line: foldCodexHookLine },
    reader,
    isState: isCodexHookState,
  });
  return {
    name: 'codex-hooks',
    beginCheck: () => files.beginCheck(),
    // Read afresh each check, like the rollout (a stat and what was appended).
    observeUnchanged: () => undefined,
    async observe(task: Task, nowMs: number) {
      // Session id = the thread id; a Codex subagent's lines are filed by its own thread (agent_id).
      const r = await files.read(task.agentId ?? task.sessionId, nowMs);
      if (r.unreadable) return [{ source: 'hooks', missing: [{ source: 'hooks', reason: r.unreadable }] }];
      return r.state && r.state.lines > 0 ? [summarizeCodexHooks(r.state)] : NONE;
    },
  };
}
