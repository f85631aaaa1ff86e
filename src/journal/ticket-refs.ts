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
import { refsFromText, refsToText, type HistorySummary, type LineRef } from '../contracts/history-summary.js';
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

/** Per ticket: its items, or (from a summary, not used yet) its references as text. */
type Slot = Item[] | string;

export class StallRefMap extends Map<string, StallEvent[]> implements RawStalls {
  /**
   * @param dir the dispatch-log directory
   * @param names the covered day files by cover index (read at use: the fold appends to it)
   * @param text a summary's `stalls` (checked): one line per ticket, split only here
   * @param events a summary's `stall_events`: the items of the tickets whose line is "*"
   */
  constructor(
    private readonly dir: string,
    private readonly names: () => readonly string[],
    text = '',
    events: Json['stall_events'] = [],
  ) {
    super();
    const mixed = new Map(events);
    for (const line of text === '' ? [] : text.slice(0, -1).split('\n')) {
      const tab = line.indexOf('\t');
      const ticket = line.slice(0, tab);
      const refs = line.slice(tab + 1);
      if (refs !== '*') this.slot(ticket, refs);
      else if (mixed.has(ticket)) this.slot(ticket, mixed.get(ticket)!.slice());
    }
  }

  private slot(ticket: string, v: Slot): void {
    super.set(ticket, v as unknown as StallEvent[]);
  }

  private items(ticket: string): Item[] | undefined {
    const v = super.get(ticket) as Slot | undefined;
    if (typeof v !== 'string') return v;
    const items: Item[] = refsFromText(v);
    this.slot(ticket, items);
    return items;
  }

  /** Add a stall by reference, without parsing it (it is checked against the schema when read back). */
  addRef(ticket: string, ref: LineRef): void {
    const v = super.get(ticket) as Slot | undefined;
    if (typeof v === 'string') this.slot(ticket, `${v},${ref.join(',')}`);
    else if (v) v.push(ref);
    else this.slot(ticket, [ref]);
  }

  /** Add a stall folded from its line (its reference tagged): the ticket's earlier ones are not read back for it. */
  appendStall(ticket: string, e: StallEvent): void {
    const ref = origin.get(e);
    if (ref) return this.addRef(ticket, ref);
    const items = this.items(ticket);
    if (items) items.push(e);
    else this.slot(ticket, [e]);
  }

  /** The ticket's stalls, read back from the log on first use (in place, so a push lands in the map). */
  override get(ticket: string): StallEvent[] | undefined {
    const items = this.items(ticket);
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
  rawText(): Pick<Json, 'stalls' | 'stall_events'> {
    let stalls = '';
    const events: Json['stall_events'] = [];
    for (const [ticket, v] of super.entries() as MapIterator<[string, Slot]>) {
      if (typeof v === 'string') {
        stalls += `${ticket}\t${v}\n`;
        continue;
      }
      const items = v.map((it) => (isRef(it) ? it : (origin.get(it) ?? it)));
      if (items.length === 0) continue;
      if (items.every(isRef)) stalls += `${ticket}\t${refsToText(items)}\n`;
      else {
        stalls += `${ticket}\t*\n`;
        events.push([ticket, items]);
      }
    }
    return { stalls, stall_events: events };
  }
}

/**
 * Another epic's redispatches per ticket, by reference, folded (read back, checked, counted) the
 * first time this epic asks about the ticket; until then the maps below hold only what was folded
 * as events (this epic's lines, lines of other shapes, earlier read-backs).
 */
export class RedispatchRefs {
  /** Per ticket, its lines not folded yet: references, or a summary's text of them. */
  private readonly pending = new Map<string, LineRef[] | string>();
  readonly count: SettlingMap<number>;
  readonly mode: SettlingMap<RecoveryMode>;

  /** @param text a summary's `redispatches` (checked): "ticket\tcount\tmode\trefs" lines */
  constructor(
    private readonly dir: string,
    private readonly names: () => readonly string[],
    text = '',
  ) {
    this.count = new SettlingMap(this);
    this.mode = new SettlingMap(this);
    for (const line of text === '' ? [] : text.slice(0, -1).split('\n')) {
      const [ticket, count, mode, refs] = line.split('\t') as [string, string, string, string];
      if (count !== '') this.count.setRaw(ticket, +count);
      if (mode !== '') this.mode.setRaw(ticket, mode as RecoveryMode);
      if (refs !== '') this.pending.set(ticket, refs);
    }
  }

  add(ticket: string, ref: LineRef): void {
    const refs = this.pending.get(ticket);
    if (typeof refs === 'string') this.pending.set(ticket, `${refs},${ref.join(',')}`);
    else if (refs) refs.push(ref);
    else this.pending.set(ticket, [ref]);
  }

  /** Fold the ticket's pending lines (they precede anything folded from here on, in log order). */
  settle(ticket: string): void {
    const refs = this.pending.get(ticket);
    if (!refs) return;
    this.pending.delete(ticket);
    for (const { event } of readBack(this.dir, this.names(), typeof refs === 'string' ? refsFromText(refs) : refs, ticket, 'redispatch')) {
      this.count.setRaw(ticket, (this.count.getRaw(ticket) ?? 0) + 1);
      this.mode.setRaw(ticket, event.mode ?? 'fresh');
    }
  }

  settleAll(): void {
    for (const t of [...this.pending.keys()]) this.settle(t);
  }

  /** The summary's part: what was folded, and the lines not read back yet, one line per ticket. */
  raw(): Pick<Json, 'redispatches'> {
    let text = '';
    const line = (t: string) => {
      const refs = this.pending.get(t);
      text += `${t}\t${this.count.getRaw(t) ?? ''}\t${this.mode.getRaw(t) ?? ''}\t${typeof refs === 'string' ? refs : refs ? refsToText(refs) : ''}\n`;
    };
    for (const t of this.count.rawKeys()) line(t);
    for (const t of this.pending.keys()) if (this.count.getRaw(t) === undefined) line(t);
    return { redispatches: text };
  }
}

/** A Map whose reads (and writes, which follow them in log order) first settle the ticket's pending lines. */
export class SettlingMap<V> extends Map<string, V> {
  constructor(private readonly refs: RedispatchRefs) {
    super();
  }

  getRaw(k: string): V | undefined {
    return super.get(k);
  }

  setRaw(k: string, v: V): void {
    super.set(k, v);
  }

  rawKeys(): MapIterator<string> {
    return super.keys();
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
