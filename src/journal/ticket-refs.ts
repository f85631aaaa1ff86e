// The per-ticket parts of History that every epic's lines feed (CROSS_EPIC_EVENTS), as start-up
// keeps them: another epic's line as a reference to its bytes in a day file ([cover index,
// offset, length]), read back and parsed only when this epic asks about that ticket.
// - History.stalls: every stall of every ticket, read when one ticket is escalated. A fold of
//   1,000,000 events holds ~100,000 stalls: kept as events they were most of a start's memory and
//   of the summary (68 MB of 74 MB); as references, ~20 bytes each.
// - History.redispatchCount and lastRecoveryMode: another epic's redispatches of a ticket, counted
//   when the planner asks about that ticket (a ticket of this wave), not parsed at start-up
//   (journal/redispatch-refs.ts).
// A line is checked against the event schema when read back (journal/log-prefilter.ts keeps
// another epic's stall by its bytes alone). The summary vouches a covered file's bytes are
// unchanged (device, inode, size); a line that does not read back as that ticket's valid stall
// (invalid as written, or the file pruned or replaced since) is left out, as a fold leaves out an
// invalid line: its escalation note lists fewer stalls, nothing else depends on it.
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { EventOf } from '../contracts/events.js';
import { refsToText, type HistorySummary, type LineRef } from '../contracts/history-summary.js';
import type { RawStalls } from '../core/history-summary.js';
import { parseLogLine } from './dispatch-log.js';
import { RefRun } from './ref-run.js';

type StallEvent = EventOf<'stall_detected'>;
type Item = StallEvent | LineRef;
type Json = HistorySummary['history'];

/** The lines at `refs` that read back as `ticket`'s valid `event` lines, in order (fds opened once per file). */
export function readBack<E extends 'stall_detected' | 'redispatch'>(
  dir: string,
  names: readonly string[],
  refs: readonly LineRef[],
  ticket: string,
  event: E,
): { ref: LineRef; event: EventOf<E> }[] {
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

/** Per ticket: its items, or its references not read back yet (from a summary or the fold, not asked for). */
type Slot = Item[] | RefRun;

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
      if (refs !== '*') this.slot(ticket, new RefRun(refs));
      else if (mixed.has(ticket)) this.slot(ticket, mixed.get(ticket)!.slice());
    }
  }

  private slot(ticket: string, v: Slot): void {
    super.set(ticket, v as unknown as StallEvent[]);
  }

  private items(ticket: string): Item[] | undefined {
    const v = super.get(ticket) as Slot | undefined;
    if (!(v instanceof RefRun)) return v;
    const items: Item[] = v.toRefs();
    this.slot(ticket, items);
    return items;
  }

  /** Add a stall by reference (cover index, byte offset, length), without parsing it: it is checked against the schema when read back. Kept as numbers until the ticket is asked for. */
  addRef(ticket: string, cover: number, offset: number, length: number): void {
    const v = super.get(ticket) as Slot | undefined;
    if (v === undefined) {
      const run = new RefRun();
      run.add(cover, offset, length);
      this.slot(ticket, run);
    } else if (v instanceof RefRun) v.add(cover, offset, length);
    else v.push([cover, offset, length]);
  }

  /** Add a stall folded from its line (its reference tagged): the ticket's earlier ones are not read back for it. */
  appendStall(ticket: string, e: StallEvent): void {
    const ref = origin.get(e);
    if (ref) {
      this.addRef(ticket, ref[0], ref[1], ref[2]);
      return;
    }
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
      if (v instanceof RefRun) {
        stalls += `${ticket}\t${v.toText()}\n`;
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
