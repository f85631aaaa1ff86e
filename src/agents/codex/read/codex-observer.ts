// The Codex observer (DESIGN §4, §15; issue 35 item 2): for each row with `agent: codex`, its
// rollout read incrementally, its live owner (the writer-lock holder) and commands, and its
// `--json` stdout when the row names it (`output_path`), as one source. Rows of other agents are
// not its business (it returns nothing for them). I/O.
import { open, stat } from 'node:fs/promises';
import type { Task } from '../../../contracts/state-file.js';
import type { PartialObservation } from '../../../observe/parse/observation.js';
import type { TaskObserver } from '../../../observe/read/observer.js';
import { isAlive } from '../../../sys/proc-identity.js';
import { emptyExecEvents, foldExecEvent, type ExecEventsState } from '../parse/exec-events.js';
import { observeCodexThread, type CodexLiveness } from '../parse/observe-rollout.js';
import { emptyRollout, foldRolloutLine, type RolloutState } from '../parse/rollout.js';
import { isCodexRow } from '../row.js';
import { codexHomeOf, findRollout, isRolloutPath, lockPathOf } from './codex-home.js';
import { commandGroupsOf, lockHolder } from './owner.js';

/** A file folded so far: where the next read starts, the unfinished last line, the state. */
interface Folded<S> {
  offset: number;
  rest: string;
  state: S;
  mtimeMs: number;
}

/** Read what `file` gained since `prev` and fold its whole lines; a shorter file is read again from its start. */
async function foldFile<S>(file: string, prev: Folded<S> | undefined, fresh: () => S, fold: (s: S, line: string) => S): Promise<Folded<S> | undefined> {
  let st;
  try {
    st = await stat(file);
  } catch {
    return undefined;
  }
  let cur = prev && st.size >= prev.offset ? prev : { offset: 0, rest: '', state: fresh(), mtimeMs: 0 };
  if (st.size === cur.offset) return { ...cur, mtimeMs: st.mtimeMs };
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(st.size - cur.offset);
    const { bytesRead } = await fh.read(buf, 0, buf.length, cur.offset);
    const text = cur.rest + buf.subarray(0, bytesRead).toString('utf8');
    const lines = text.split('\n');
    const rest = lines.pop() ?? '';
    let state = cur.state;
    for (const l of lines) state = fold(state, l);
    cur = { offset: cur.offset + bytesRead, rest, state, mtimeMs: st.mtimeMs };
  } finally {
    await fh.close();
  }
  return cur;
}

/** The parts of a row that is not Codex's: one array, so an unchanged check can return it again. */
const NONE: PartialObservation[] = [];

export interface CodexObserverOptions {
  env: NodeJS.ProcessEnv;
}

/** Build the observer; it keeps each rollout's and stdout's fold between checks. */
export function createCodexObserver(opts: CodexObserverOptions): TaskObserver {
  const rollouts = new Map<string, Folded<RolloutState>>();
  const outputs = new Map<string, Folded<ExecEventsState>>();
  const found = new Map<string, string>();

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

  return {
    name: 'codex',
    // Another CLI's row: nothing, the same array every time, so a steady check reuses its observation.
    // A Codex row is observed afresh each check (a stat and the bytes appended; its owner from /proc).
    observeUnchanged: (task) => (isCodexRow(task) ? undefined : NONE),
    async observe(task: Task, _nowMs: number): Promise<PartialObservation[]> {
      if (!isCodexRow(task)) return NONE;
      const raw = task.raw ?? {};
      // The watchdog's own replacement names its launched output as its transcript: for Codex that
      // is the --json stdout (the thread id comes from there), not a rollout.
      const named = isRolloutPath(task.transcriptPath) ? task.transcriptPath : undefined;
      const outputPath = typeof raw.output_path === 'string' ? raw.output_path : named === undefined ? task.transcriptPath : undefined;
      const out = outputPath ? await foldFile(outputPath, outputs.get(outputPath), emptyExecEvents, foldExecEvent) : undefined;
      if (outputPath && out) outputs.set(outputPath, out);
      const threadId = task.sessionId ?? out?.state.threadId;
      const home = codexHomeOf(named, raw.codex_home, opts.env);
      let file = named ?? (threadId ? found.get(threadId) : undefined);
      if (!file && threadId) {
        file = findRollout(home, threadId);
        if (file) found.set(threadId, file);
      }
      const folded = file ? await foldFile(file, rollouts.get(file), emptyRollout, foldRolloutLine) : undefined;
      if (!file || !folded) {
        const where =
          file ??
          (threadId ? `${home}/sessions/*/*/*/rollout-*-${threadId}.jsonl` : 'nowhere: the row names no session_id (the thread id) and no transcript_path');
        return [{ source: 'transcript', missing: [{ source: 'transcript', reason: `no Codex rollout at ${where}` }] }];
      }
      rollouts.set(file, folded);
      const thread = threadId ?? folded.state.threadId;
      const live = thread ? liveness(home, thread, task.pid) : ({ owner: 'unknown' } as CodexLiveness);
      return [observeCodexThread(folded.state, file, live, out ? { state: out.state, mtimeMs: out.mtimeMs } : undefined)];
    },
  };
}
