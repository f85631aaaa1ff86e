// `next` (DESIGN §8): what the orchestrator has not been told yet, and why to return now.
// Pure: the history knows every request and escalation, and what earlier `next` runs printed.
import type { EventOf } from '../contracts/events.js';
import { NEXT_EXIT, type NextReason } from '../contracts/next.js';
import type { History, RequestRecord } from './history.js';

export interface NextNews {
  /** Pending requests no `next` has printed. */
  requests: RequestRecord[];
  /** Requests gone unanswered that no `next` has reported. */
  unanswered: RequestRecord[];
  /** Escalations no `next` has reported. */
  escalations: EventOf<'escalated_to_blocked'>[];
}

/** Everything the orchestrator has not been told yet. */
export function newsOf(h: History): NextNews {
  const reqs = [...h.requests.values()];
  return {
    requests: reqs.filter((r) => r.status === 'pending' && !h.announced.requests.has(r.key)),
    unanswered: reqs.filter((r) => r.status === 'unanswered' && !h.announced.unanswered.has(r.key)),
    escalations: [...h.escalations.entries()].filter(([k]) => !h.announced.escalations.has(k)).map(([, e]) => e),
  };
}

/** Why `next` returns now (the most urgent news first), or undefined to keep watching. */
export function nextReason(news: NextNews, isWaveDone: boolean): NextReason | undefined {
  if (news.requests.length > 0) return 'requests';
  if (news.unanswered.length > 0) return 'unanswered';
  if (news.escalations.length > 0) return 'escalation';
  return isWaveDone ? 'wave_complete' : undefined;
}

export { NEXT_EXIT };
