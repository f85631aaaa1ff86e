// The hook activity of the subagents a parent waits on, folded into the parent's transcript
// evidence (issue 19 items 1-3): a child whose hooks show it at work keeps its parent alive, its
// open call holds the parent's window, its permission dialog makes the parent wait for a human,
// and a child seen only by its hooks is no longer unobservable. Pure.
import { knownCall, type PartialObservation } from '../../../observe/parse/observation.js';
import { summarizeHooks, type HookState } from './parse-hook-activity.js';
import { isSubagentTool } from './records/tasks.js';

/** One waited-on subagent's activity file (activity/<agent_id>.ndjson), as read. */
export interface ChildHooks {
  agentId: string;
  state: HookState;
  /**
   * The label of the open foreground call this child was matched to by its session (its id was
   * unknown: no transcript and no progress line named it); absent when the parent named the child.
   */
  forCall?: string;
}

const newest = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));

/** The parent's transcript part with its waited-on children's hook activity; `part` itself when there is none. */
export function withChildHooks(part: PartialObservation, children: readonly ChildHooks[]): PartialObservation {
  const w = part.waitingOnChildren;
  const seen = children.filter((c) => c.state.lines > 0);
  if (!w || seen.length === 0) return part;
  const out: PartialObservation = { ...part };
  const labels = new Map(seen.filter((c) => c.forCall).map((c) => [c.forCall!, c.agentId]));
  const ids = new Set(seen.map((c) => c.agentId));
  const agentIds = [...new Set(w.agentIds.map((id) => labels.get(id) ?? id))];
  const unseenIds = (w.unseenIds ?? []).filter((id) => !labels.has(id) && !ids.has(id));
  let childMs = w.lastProgressMs;
  for (const c of seen) childMs = newest(childMs, c.state.lastEventMs);
  out.waitingOnChildren = { ...w, agentIds, ...(childMs !== undefined ? { lastProgressMs: childMs } : {}) };
  if (unseenIds.length > 0) out.waitingOnChildren.unseenIds = unseenIds;
  else delete out.waitingOnChildren.unseenIds;
  out.lastProgressMs = newest(part.lastProgressMs, childMs);
  // The busiest child's evidence: its open call holds the window (as in its transcript), its dialog waits for a person.
  const busiest = [...seen].sort((a, b) => (b.state.lastEventMs ?? 0) - (a.state.lastEventMs ?? 0))[0]!;
  const facts = summarizeHooks(busiest.state);
  const call = facts.lastTool;
  if (call?.isOpen && !call.isBackground && (!part.lastTool || !part.lastTool.isOpen || isSubagentTool(part.lastTool.name))) out.lastTool = knownCall(call);
  for (const c of seen) {
    const asks = summarizeHooks(c.state).waitingHuman;
    if (asks && (!out.waitingHuman || (asks.sinceMs ?? 0) >= (out.waitingHuman.sinceMs ?? 0))) {
      out.waitingHuman = { ...asks, detail: `in subagent ${c.agentId}${asks.detail ? `: ${asks.detail}` : ''}` };
    }
  }
  return out;
}
