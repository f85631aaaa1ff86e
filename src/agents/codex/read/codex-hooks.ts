// The hook lines of Codex rows (parse/hook-lines.ts): activity/<thread id>.ndjson, read
// incrementally through the per-id file reader every hook reader shares (observe/read/id-files.ts).
// Only a row naming Codex is read (the harness wraps it in onlyRows). I/O.
import type { Task } from '../../../contracts/state-file.js';
import type { StatePaths } from '../../../files/paths.js';
import type { PartialObservation } from '../../../observe/parse/observation.js';
import { createIdFileReader, type IdHandle } from '../../../observe/read/id-files.js';
import type { TaskObserver } from '../../../observe/read/observer.js';
import { TailReader } from '../../../observe/read/tail-file.js';
import { emptyCodexHookState, foldCodexHookLine, isCodexHookState, summarizeCodexHooks, type CodexHookState } from '../parse/hook-lines.js';

const NONE: PartialObservation[] = [];

/** A task's last parts and the file version they were read from: the same array back while the file holds. */
interface Memo {
  task: Task;
  version: number;
  handle: IdHandle<CodexHookState>;
  parts: PartialObservation[];
}

/** Build the observer of Codex hook lines for one watch. */
export function createCodexHookObserver(paths: StatePaths, reader = new TailReader()): TaskObserver {
  const files = createIdFileReader({
    dir: paths.activityDir(),
    fileOf: (id) => paths.activityFile(id),
    parser: { empty: emptyCodexHookState, line: foldCodexHookLine },
    reader,
    isState: isCodexHookState,
  });
  const memos = new Map<string, Memo>();
  return {
    name: 'codex-hooks',
    beginCheck: () => files.beginCheck(),
    // The same parts while the file (or its absence) holds: the Codex observer beside it keeps a memo
    // too, and their combination (combineObservers) reuses a row only when both do.
    observeUnchanged(task: Task, nowMs: number, isStatRequired?: boolean) {
      const m = memos.get(task.taskId);
      if (!m || m.task !== task || files.peekHandle(m.handle, nowMs, isStatRequired) !== m.version) return undefined;
      return m.parts;
    },
    async observe(task: Task, nowMs: number) {
      // Session id = the thread id; a Codex subagent's lines are filed by its own thread (agent_id).
      const r = await files.read(task.agentId ?? task.sessionId, nowMs);
      if (r.unreadable) {
        memos.delete(task.taskId);
        return [{ source: 'hooks', missing: [{ source: 'hooks', reason: r.unreadable }] }];
      }
      const m = memos.get(task.taskId);
      if (m && m.task === task && r.version !== undefined && r.version === m.version) return m.parts;
      const parts = r.state && r.state.lines > 0 ? [summarizeCodexHooks(r.state)] : NONE;
      if (r.version !== undefined && r.handle) memos.set(task.taskId, { task, version: r.version, handle: r.handle, parts });
      else memos.delete(task.taskId);
      if (memos.size > 100_000) memos.clear();
      return parts;
    },
  };
}
