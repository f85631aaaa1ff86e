// History.redispatchCount and lastRecoveryMode as start-up keeps them (journal/ticket-refs.ts has
// the stalls): another epic's redispatch of a ticket is a reference to its line, read back,
// checked and counted the first time this epic asks about the ticket (a ticket of this wave).
// This epic's own redispatch is folded at once without reading the ticket's pending lines back:
// the count does not depend on order, and the last recovery mode is the latest line's, so the
// pending lines before it only count (kept apart as count-only) and those after it decide the mode.
import type { HistorySummary } from '../contracts/history-summary.js';
import type { RecoveryMode } from '../contracts/vocabulary.js';
import type { AppendRedispatch } from '../core/history.js';
import { RefRun } from './ref-run.js';
import { readBack } from './ticket-refs.js';

type Json = HistorySummary['history'];
/** Per ticket, lines not folded yet: their references (text "cover,offset,length,…" only in the summary). */
type Pending = Map<string, RefRun>;

function runOf(m: Pending, ticket: string): RefRun {
  let run = m.get(ticket);
  if (run === undefined) m.set(ticket, (run = new RefRun()));
  return run;
}

export class RedispatchRefs {
  /** Lines that count and may decide the ticket's last mode (nothing folded after them yet). */
  private readonly pending: Pending = new Map();
  /** Lines that only count: this epic folded a redispatch of the ticket after them. */
  private readonly countOnly: Pending = new Map();
  readonly count: SettlingMap<number>;
  readonly mode: SettlingMap<RecoveryMode>;

  /** @param text a summary's `redispatches` (checked): "ticket\tcount\tmode\trefs\tcount-only refs" lines */
  constructor(
    private readonly dir: string,
    private readonly names: () => readonly string[],
    text = '',
  ) {
    this.count = new SettlingMap(this);
    this.mode = new SettlingMap(this);
    for (const line of text === '' ? [] : text.slice(0, -1).split('\n')) {
      const [ticket, count, mode, refs, only] = line.split('\t') as [string, string, string, string, string];
      if (count !== '') this.count.setRaw(ticket, +count);
      if (mode !== '') this.mode.setRaw(ticket, mode as RecoveryMode);
      if (refs !== '') this.pending.set(ticket, new RefRun(refs));
      if (only !== '') this.countOnly.set(ticket, new RefRun(only));
    }
  }

  /** Another epic's redispatch line (cover index, byte offset, length), counted when the ticket is asked for. */
  add(ticket: string, cover: number, offset: number, length: number): void {
    runOf(this.pending, ticket).add(cover, offset, length);
  }

  /** This epic's redispatch (or one parsed for another reason), in log order after every pending line of the ticket. */
  appendFolded(ticket: string, mode: RecoveryMode): void {
    const before = this.pending.get(ticket);
    if (before !== undefined) {
      this.pending.delete(ticket);
      runOf(this.countOnly, ticket).addRun(before);
    }
    this.count.setRaw(ticket, (this.count.getRaw(ticket) ?? 0) + 1);
    this.mode.setRaw(ticket, mode);
  }

  /** Fold the ticket's pending lines (they precede anything folded from here on, in log order). */
  settle(ticket: string): void {
    const only = this.countOnly.get(ticket);
    const refs = this.pending.get(ticket);
    if (only === undefined && refs === undefined) return;
    this.countOnly.delete(ticket);
    this.pending.delete(ticket);
    const onlyRefs = only === undefined ? [] : only.toRefs();
    const decides = new Set(refs === undefined ? [] : refs.toRefs());
    for (const { ref, event } of readBack(this.dir, this.names(), [...onlyRefs, ...decides], ticket, 'redispatch')) {
      this.count.setRaw(ticket, (this.count.getRaw(ticket) ?? 0) + 1);
      if (decides.has(ref)) this.mode.setRaw(ticket, event.mode ?? 'fresh');
    }
  }

  settleAll(): void {
    for (const t of new Set([...this.pending.keys(), ...this.countOnly.keys()])) this.settle(t);
  }

  /** The summary's part: what was folded, and the lines not read back yet, one line per ticket. */
  raw(): Pick<Json, 'redispatches'> {
    const lines: string[] = [];
    const line = (t: string) =>
      lines.push(
        `${t}\t${this.count.getRaw(t) ?? ''}\t${this.mode.getRaw(t) ?? ''}\t${this.pending.get(t)?.toText() ?? ''}\t${this.countOnly.get(t)?.toText() ?? ''}\n`,
      );
    for (const t of this.count.rawKeys()) line(t);
    for (const t of this.pending.keys()) if (this.count.getRaw(t) === undefined) line(t);
    for (const t of this.countOnly.keys()) if (this.count.getRaw(t) === undefined && !this.pending.has(t)) line(t);
    return { redispatches: lines.join('') };
  }
}

/** A Map whose reads (and writes, which follow them in log order) first settle the ticket's pending lines. */
export class SettlingMap<V> extends Map<string, V> implements AppendRedispatch {
  constructor(private readonly refs: RedispatchRefs) {
    super();
  }

  appendRedispatch(ticket: string, mode: RecoveryMode): void {
    this.refs.appendFolded(ticket, mode);
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
