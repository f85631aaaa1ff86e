// One agent's transcript evidence, with the subagents it waits on: the single function the
// check (claude-observer) and `replay` both use, so replay judges exactly as the loop does. Pure.
import type { PartialObservation } from './observation.js';
import { summarizeTranscript, type TranscriptFacts } from './parse-transcript.js';
import { isSubagentTool } from './parse-transcript-record.js';
import { pickLastTool, type TranscriptState } from './transcript-state.js';

/** A subagent transcript (`<session>/subagents/agent-<id>.jsonl`) read next to its parent. */
export interface ChildTranscript {
  agentId: string;
  state: TranscriptState;
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

/** The transcript as one source for mergeObservations, its progress including the children it waits on. */
export function observeTranscript(state: TranscriptState, facts: TranscriptFacts = {}, children: readonly ChildTranscript[] = []): PartialObservation {
  const part = summarizeTranscript(state, facts);
  const waited = waitedChildren(state, children);
  if (waited.length === 0) return part;
  const childMs = waited.map((c) => c.state.lastEventMs).filter((x): x is number => x !== undefined);
  const newest = childMs.length > 0 ? Math.max(...childMs) : undefined;
  if (newest !== undefined && (part.lastProgressMs === undefined || newest > part.lastProgressMs)) part.lastProgressMs = newest;
  part.waitingOnChildren = { agentIds: waited.map((c) => c.agentId), lastProgressMs: newest };
  // The busiest child's open call is the call the agent waits on: its own timeout holds the window.
  const busiest = [...waited].sort((a, b) => (b.state.lastEventMs ?? 0) - (a.state.lastEventMs ?? 0))[0]!;
  const childCall = pickLastTool(busiest.state);
  if (childCall?.isOpen && !childCall.isBackground) part.lastTool = { ...childCall, isOpenKnown: true };
  return part;
}
