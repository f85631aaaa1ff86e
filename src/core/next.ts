// `next` (DESIGN §8): what the orchestrator has not been told yet, and why to return now.
// Pure: the history knows every request and escalation, and what earlier `next` runs printed.
import type { EventBody, EventOf } from '../contracts/events.js';
import { NEXT_EXIT, type NextReason } from '../contracts/next.js';
import type { AttentionRecord, History, RequestRecord } from './history.js';
import type { AttentionKind } from '../contracts/vocabulary.js';

export interface NextNews {
  /** Pending requests no `next` has printed. */
  requests: RequestRecord[];
  /** Requests gone unanswered that no `next` has reported. */
  unanswered: RequestRecord[];
  /** Escalations no `next` has reported. */
  escalations: EventOf<'escalated_to_blocked'>[];
  /** What only a person can help with, not reported yet. */
  attention: AttentionRecord[];
}

/** Everything the orchestrator has not been told yet. */
export function newsOf(h: History): NextNews {
  const reqs = [...h.requests.values()];
  return {
    // A replacement our command launched elsewhere is awaited, not asked for: nothing to carry out.
    requests: reqs.filter((r) => r.status === 'pending' && !r.isLaunched && !h.announced.requests.has(r.key)),
    // A nudge nobody acked is no news: its grace ended and a reconcile request follows if need be.
    unanswered: reqs.filter((r) => r.status === 'unanswered' && r.kind !== 'nudge' && !h.announced.unanswered.has(r.key)),
    escalations: [...h.escalations.entries()].filter(([k]) => !h.announced.escalations.has(k)).map(([, e]) => e),
    attention: [...h.attention.values()].filter((a) => !h.announced.attention.has(a.key)),
  };
}

/** Why `next` returns now (the most urgent news first), or undefined to keep watching. */
export function nextReason(news: NextNews, isWaveDone: boolean): NextReason | undefined {
  // A reconcile request is for a person (the row's owner), not a step the lead carries out on an agent.
  if (news.requests.some((r) => r.kind !== 'reconcile')) return 'requests';
  if (news.unanswered.length > 0) return 'unanswered';
  if (news.escalations.length > 0) return 'escalation';
  if (news.requests.length > 0 || news.attention.length > 0) return 'attention';
  return isWaveDone ? 'wave_complete' : undefined;
}

/** What a person should do about each kind of attention item. */
export const ATTENTION_WHAT_TO_DO: Record<AttentionKind, string> = {
  human_wait: 'The agent waits on a permission prompt or a question: answer it in its session, or stop it; the watchdog never acts on a human wait.',
  orphan:
    'A crash left this action undecidable: check by hand whether it happened (the agent stopped, the replacement launched) and fix the state file; it is never re-fired.',
  unobservable:
    "The watchdog cannot see this agent (no transcript, hooks or process it can read): check it by hand, fix the row's agent_id/session_id/transcript_path, or install the hook.",
  unobservable_child:
    "The agent waits on a subagent the watchdog cannot see (no transcript, progress line or hook activity of it found), so it is never acted on: check the subagent by hand (its output file, or its CLI's view of its background tasks), give it a row of its own with its agent_id, or install the hook so its activity is seen.",
  stall_reported: 'Report mode acts on nothing: look at the agent, and stop or relaunch it yourself if it is stuck.',
  unknown_status:
    'Nobody watches this agent until its row says a status the watchdog knows: set it to in_progress, running, dispatched or blocked, or to a terminal one (completed, merged, failed, cancelled, timeout), the one meant if a did-you-mean is given.',
};

export { NEXT_EXIT };

/** The `next_returned` line journaled after a `next` printed `doc` (by itself, or following another watchdog). */
export function nextReturnedEvent(doc: { reason: NextReason; exit_code: number }, news: NextNews): EventBody<'next_returned'> {
  return {
    event: 'next_returned',
    reason: doc.reason,
    exit_code: doc.exit_code,
    requests: news.requests.map((q) => q.key),
    unanswered: news.unanswered.map((q) => q.key),
    escalations: news.escalations.map((e) => e.key!),
    ...(news.attention.length > 0 ? { attention: news.attention.map((a) => a.key) } : {}),
  };
}
