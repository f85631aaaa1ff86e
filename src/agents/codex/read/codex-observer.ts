// The Codex observer (DESIGN §4, §15; issue 35 item 2): for each row with `agent: codex`, its
// rollout read incrementally, its live owner (the writer-lock holder) and commands, its `--json`
// stdout when the row names it (`output_path`), and the rollouts of the Codex subagents it waits
// on in `wait_agent`, as one source. A row naming a subagent (`agent_id` = the child's thread id)
// is judged on the child's own rollout. Rows of other agents are not its business (it returns
// nothing for them). An unchanged row is not read again: the same parts are returned while its
// files keep their size and mtime and its owner lives (observeUnchanged). I/O.
import { statSync } from 'node:fs';
import type { Task } from '../../../contracts/state-file.js';
import type { PartialObservation } from '../../../observe/parse/observation.js';
import type { TaskObserver } from '../../../observe/read/observer.js';
import { isAlive } from '../../../sys/proc-identity.js';
import { emptyExecEvents, foldExecEvent, type ExecEventsState } from '../parse/exec-events.js';
import { observeCodexThread, type CodexChild, type CodexLiveness } from '../parse/observe-rollout.js';
import { emptyRollout, foldRolloutLine, waitedChildren, type RolloutState } from '../parse/rollout.js';
import { isCodexRow, threadOfRow } from '../row.js';
import { codexHomeOf, findRollout, isRolloutPath, lockPathOf } from './codex-home.js';
import { foldFile, type Folded } from './fold-file.js';
import { commandGroupsOf, lockHolder } from './owner.js';

/** The parts of a row that is not Codex's: one array, so an unchanged check can return it again. */
const NONE: PartialObservation[] = [];

export interface CodexObserverOptions {
  env: NodeJS.ProcessEnv;
}

/** What the last observe of a row was built from: while all of it holds, its parts hold. */
interface Memo {
  task: Task;
  parts: PartialObservation[];
  /** Every file read, with the size and mtime it had. */
  files: { path: string; size: number; mtimeMs: number }[];
  /** The owner that held the thread lock (re-checked with a signal 0, not /proc/locks). */
  ownerPid: number;
  live: CodexLiveness;
}

export interface CodexObserver extends TaskObserver {
  /** Reads and folds so far (files opened for appended bytes, observations built): what a memo saves. */
  stats(): { reads: number; builds: number };
}

// The command count (liveChildren) is informational (the core reads no count), and Codex's own
// short-lived shells come and go: it is kept as of the build, not a reason to build again.
const sameLive = (a: CodexLiveness, b: CodexLiveness) => a.owner === b.owner && a.ownerPid === b.ownerPid && a.how === b.how;

function statOf(file: string): { size: number; mtimeMs: number } | undefined {
  try {
    const st = statSync(file);
    return { size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return undefined;
  }
}

/** Build the observer; it keeps each rollout's and stdout's fold between checks. */
export function createCodexObserver(opts: CodexObserverOptions): CodexObserver {
  const rollouts = new Map<string, Folded<RolloutState>>();
  const outputs = new Map<string, Folded<ExecEventsState>>();
  const found = new Map<string, string>();
  const memos = new Map<string, Memo>();
  const counts = { reads: 0, builds: 0 };

  /** The owner of the thread now: the lock holder, else the launched pid, else unknown. */
  function liveness(home: string, threadId: string, pid: number | undefined): CodexLiveness {
    const holder = lockHolder(lockPathOf(home, threadId));
    if (typeof holder === 'number')
      return { owner: 'alive', ownerPid: holder, commands: commandGroupsOf(holder).length, how: `pid ${holder} holds the thread lock` };
    const pidAlive = pid === undefined ? undefined : isAlive(pid);
    if (holder === null)
      return pidAlive === undefined
        ? { owner: 'unknown' }
        : { owner: pidAlive ? 'alive' : 'gone', how: `pid ${pid} ${pidAlive ? 'alive' : 'gone'}; no /proc/locks` };
    if (pidAlive === true) return { owner: 'unknown', how: `pid ${pid} alive, thread lock not held` };
    if (pidAlive === false) return { owner: 'gone', how: `pid ${pid} gone, thread lock not held` };
    return { owner: 'unknown' };
  }

  function rolloutOf(home: string, threadId: string): string | undefined {
    let file = found.get(threadId);
    if (!file) {
      file = findRollout(home, threadId);
      if (file) found.set(threadId, file);
    }
    return file;
  }

  async function fold<S>(cache: Map<string, Folded<S>>, file: string, fresh: () => S, line: (s: S, l: string) => S): Promise<Folded<S> | undefined> {
    const prev = cache.get(file);
    const next = await foldFile(file, prev, fresh, line);
    if (next && next.offset !== prev?.offset) counts.reads++;
    if (next) cache.set(file, next);
    return next;
  }

  async function observeRow(task: Task): Promise<PartialObservation[]> {
    const raw = task.raw ?? {};
    const read: Memo['files'] = [];
    // The watchdog's own replacement names its launched output as its transcript: for Codex that
    // is the --json stdout (the thread id comes from there), not a rollout.
    const named = isRolloutPath(task.transcriptPath) ? task.transcriptPath : undefined;
    const outputPath = typeof raw.output_path === 'string' ? raw.output_path : named === undefined ? task.transcriptPath : undefined;
    const out = outputPath ? await fold(outputs, outputPath, emptyExecEvents, foldExecEvent) : undefined;
    if (outputPath && out) read.push({ path: outputPath, size: out.size, mtimeMs: out.mtimeMs });
    const threadId = threadOfRow(task, out?.state.threadId);
    const home = codexHomeOf(named, raw.codex_home, opts.env);
    const file = named ?? (threadId ? rolloutOf(home, threadId) : undefined);
    const folded = file ? await fold(rollouts, file, emptyRollout, foldRolloutLine) : undefined;
    if (!file || !folded) {
      memos.delete(task.taskId);
      const where =
        file ??
        (threadId ? `${home}/sessions/*/*/*/rollout-*-${threadId}.jsonl` : 'nowhere: the row names no session_id (the thread id) and no transcript_path');
      return [{ source: 'transcript', missing: [{ source: 'transcript', reason: `no Codex rollout at ${where}` }] }];
    }
    read.push({ path: file, size: folded.size, mtimeMs: folded.mtimeMs });
    const thread = threadId ?? folded.state.threadId;
    const live = thread ? liveness(home, thread, task.pid) : ({ owner: 'unknown' } as CodexLiveness);
    // The subagents it waits on, each from its own rollout (the same day directories; unseen until it exists).
    const children: CodexChild[] = [];
    let isComplete = true;
    for (const id of waitedChildren(folded.state)) {
      const childFile = rolloutOf(home, id);
      const child = childFile ? await fold(rollouts, childFile, emptyRollout, foldRolloutLine) : undefined;
      if (childFile && child) read.push({ path: childFile, size: child.size, mtimeMs: child.mtimeMs });
      else isComplete = false;
      children.push({ threadId: id, ...(child ? { state: child.state } : {}) });
    }
    const prev = memos.get(task.taskId);
    if (prev && prev.task === task && sameLive(prev.live, live) && sameFiles(prev.files, read)) return prev.parts;
    counts.builds++;
    const parts = [observeCodexThread(folded.state, file, live, out ? { state: out.state, mtimeMs: out.mtimeMs } : undefined, children)];
    // Kept only while an owner lives (its death writes nothing) and every file it reads exists.
    if (live.owner === 'alive' && live.ownerPid !== undefined && isComplete)
      memos.set(task.taskId, { task, parts, files: read, ownerPid: live.ownerPid, live });
    else memos.delete(task.taskId);
    return parts;
  }

  return {
    name: 'codex',
    // Another CLI's row: nothing, the same array every time. A Codex row: its last parts while every
    // file it read keeps its size and mtime and its owner lives (a stat per file and a signal 0).
    observeUnchanged: (task) => {
      if (!isCodexRow(task)) return NONE;
      const m = memos.get(task.taskId);
      if (!m || m.task !== task || !isAlive(m.ownerPid)) return undefined;
      for (const f of m.files) {
        const st = statOf(f.path);
        if (!st || st.size !== f.size || st.mtimeMs !== f.mtimeMs) return undefined;
      }
      return m.parts;
    },
    async observe(task: Task, _nowMs: number): Promise<PartialObservation[]> {
      return isCodexRow(task) ? observeRow(task) : NONE;
    },
    stats: () => ({ ...counts }),
  };
}

function sameFiles(a: Memo['files'], b: Memo['files']): boolean {
  return a.length === b.length && a.every((f, i) => f.path === b[i]!.path && f.size === b[i]!.size && f.mtimeMs === b[i]!.mtimeMs);
}
