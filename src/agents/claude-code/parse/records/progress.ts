// `type:"progress"`: lines Claude Code writes while a call runs (`data.type`: `bash_progress`,
// `agent_progress`, `hook_progress`…). They rebuild a call a cold tail start cut off. Pure.
import { openCall, replaceCall, trackTask, type TranscriptState } from '../transcript-state.js';
import type { ToolCall } from '../../../../observe/parse/observation.js';
import { summarizeToolInput } from '../tool-input-summary.js';
import { isRec, NO_MARKS, num, rowOf, str, type Rec, type RecordContext, type RecordFamily } from './family.js';

/** A call rebuilt from a progress line after a message that began in the tail: that message did not end what came before. */
function spoilFreshTail(s: TranscriptState): void {
  if (s.tail?.isFresh) s.tail.isSpoiled = true;
}

/** A `bash_progress` line for a call we never saw (it began before a tail start): rebuild it. */
function applyBashProgress(s: TranscriptState, rec: Rec, data: Rec, { atMs }: RecordContext): void {
  const id = str(rec.parentToolUseID);
  if (!id || s.recent.some((c) => c.toolUseId === id) || s.open.some((c) => c.toolUseId === id)) return;
  const elapsed = num(data.elapsedTimeSeconds);
  const startedAtMs = atMs !== undefined && elapsed !== undefined ? atMs - elapsed * 1000 : atMs;
  openCall(s, { name: 'Bash', timeoutMs: num(data.timeoutMs), startedAtMs, isOpen: true, toolUseId: id });
  spoilFreshTail(s);
}

/**
 * An `agent_progress` line names the subagent of an open Task/Agent call; rebuild the call when a
 * tail start cut it off. Not for a subagent known as a task (a background one, its launch
 * answered `async_launched`; or one whose end was read): its launch call returned, though it may
 * have left the last 20 calls long ago, so the line must not reopen it as a foreground call.
 */
function applyAgentProgress(s: TranscriptState, rec: Rec, data: Rec, { atMs, isAfterTurnEnd }: RecordContext): void {
  const id = str(rec.parentToolUseID);
  const agentId = str(data.agentId);
  if (id && !agentId) {
    // A line that names no subagent is still its activity, seen through the parent (issue 33
    // item 7): the call waits on a child that was observed, whose silence is a stall like any.
    for (const c of s.open) if (c.toolUseId === id) c.isChildSeen = true;
    return;
  }
  if (!id || !agentId) return;
  const isKnown = (c: { toolUseId?: string }) => c.toolUseId === id;
  if (!s.open.some(isKnown) && !s.recent.some(isKnown)) {
    if (s.tasks.some((t) => t.id === agentId || t.toolUseId === id)) return;
    // Right after a turn end no foreground call is open: this is a background agent launched
    // before what was read (a cold tail), running, as the whole file's state knows it.
    if (isAfterTurnEnd) {
      trackTask(s, { id: agentId, kind: 'agent', status: 'running', atMs, toolUseId: id });
      return;
    }
    openCall(s, { name: 'Task', startedAtMs: atMs, isOpen: true, toolUseId: id, childAgentId: agentId });
    spoilFreshTail(s);
    return;
  }
  // An open call is the state's own copy; a call of `recent` is replaced, never changed in place.
  for (const c of s.open) {
    if (c.toolUseId !== id) continue;
    c.childAgentId = agentId;
    c.childCall = childCallAfter(c.childCall, data, atMs);
  }
  for (let i = 0; i < s.recent.length; i++) {
    const c = s.recent[i]!;
    if (c.toolUseId === id) replaceCall(s, i, { childAgentId: agentId, childCall: childCallAfter(c.childCall, data, atMs) });
  }
}

/**
 * The subagent's own newest call, as its `agent_progress` lines mirror it (2.1.3x): a tool_use
 * opens it, its tool_result closes it. The parent waits on that call, so its window is the
 * parent's too (issue 19 item 2: a subagent's open Bash, or its permission prompt).
 */
function childCallAfter(childCall: ToolCall | undefined, data: Rec, atMs: number | undefined): ToolCall | undefined {
  const m = isRec(data.message) ? data.message : {};
  const content = isRec(m.message) && Array.isArray(m.message.content) ? m.message.content : [];
  for (const b of content) {
    if (!isRec(b)) continue;
    if (m.type === 'assistant' && b.type === 'tool_use' && typeof b.name === 'string') {
      childCall = { name: b.name, ...summarizeToolInput(b.name, b.input), startedAtMs: atMs, isOpen: true, toolUseId: str(b.id) };
    } else if (m.type === 'user' && b.type === 'tool_result' && childCall && str(b.tool_use_id) === childCall.toolUseId) {
      childCall = { ...childCall, isOpen: false };
    }
  }
  return childCall;
}

/** What each `data.type` sets; one without a row sets nothing. */
const PROGRESS_KINDS: Readonly<Record<string, (s: TranscriptState, rec: Rec, data: Rec, ctx: RecordContext) => void>> = {
  bash_progress: applyBashProgress,
  agent_progress: applyAgentProgress,
};

const dataOf = (rec: Rec): Rec => (isRec(rec.data) ? rec.data : {});

export const PROGRESS: RecordFamily = {
  isSession: true,
  isHarnessNote: false,
  // A hook's progress is the harness at work, not the agent.
  actor: (rec) => (dataOf(rec).type === 'hook_progress' ? 'harness' : 'agent'),
  marks: () => NO_MARKS,
  apply: (s, rec, ctx) => {
    const data = dataOf(rec);
    rowOf(PROGRESS_KINDS, data.type)?.(s, rec, data, ctx);
  },
};
