// History ⇄ the plain JSON of observe/history/<epic>.json. Pure. Exhaustive over History's
// fields, so a field added to History fails to compile here until the summary carries it.
import type { HistorySummary } from '../contracts/history-summary.js';
import type { History } from './history.js';

type HistoryJson = HistorySummary['history'];

/** History as plain JSON (Maps and Sets as arrays). */
export function historyToJson(h: History): HistoryJson {
  const fields: { [K in keyof Required<History>]: unknown } = {
    lastLogged: 0,
    redispatchCount: 0,
    actions: 0,
    replacements: 0,
    stalls: 0,
    lastMassStall: 0,
    trackerPending: 0,
    reportedOrphans: 0,
    requests: 0,
    rowInstance: 0,
    escalations: 0,
    announced: 0,
  };
  void fields;
  return {
    last_logged: [...h.lastLogged],
    redispatch_count: [...h.redispatchCount],
    actions: [...h.actions.values()].map((r) => ({ key: r.key, started: r.started, ...(r.outcome ? { outcome: r.outcome } : {}), steps: [...r.steps] })),
    replacements: [...h.replacements],
    stalls: [...h.stalls],
    ...(h.lastMassStall !== undefined ? { last_mass_stall: h.lastMassStall } : {}),
    tracker_pending: [...h.trackerPending],
    reported_orphans: [...h.reportedOrphans],
    // Undefined fields dropped, so the JSON round-trips to the same records.
    requests: [...h.requests.values()].map((r) => JSON.parse(JSON.stringify(r)) as HistoryJson['requests'][number]),
    row_instance: [...h.rowInstance],
    escalations: [...h.escalations],
    announced: { requests: [...h.announced.requests], unanswered: [...h.announced.unanswered], escalations: [...h.announced.escalations] },
  };
}

/** The History a summary describes (Map and Set insertion order as in the fold that wrote it). */
export function historyFromJson(j: HistoryJson): History {
  const h: History = {
    lastLogged: new Map(j.last_logged),
    redispatchCount: new Map(j.redispatch_count),
    actions: new Map(j.actions.map((r) => [r.key, { key: r.key, started: r.started, ...(r.outcome ? { outcome: r.outcome } : {}), steps: new Set(r.steps) }])),
    replacements: new Map(j.replacements),
    stalls: new Map(j.stalls),
    trackerPending: new Map(j.tracker_pending),
    reportedOrphans: new Set(j.reported_orphans),
    requests: new Map(j.requests.map((r) => [r.key, { ...r, was: { ...r.was } }])),
    rowInstance: new Map(j.row_instance),
    escalations: new Map(j.escalations),
    announced: { requests: new Set(j.announced.requests), unanswered: new Set(j.announced.unanswered), escalations: new Set(j.announced.escalations) },
  };
  if (j.last_mass_stall !== undefined) h.lastMassStall = j.last_mass_stall;
  return h;
}
