// History ⇄ the plain JSON of observe/history/<epic>.json. Pure. Exhaustive over History's
// fields, so a field added to History fails to compile here until the summary carries it.
import type { HistorySummary } from '../contracts/history-summary.js';
import type { History } from './history.js';

type HistoryJson = HistorySummary['history'];

/** Per-ticket parts kept lazily by the shell (journal/ticket-refs.ts): given as they are, not read back. */
export interface LazyParts {
  redispatch(): Pick<HistoryJson, 'redispatches'>;
}

/** History as plain JSON (Maps and Sets as arrays). */
export function historyToJson(h: History, lazy?: LazyParts): HistoryJson {
  const fields: { [K in keyof Required<History>]: unknown } = {
    lastLogged: 0,
    lastLoggedAtMs: 0,
    attention: 0,
    lastStallReason: 0,
    lastStallAction: 0,
    redispatchCount: 0,
    lastRecoveryMode: 0,
    actions: 0,
    replacements: 0,
    stalls: 0,
    ownStalls: 0,
    lastMassStall: 0,
    massStallEpisode: 0,
    trackerPending: 0,
    reportedOrphans: 0,
    requests: 0,
    rowInstance: 0,
    escalations: 0,
    announced: 0,
    notifications: 0,
  };
  void fields;
  return {
    last_logged: [...h.lastLogged],
    last_logged_at_ms: [...h.lastLoggedAtMs],
    attention: [...h.attention.values()].map((a) => JSON.parse(JSON.stringify(a)) as HistoryJson['attention'][number]),
    last_stall_reason: [...h.lastStallReason],
    last_stall_action: [...h.lastStallAction],
    ...(lazy ? lazy.redispatch() : { redispatches: [...h.redispatchCount].map(([t, n]) => `${t}\t${n}\t${h.lastRecoveryMode.get(t) ?? ''}\t\t\n`).join('') }),
    actions: [...h.actions.values()].map((r) => ({ key: r.key, started: r.started, ...(r.outcome ? { outcome: r.outcome } : {}), steps: [...r.steps] })),
    replacements: [...h.replacements],
    ...(isRawStalls(h.stalls) ? h.stalls.rawText() : { stalls: [...h.stalls.keys()].map((t) => `${t}\t*\n`).join(''), stall_events: [...h.stalls] }),
    own_stalls: h.ownStalls.map((s) => [s.taskId, s.atMs, s.ticketId]),
    ...(h.lastMassStall !== undefined ? { last_mass_stall: h.lastMassStall } : {}),
    ...(h.massStallEpisode ? { mass_stall_episode: { ...h.massStallEpisode } } : {}),
    tracker_pending: [...h.trackerPending],
    reported_orphans: [...h.reportedOrphans],
    // Undefined fields dropped, so the JSON round-trips to the same records.
    requests: [...h.requests.values()].map((r) => JSON.parse(JSON.stringify(r)) as HistoryJson['requests'][number]),
    row_instance: [...h.rowInstance],
    escalations: [...h.escalations],
    announced: {
      requests: [...h.announced.requests],
      unanswered: [...h.announced.unanswered],
      escalations: [...h.announced.escalations],
      attention: [...h.announced.attention],
    },
    notifications: [...h.notifications.values()].map((r) => ({ key: r.key, started: r.started, ...(r.outcome ? { outcome: r.outcome } : {}) })),
  };
}

/** A stalls map that gives its entries as a summary keeps them, without reading back lines never used (journal/ticket-refs.ts). */
export interface RawStalls {
  rawText(): Pick<HistoryJson, 'stalls' | 'stall_events'>;
}

const isRawStalls = (m: object): m is RawStalls => typeof (m as Partial<RawStalls>).rawText === 'function';

/**
 * The History a summary describes (Map and Set insertion order as in the fold that wrote it).
 * `lazy` turns the summary's per-ticket entries (line references, read back on use) into maps.
 */
export function historyFromJson(
  j: HistoryJson,
  lazy: { stalls: (j: HistoryJson) => History['stalls']; redispatch: (j: HistoryJson) => Pick<History, 'redispatchCount' | 'lastRecoveryMode'> },
): History {
  const r = lazy.redispatch(j);
  const h: History = {
    lastLogged: new Map(j.last_logged),
    lastLoggedAtMs: new Map(j.last_logged_at_ms),
    attention: new Map(j.attention.map((a) => [a.key, { ...a }])),
    lastStallReason: new Map(j.last_stall_reason),
    lastStallAction: new Map(j.last_stall_action),
    redispatchCount: r.redispatchCount,
    lastRecoveryMode: r.lastRecoveryMode,
    actions: new Map(j.actions.map((r) => [r.key, { key: r.key, started: r.started, ...(r.outcome ? { outcome: r.outcome } : {}), steps: new Set(r.steps) }])),
    replacements: new Map(j.replacements),
    stalls: lazy.stalls(j),
    ownStalls: j.own_stalls.map(([taskId, atMs, ticketId]) => ({ taskId, ticketId, atMs })),
    trackerPending: new Map(j.tracker_pending),
    reportedOrphans: new Set(j.reported_orphans),
    requests: new Map(j.requests.map((r) => [r.key, { ...r, was: { ...r.was } }])),
    rowInstance: new Map(j.row_instance),
    escalations: new Map(j.escalations),
    announced: {
      requests: new Set(j.announced.requests),
      unanswered: new Set(j.announced.unanswered),
      escalations: new Set(j.announced.escalations),
      attention: new Set(j.announced.attention),
    },
    notifications: new Map(j.notifications.map((r) => [r.key, { key: r.key, started: r.started, ...(r.outcome ? { outcome: r.outcome } : {}) }])),
  };
  if (j.last_mass_stall !== undefined) h.lastMassStall = j.last_mass_stall;
  if (j.mass_stall_episode) h.massStallEpisode = { ...j.mass_stall_episode };
  return h;
}
