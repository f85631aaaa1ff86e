// The subagent transcripts an agent waits on (an open foreground Task/Agent call, or a turn that
// ended while background subagents run), read through the same tail tracker. Two layouts: 2.1.x
// writes `<dir>/<session-id>/subagents/agent-<id>.jsonl`, 2.0.x and earlier a flat
// `<dir>/agent-<id>.jsonl` next to the session file. I/O.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { unnamedEarlierChildren, type ChildTranscript } from '../parse/observe-transcript.js';
import { backgroundWaits, parseTranscriptText, turnOver } from '../parse/parse-transcript.js';
import { isSubagentTool } from '../parse/records/tasks.js';
import type { TrackedTask, TranscriptState } from '../parse/transcript-state.js';
import type { TailTracker } from '../../../observe/read/tail-tracker.js';

/** Child transcripts read at most per agent and check. @defaultValue 8 */
const CHILDREN_MAX = 8;
/** A child file last written this long before the call began is not its child. @defaultValue 5000 */
const SLACK_MS = 5_000;
/** Bytes read from a transcript's head for its session id and first time. @defaultValue 65536 */
const HEAD_BYTES = 65_536;
/** Heads remembered (a file's head never changes while it only grows). @defaultValue 512 */
const HEADS_MAX = 512;

const isHelper = (name: string) => name.startsWith('agent-acompact') || name.startsWith('agent-aprompt_suggestion');
/** A subagent transcript's file name (not Claude Code's compaction or prompt-suggestion helpers). */
export const isChildName = (name: string) => name.startsWith('agent-') && name.endsWith('.jsonl') && !isHelper(name);
const idOf = (file: string) => path.basename(file, '.jsonl').slice('agent-'.length);

/** What a transcript's first records say: its session and when it began. */
export interface TranscriptHead {
  sessionId?: string;
  startedAtMs?: number;
}

const heads = new Map<string, TranscriptHead>();

/** The session id and first timestamp in the first lines of `file` (cached once both are known). */
export async function readHead(file: string): Promise<TranscriptHead> {
  const hit = heads.get(file);
  if (hit) return hit;
  const fh = await fs.open(file, 'r').catch(() => undefined);
  if (!fh) return {};
  const head: TranscriptHead = {};
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    // Regexes, not JSON.parse: a first line (a long prompt) may be cut at HEAD_BYTES.
    for (const line of buf.subarray(0, bytesRead).toString('utf8').split('\n')) {
      head.sessionId ??= /"sessionId":"([^"]+)"/.exec(line)?.[1];
      const ts = /"timestamp":"([^"]+)"/.exec(line)?.[1];
      const atMs = ts === undefined ? NaN : Date.parse(ts);
      if (head.startedAtMs === undefined && Number.isFinite(atMs)) head.startedAtMs = atMs;
      if (head.sessionId !== undefined && head.startedAtMs !== undefined) break;
    }
  } finally {
    await fh.close();
  }
  if (head.sessionId !== undefined && head.startedAtMs !== undefined) {
    if (heads.size >= HEADS_MAX) heads.delete(heads.keys().next().value!);
    heads.set(file, head);
  }
  return head;
}

/** Where the children of the session transcript `file` live: the current layout, and the flat one. */
export function childDirs(file: string, sessionId?: string): { nested: string; flat: string } {
  return { nested: path.join(path.dirname(file), sessionId ?? path.basename(file, '.jsonl'), 'subagents'), flat: path.dirname(file) };
}

/** Child files in both layouts written at or after `sinceMs`, newest first. */
async function listChildren(dirs: { nested: string; flat: string }, sinceMs: number): Promise<{ file: string; isFlat: boolean }[]> {
  const fresh: { file: string; mtimeMs: number; isFlat: boolean }[] = [];
  for (const [dir, isFlat] of [
    [dirs.nested, false],
    [dirs.flat, true],
  ] as const) {
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const n of names) {
      if (!isChildName(n)) continue;
      const st = await fs.stat(path.join(dir, n)).catch(() => undefined);
      if (st?.isFile() && st.mtimeMs >= sinceMs) fresh.push({ file: path.join(dir, n), mtimeMs: st.mtimeMs, isFlat });
    }
  }
  return fresh.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/** A cold tail start whose turn is over may have missed a background launch: its children tell. */
const isColdTurnOver = (state: TranscriptState) => state.isTailStart === true && turnOver(state) !== undefined;

/** Whether `readWaitedChildren` reads any file for `state` (else it returns [] at once). */
export function readsChildren(state: TranscriptState): boolean {
  return state.open.some((c) => isSubagentTool(c.name) && !c.isBackground) || backgroundWaits(state).length > 0 || isColdTurnOver(state);
}

/** Read the children `state` (the transcript at `file`) may be waiting on. */
export async function readWaitedChildren(
  transcripts: TailTracker<TranscriptState>,
  file: string,
  state: TranscriptState,
  nowMs: number,
): Promise<ChildTranscript[]> {
  if (!readsChildren(state)) return [];
  const calls = state.open.filter((c) => isSubagentTool(c.name) && !c.isBackground);
  const background = backgroundWaits(state);
  const dirs = childDirs(file, state.sessionId);
  const out: ChildTranscript[] = [];
  const seen = new Set<string>();
  const add = async (f: string, isFlat: boolean, withHead = false): Promise<boolean> => {
    if (f === file || seen.has(f) || out.length >= CHILDREN_MAX) return false;
    // Matched by its first record: a child is read with all the context a cold start gets.
    const r = await transcripts.read(f, nowMs, { context: 'full' });
    if (!r.ok) return false;
    // A flat directory holds the children of every session of the project: keep this session's.
    if (isFlat && state.sessionId !== undefined && r.state.sessionId !== undefined && r.state.sessionId !== state.sessionId) return false;
    seen.add(f);
    const startedAtMs = withHead && r.state.isTailStart ? (await readHead(f)).startedAtMs : undefined;
    out.push({ agentId: idOf(f), state: r.state, ...(startedAtMs !== undefined ? { startedAtMs } : {}) });
    return true;
  };
  const named = [...calls.map((c) => c.childAgentId), ...background];
  for (const id of new Set(named.filter((x): x is string => x !== undefined))) {
    if (!(await add(path.join(dirs.nested, `agent-${id}.jsonl`), false))) await add(path.join(dirs.flat, `agent-${id}.jsonl`), true);
  }
  if (calls.some((c) => c.childAgentId === undefined)) {
    // No progress line names the child: every child file written since the call began.
    const since = Math.min(...calls.map((c) => c.startedAtMs ?? nowMs)) - SLACK_MS;
    for (const f of await listChildren(dirs, since)) await add(f.file, f.isFlat);
  }
  if (isColdTurnOver(state)) {
    for (const f of await listChildren(dirs, -Infinity)) await add(f.file, f.isFlat, true);
    // A child the tail does not name but that began before it: the earlier bytes say whether it was launched and ended.
    const unnamed = unnamedEarlierChildren(state, out);
    const earlier = unnamed.length > 0 ? await launchesIn(file, transcripts.reader.opts.maxColdBytes) : undefined;
    for (const c of earlier ? unnamed : []) {
      const t = earlier!.tasks.find((x) => x.id === c.agentId);
      const launch = t?.kind === 'agent' ? (t.status === 'running' ? 'running' : 'ended') : t ? 'ended' : earlier!.isWhole ? 'none' : undefined;
      if (launch) c.launch = launch;
    }
  }
  return out;
}

/** Parent transcripts whose launches were read back, by path (the bytes before a tail never change). */
const launchCache = new Map<string, { ino: number; size: number; tasks: TrackedTask[]; isWhole: boolean }>();
/** Parents remembered. @defaultValue 256 */
const LAUNCH_CACHE_MAX = 256;

/**
 * The background tasks and subagents the last `maxBytes` of `file` report (`isWhole`: that was
 * the whole file): a cold tail start of a finished turn reads back only when a child it does
 * not name began before the tail, once per parent size.
 */
export async function launchesIn(file: string, maxBytes: number): Promise<{ tasks: TrackedTask[]; isWhole: boolean } | undefined> {
  const st = await fs.stat(file).catch(() => undefined);
  if (!st?.isFile()) return undefined;
  const hit = launchCache.get(file);
  if (hit && hit.ino === st.ino && hit.size === st.size) return hit;
  const fh = await fs.open(file, 'r').catch(() => undefined);
  if (!fh) return undefined;
  try {
    const start = Math.max(0, st.size - maxBytes);
    const buf = Buffer.alloc(st.size - start);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    let text = buf.toString('utf8', 0, got);
    // From mid-file, the first line is cut: drop it. The last, without its newline, may be torn.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    const { state } = parseTranscriptText(text, file);
    const out = { ino: st.ino, size: st.size, tasks: state.tasks, isWhole: start === 0 };
    if (launchCache.size >= LAUNCH_CACHE_MAX) launchCache.delete(launchCache.keys().next().value!);
    launchCache.set(file, out);
    return out;
  } finally {
    await fh.close();
  }
}
