// One agent's transcript evidence, with the subagents it waits on: the single function the
// check (claude-observer) and `replay` both use, so replay judges exactly as the loop does. Pure.
import { knownCall, type PartialObservation } from '../../../observe/parse/observation.js';
import { backgroundWaits, summarizeTranscript, turnOver, type TranscriptFacts } from './parse-transcript.js';
import { AGENT_TASK_ID, isSubagentTool } from './records/tasks.js';
import { pickLastTool, type TranscriptState } from './transcript-state.js';

/** A subagent transcript (`<session>/subagents/agent-<id>.jsonl`) read next to its parent. */
export interface ChildTranscript {
  agentId: string;
  state: TranscriptState;
  /** Its first record's time, when the reader knows it (a tail read of the child starts later). */
  startedAtMs?: number;
  /**
   * What the parent's transcript before a cold tail start says of it (read back to the bound):
   * `running` (launched in the background, no end), `ended`, or `none` (never launched in the
   * background there); absent when not looked up or launched before the bound.
   */
  launch?: 'running' | 'ended' | 'none';
}

/**
 * Children a cold tail start of the parent may have missed the launch of: agent-shaped ids (not
 * teammates or helpers sharing the directory), begun before the parent's first record read, and
 * not named in what was read. None for a parent read from its first byte (it knows every launch)
 * or whose turn goes on.
 */
export function unnamedEarlierChildren(parent: TranscriptState, children: readonly ChildTranscript[]): ChildTranscript[] {
  const from = parent.firstEventMs;
  if (!parent.isTailStart || from === undefined || !turnOver(parent)) return [];
  return children.filter((c) => {
    const began = c.startedAtMs ?? (c.state.isTailStart ? undefined : c.state.firstEventMs);
    return AGENT_TASK_ID.test(c.agentId) && began !== undefined && began < from && !parent.tasks.some((t) => t.id === c.agentId);
  });
}

/**
 * Background subagents a cold tail start of the parent cannot have seen launched (see
 * unnamedEarlierChildren): those the parent's earlier bytes report launched and not ended.
 * When those bytes were not read (a launch beyond the bound), only a child at work while the
 * part read was written (a record since its first one) and without a final answer: a child
 * silent since before it may as well have died long ago, and waiting on it would stall a
 * finished agent.
 */
export function inferredBackground(parent: TranscriptState, children: readonly ChildTranscript[]): string[] {
  const from = parent.firstEventMs ?? -Infinity;
  return unnamedEarlierChildren(parent, children)
    .filter((c) => {
      if (c.launch !== undefined) return c.launch === 'running';
      const answered =
        !c.state.open.some((x) => !x.isBackground) &&
        (c.state.finalTextMs !== undefined || c.state.apiError !== undefined || c.state.turnEndedMs !== undefined);
      return !answered && (c.state.lastEventMs ?? -Infinity) >= from;
    })
    .map((c) => c.agentId);
}

/**
 * A subagent's transcript ends with its final answer: nothing open in the foreground (a command
 * Claude Code moved to the background and the agent parked on is an open wait), no give-up, no
 * input queued for it (a new prompt or wake clears the answer). Its completion notification is due now.
 */
export function hasAnswered(s: TranscriptState): boolean {
  return s.finalTextMs !== undefined && !s.open.some((c) => !c.isBackground) && !s.apiError && !s.queued;
}

/** Slack when matching a child's first record to the parent's open call, in ms. @defaultValue 5000 */
const CHILD_START_SLACK_MS = 5_000;

/**
 * The children an open foreground `Task`/`Agent` call waits on: the one its `agent_progress`
 * lines name, else every child transcript that began after the call and has not been reported
 * finished by the parent.
 */
export function waitedChildren(parent: TranscriptState, children: readonly ChildTranscript[]): ChildTranscript[] {
  const calls = parent.open.filter((c) => isSubagentTool(c.name) && !c.isBackground);
  if (calls.length === 0) return [];
  const out = new Set<ChildTranscript>();
  for (const call of calls) {
    const named = call.childAgentId && children.find((c) => c.agentId === call.childAgentId);
    if (named) {
      out.add(named);
      continue;
    }
    for (const c of children) {
      const done = parent.tasks.some((t) => t.id === c.agentId && t.status !== 'running');
      const began = c.state.firstEventMs;
      if (done || began === undefined || call.startedAtMs === undefined || began < call.startedAtMs - CHILD_START_SLACK_MS) continue;
      if (calls.some((other) => other !== call && other.childAgentId === c.agentId)) continue;
      out.add(c);
    }
  }
  return [...out];
}

/** The open foreground subagent calls with no child evidence at all (no progress line names a child), labelled by call. */
function unseenCalls(state: TranscriptState): { labels: string[]; sinceMs?: number } {
  const calls = state.open.filter((c) => isSubagentTool(c.name) && !c.isBackground && c.childAgentId === undefined && !c.isChildSeen);
  const starts = calls.map((c) => c.startedAtMs).filter((x): x is number => x !== undefined);
  return {
    labels: calls.map((c) => `(the subagent of ${c.name} call ${c.toolUseId ?? 'without an id'})`),
    ...(starts.length > 0 ? { sinceMs: Math.min(...starts) } : {}),
  };
}

/** The transcript as one source for mergeObservations, its progress including the children it waits on. */
export function observeTranscript(state: TranscriptState, facts: TranscriptFacts = {}, children: readonly ChildTranscript[] = []): PartialObservation {
  const part = summarizeTranscript(state, facts);
  const foreground = waitedChildren(state, children);
  // A turn that ended while background subagents run waits on them, named by their launch.
  const inferred = inferredBackground(state, children);
  const background = [...backgroundWaits(state), ...inferred];
  // An open foreground call whose subagent has no transcript found and no progress line naming
  // it: the agent waits on a child nothing can be seen of (issue 19 item 3, never acted on).
  const unseenForeground = foreground.length > 0 ? { labels: [] } : unseenCalls(state);
  if (foreground.length === 0 && background.length === 0) {
    const { labels, sinceMs } = unseenForeground;
    if (labels.length > 0) part.waitingOnChildren = { agentIds: labels, unseenIds: labels, ...(sinceMs !== undefined ? { sinceMs } : {}) };
    // No child transcript, but its progress lines mirror its open call: that call holds the window.
    const mirrored = state.open.findLast((c) => isSubagentTool(c.name) && !c.isBackground && c.childCall?.isOpen)?.childCall;
    if (mirrored) part.lastTool = knownCall(mirrored);
    return part;
  }
  if (inferred.length > 0 && !(state.result && !state.result.isError)) delete part.finished;
  const waited = [...new Set([...foreground, ...children.filter((c) => background.includes(c.agentId))])];
  const childMs = waited.map((c) => c.state.lastEventMs).filter((x): x is number => x !== undefined);
  const newest = childMs.length > 0 ? Math.max(...childMs) : undefined;
  if (newest !== undefined && (part.lastProgressMs === undefined || newest > part.lastProgressMs)) part.lastProgressMs = newest;
  const unseen = background.filter((id) => !waited.some((c) => c.agentId === id));
  // Background children whose own transcript says they answered, though this (their parent's)
  // still has them running: a completion wake not (yet) landed.
  const answered = waited.filter((c) => background.includes(c.agentId) && hasAnswered(c.state));
  const answeredMs = answered.map((c) => c.state.finalTextMs!);
  part.waitingOnChildren = {
    agentIds: [...new Set([...foreground.map((c) => c.agentId), ...background])],
    lastProgressMs: newest,
    ...(background.length > 0 ? { isBackground: true } : {}),
    ...(unseen.length > 0 ? { unseenIds: unseen } : {}),
    ...(answered.length > 0 ? { finishedIds: answered.map((c) => c.agentId), finishedAtMs: Math.max(...answeredMs) } : {}),
  };
  if (waited.length === 0) return part;
  // The busiest child's open call is the call the agent waits on: its own timeout holds the window.
  const busiest = [...waited].sort((a, b) => (b.state.lastEventMs ?? 0) - (a.state.lastEventMs ?? 0))[0]!;
  const childCall = pickLastTool(busiest.state);
  if (childCall?.isOpen && !childCall.isBackground) part.lastTool = knownCall(childCall);
  return part;
}
