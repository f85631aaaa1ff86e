// The per-ticket parts of History that every epic's lines feed (CROSS_EPIC_EVENTS), as start-up
// keeps them: another epic's line as a reference to its bytes in a day file ([cover index,
// offset, length]), read back and parsed only when this epic asks about that ticket.
// - History.stalls: every stall of every ticket, read when one ticket is escalated. A fold of
//   1,000,000 events holds ~100,000 stalls: kept as events they were most of a start's memory and
//   of the summary (68 MB of 74 MB); as references, ~20 bytes each.
// - History.redispatchCount and lastRecoveryMode: another epic's redispatches of a ticket, counted
//   when the planner asks about that ticket (a ticket of this wave), not parsed at start-up.
// A line is checked against the event schema when read back (journal/log-prefilter.ts keeps
// another epic's stall by its bytes alone). The summary vouches a covered file's bytes are
// unchanged (device, inode, size); a line that does not read back as that ticket's valid stall
// (invalid as written, or the file pruned or replaced since) is left out, as a fold leaves out an
// invalid line: its escalation note lists fewer stalls, nothing else depends on it.
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { EventOf } from '../contracts/events.js';
import type { HistorySummary, LineRef } from '../contracts/history-summary.js';
import type { RawStalls } from '../core/history-summary.js';
import type { RecoveryMode } from '../contracts/vocabulary.js';
import { parseLogLine } from './dispatch-log.js';

type StallEvent = EventOf<'stall_detected'>;
type Item = StallEvent | LineRef;
type Json = HistorySummary['history'];

/** The lines at `refs` that read back as `ticket`'s valid `event` lines, in order (fds opened once per file). */
function readBack<E extends 'stall_detected' | 'redispatch'>(dir: string, names: readonly string[], refs: readonly LineRef[], ticket: string, event: E): { ref: LineRef; event: EventOf<E> }[] {
  const out: { ref: LineRef; event: EventOf<E> }[] = [];
  const fds = new Map<number, number | null>();
  try {
    for (const ref of refs) {
      const [file, offset, length] = ref;
      let fd = fds.get(file);
      if (fd === undefined) {
        const name = names[file];
        try {
          fd = name === undefined ? null : openSync(path.join(dir, name), 'r');
        } catch {
          fd = null;
        }
        fds.set(file, fd);
      }
      if (fd === null) continue;
      const buf = Buffer.alloc(length);
      if (readSync(fd, buf, 0, length, offset) !== length) continue;
      const r = parseLogLine(buf.toString('utf8'));
      if (r.ok && r.event.event === event && (r.event as { ticket_id?: string }).ticket_id === ticket) out.push({ ref, event: r.event as EventOf<E> });
    }
  } finally {
    for (const fd of fds.values()) if (fd !== null) closeSync(fd);
  }
  return out;
}

/** Where each event folded from a day file came from (so a summary written again keeps a reference). */
const origin = new WeakMap<object, LineRef>();

export function tagLine(e: object, ref: LineRef): void {
  origin.set(e, ref);
}

const isRef = (x: Item): x is LineRef => Array.isArray(x);

export class StallRefMap extends Map<string, StallEvent[]> implements RawStalls {
  /**
   * @param dir the dispatch-log directory
   * @param names the covered day files by cover index (read at use: the fold appends to it)
   */
  constructor(
    private readonly dir: string,
    private readonly names: () => readonly string[],
    entries: HistorySummary['history']['stalls'] = [],
  ) {
    super();
    for (const [ticket, items] of entries) super.set(ticket, items.slice() as StallEvent[]);
  }

  /** Add a stall by reference, without parsing it (it is checked against the schema when read back). */
  addRef(ticket: string, ref: LineRef): void {
    const items = super.get(ticket) as Item[] | undefined;
    if (items) items.push(ref);
    else super.set(ticket, [ref] as unknown as StallEvent[]);
  }

  /** The ticket's stalls, read back from the log on first use (in place, so a push lands in the map). */
  override get(ticket: string): StallEvent[] | undefined {
    const items = super.get(ticket) as Item[] | undefined;
    if (!items || !items.some(isRef)) return items as StallEvent[] | undefined;
    const read = new Map(readBack(this.dir, this.names(), items.filter(isRef), ticket, 'stall_detected').map((r) => [r.ref, r.event]));
    const events: StallEvent[] = [];
    for (const it of items) {
      const e = isRef(it) ? read.get(it) : it;
      if (!e) continue;
      if (isRef(it)) tagLine(e, it);
      events.push(e);
    }
    items.length = 0;
    items.push(...events);
    return items as StallEvent[];
  }

  /** Iteration reads every ticket back; one whose every line failed its check reads as no entry, as a fold of the log has none. */
  override *entries(): MapIterator<[string, StallEvent[]]> {
    for (const k of super.keys()) {
      const v = this.get(k)!;
      if (v.length > 0) yield [k, v];
    }
  }

  override *values(): MapIterator<StallEvent[]> {
    for (const [, v] of this.entries()) yield v;
  }

  override [Symbol.iterator](): MapIterator<[string, StallEvent[]]> {
    return this.entries();
  }

  override forEach(fn: (v: StallEvent[], k: string, m: Map<string, StallEvent[]>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  /** Every entry as the summary keeps it: a reference for each stall read from a day file, without reading any back. */
  rawEntries(): HistorySummary['history']['stalls'] {
    return [...super.entries()].map(([k, items]) => [k, (items as Item[]).map((it) => (isRef(it) ? it : (origin.get(it) ?? it)))]);
  }
}

/**
 * Another epic's redispatches per ticket, by reference, folded (read back, checked, counted) the
 * first time this epic asks about the ticket; until then the maps below hold only what was folded
 * as events (this epic's lines, lines of other shapes, earlier read-backs).
 */
export class RedispatchRefs {
  private readonly pending = new Map<string, LineRef[]>();
  readonly count: SettlingMap<number>;
  readonly mode: SettlingMap<RecoveryMode>;

  constructor(
    private readonly dir: string,
    private readonly names: () => readonly string[],
    j?: Pick<Json, 'redispatch_count' | 'last_recovery_mode' | 'redispatch_refs'>,
  ) {
    this.count = new SettlingMap(this, j?.redispatch_count ?? []);
    this.mode = new SettlingMap(this, j?.last_recovery_mode ?? []);
    for (const [t, flat] of j?.redispatch_refs ?? []) {
      const refs: LineRef[] = [];
      for (let i = 0; i + 2 < flat.length; i += 3) refs.push([flat[i]!, flat[i + 1]!, flat[i + 2]!]);
      this.pending.set(t, refs);
    }
  }

  add(ticket: string, ref: LineRef): void {
    const refs = this.pending.get(ticket);
    if (refs) refs.push(ref);
    else this.pending.set(ticket, [ref]);
  }

  /** Fold the ticket's pending lines (they precede anything folded from here on, in log order). */
  settle(ticket: string): void {
    const refs = this.pending.get(ticket);
    if (!refs) return;
    this.pending.delete(ticket);
    for (const { event } of readBack(this.dir, this.names(), refs, ticket, 'redispatch')) {
      this.count.setRaw(ticket, (this.count.getRaw(ticket) ?? 0) + 1);
      this.mode.setRaw(ticket, event.mode ?? 'fresh');
    }
  }

  settleAll(): void {
    for (const t of [...this.pending.keys()]) this.settle(t);
  }

  /** The summary's part: what was folded, and the lines not read back yet (flat [cover, offset, length, …] per ticket). */
  raw(): Pick<Json, 'redispatch_count' | 'last_recovery_mode' | 'redispatch_refs'> {
    return { redispatch_count: this.count.rawEntries(), last_recovery_mode: this.mode.rawEntries(), redispatch_refs: [...this.pending].map(([t, refs]) => [t, refs.flat()]) };
  }
}

/** A Map whose reads (and writes, which follow them in log order) first settle the ticket's pending lines. */
export class SettlingMap<V> extends Map<string, V> {
  constructor(
    private readonly refs: RedispatchRefs,
    entries: readonly (readonly [string, V])[],
  ) {
    super();
    for (const [k, v] of entries) super.set(k, v);
  }

  getRaw(k: string): V | undefined {
    return super.get(k);
  }

  setRaw(k: string, v: V): void {
    super.set(k, v);
  }

  rawEntries(): [string, V][] {
    return [...super.entries()];
  }

  override get(k: string): V | undefined {
    this.refs.settle(k);
    return super.get(k);
  }

  override has(k: string): boolean {
    this.refs.settle(k);
    return super.has(k);
  }

  override set(k: string, v: V): this {
    this.refs.settle(k);
    return super.set(k, v);
  }

  override *entries(): MapIterator<[string, V]> {
    this.refs.settleAll();
    yield* super.entries();
  }

  override *keys(): MapIterator<string> {
    this.refs.settleAll();
    yield* super.keys();
  }

  override *values(): MapIterator<V> {
    this.refs.settleAll();
    yield* super.values();
  }

  override [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  override forEach(fn: (v: V, k: string, m: Map<string, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  override get size(): number {
    this.refs.settleAll();
    return super.size;
  }
}
