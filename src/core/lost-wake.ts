// A lost completion wake (issue 38; anthropics/claude-code #88001, #92952, #96170): an agent whose
// turn ended to wait on background subagents, every one of which has answered in its own
// transcript, while nothing woke the agent (no completion notification, queued or delivered). Its
// silence past the window is that signature, not the children's stall, and it is never deferred to
// a child's own row: that row is finished, so nothing would act on it. Pure.
import type { Observation } from '../observe/parse/observation.js';

type Children = NonNullable<Observation['waitingOnChildren']>;

/** The children waited on, when every one of them is a background subagent that answered. */
export function lostWake(children: Children | undefined): Children | undefined {
  if (!children?.isBackground || !children.finishedIds?.length || children.unseenIds?.length) return undefined;
  const done = new Set(children.finishedIds);
  return children.agentIds.every((id) => done.has(id)) ? children : undefined;
}

/** "lost completion wake: background subagent a1 finished 31s ago (…), and no completion notification reached this agent in 31s". */
export function lostWakeWhy(children: Children, idle: string, nowMs: number): string {
  const many = children.agentIds.length > 1;
  const ago = children.finishedAtMs === undefined ? '' : ` ${Math.round(Math.max(0, nowMs - children.finishedAtMs) / 1000)}s ago`;
  const own = many ? 'their transcripts end with their final answers' : 'its transcript ends with its final answer';
  return `lost completion wake: background subagent${many ? 's' : ''} ${children.agentIds.join(', ')} finished${ago} (${own}), and no completion notification reached this agent in ${idle}`;
}
