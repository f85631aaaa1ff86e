// History ⇄ the plain JSON of observe/history/<epic>.json. Pure. Exhaustive over History's
// fields, so a field added to History fails to compile here until the summary carries it.
import type { EventOf } from '../contracts/events.js';
import type { HistorySummary } from '../contracts/history-summary.js';
import type { History } from './history.js';

type HistoryJson = HistorySummary['history'];

/** History as plain JSON (Maps and Sets as arrays). */
export function historyToJson(h: History): HistoryJson {
  const fields: { [K in keyof Required<History>]: unknown } = {
    lastLogged: 0,
    lastLoggedAtMs: 0,
    attention: 0,
    lastStallReason: 0,
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
    redispatch_count: [...h.redispatchCount],
    last_recovery_mode: [...h.lastRecoveryMode],
    actions: [...h.actions.values()].map((r) => ({ key: r.key, started: r.started, ...(r.outcome ? { outcome: r.outcome } : {}), steps: [...r.steps] })),
    replacements: [...h.replacements],
    stalls: h.stalls instanceof LazyJsonMap ? h.stalls.rawEntries() : [...h.stalls].map(([t, list]) => [t, JSON.stringify(list)]),
    own_stalls: h.ownStalls.map((s) => [s.taskId, s.atMs]),
    ...(h.lastMassStall !== undefined ? { last_mass_stall: h.lastMassStall } : {}),
    ...(h.massStallEpisode ? { mass_stall_episode: { ...h.massStallEpisode } } : {}),
    tracker_pending: [...h.trackerPending],
    reported_orphans: [...h.reportedOrphans],
    // Undefined fields dropped, so the JSON round-trips to the same records.
    requests: [...h.requests.values()].map((r) => JSON.parse(JSON.stringify(r)) as HistoryJson['requests'][number]),
    row_instance: [...h.rowInstance],
    escalations: [...h.escalations],
    announced: { requests: [...h.announced.requests], unanswered: [...h.announced.unanswered], escalations: [...h.announced.escalations], attention: [...h.announced.attention] },
    notifications: [...h.notifications.values()].map((r) => ({ key: r.key, started: r.started, ...(r.outcome ? { outcome: r.outcome } : {}) })),
  };
}

/** The History a summary describes (Map and Set insertion order as in the fold that wrote it). */
export function historyFromJson(j: HistoryJson): History {
  const h: History = {
    lastLogged: new Map(j.last_logged),
    lastLoggedAtMs: new Map(j.last_logged_at_ms),
    attention: new Map(j.attention.map((a) => [a.key, { ...a }])),
    lastStallReason: new Map(j.last_stall_reason),
    redispatchCount: new Map(j.redispatch_count),
    lastRecoveryMode: new Map(j.last_recovery_mode),
    actions: new Map(j.actions.map((r) => [r.key, { key: r.key, started: r.started, ...(r.outcome ? { outcome: r.outcome } : {}), steps: new Set(r.steps) }])),
    replacements: new Map(j.replacements),
    stalls: new LazyJsonMap<EventOf<'stall_detected'>[]>(j.stalls),
    ownStalls: j.own_stalls.map(([taskId, atMs]) => ({ taskId, atMs })),
    trackerPending: new Map(j.tracker_pending),
    reportedOrphans: new Set(j.reported_orphans),
    requests: new Map(j.requests.map((r) => [r.key, { ...r, was: { ...r.was } }])),
    rowInstance: new Map(j.row_instance),
    escalations: new Map(j.escalations),
    announced: { requests: new Set(j.announced.requests), unanswered: new Set(j.announced.unanswered), escalations: new Set(j.announced.escalations), attention: new Set(j.announced.attention) },
    notifications: new Map(j.notifications.map((r) => [r.key, { key: r.key, started: r.started, ...(r.outcome ? { outcome: r.outcome } : {}) }])),
  };
  if (j.last_mass_stall !== undefined) h.lastMassStall = j.last_mass_stall;
  if (j.mass_stall_episode) h.massStallEpisode = { ...j.mass_stall_episode };
  return h;
}

const RAW: unique symbol = Symbol('raw');

/**
 * A Map whose values arrive as JSON text and are parsed on first use, in place (so the order of
 * keys stays the order they were written in). History.stalls holds every stall of every ticket,
 * read only when one ticket is escalated: parsing them all at start-up would cost most of it.
 */
export class LazyJsonMap<V> extends Map<string, V> {
  private raw = new Map<string, string>();

  constructor(entries: readonly (readonly [string, string])[] = []) {
    super();
    for (const [k, text] of entries) {
      this.raw.set(k, text);
      super.set(k, RAW as unknown as V);
    }
  }

  override get(k: string): V | undefined {
    const v = super.get(k);
    if (v !== (RAW as unknown)) return v;
    const parsed = JSON.parse(this.raw.get(k)!) as V;
    this.raw.delete(k);
    super.set(k, parsed);
    return parsed;
  }

  override set(k: string, v: V): this {
    this.raw.delete(k);
    return super.set(k, v);
  }

  override delete(k: string): boolean {
    this.raw.delete(k);
    return super.delete(k);
  }

  override clear(): void {
    this.raw.clear();
    super.clear();
  }

  override *entries(): MapIterator<[string, V]> {
    for (const k of super.keys()) yield [k, this.get(k)!];
  }

  override *values(): MapIterator<V> {
    for (const k of super.keys()) yield this.get(k)!;
  }

  override [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  override forEach(fn: (v: V, k: string, m: Map<string, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  /** Every entry as JSON text, without parsing what was never used. */
  rawEntries(): [string, string][] {
    return [...super.keys()].map((k) => [k, this.raw.get(k) ?? JSON.stringify(super.get(k))]);
  }
}
