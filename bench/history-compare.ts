// A History as plain JSON to compare a start-up's (from the summary or rebuilt) with a whole fold's (tests and the log bench):
// other epics' stalls and redispatches are kept as references into the log there
// (journal/ticket-refs.ts), read back here; the per-ticket totals, only ever looked up by ticket,
// sorted (a start counts them in the order tickets are asked about).
import type { History } from '../src/core/history.js';
import { historyToJson } from '../src/core/history-summary.js';

const byKey = <V>(m: Map<string, V>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export function comparableHistory(h: History) {
  return {
    ...historyToJson(h),
    stalls: [...h.stalls],
    stall_events: undefined,
    redispatches: undefined,
    redispatch_count: byKey(h.redispatchCount),
    last_recovery_mode: byKey(h.lastRecoveryMode),
  };
}
