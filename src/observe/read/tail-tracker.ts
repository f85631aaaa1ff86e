// Keeps, per file, a tail position and the parser state built from the lines read so far: in
// memory across checks, and in a TailStore across restarts. One read per file at a time (a
// shared parent transcript may be asked for by several tasks at once). I/O via TailReader.
import { describeRef, type ObserveDiagnostic } from '../parse/diagnostic.js';
import { positionFromCursor, type TailReader, type TailPosition } from './tail-file.js';
import type { StoredTail, TailStore } from './tail-store.js';

import { LEVEL_OF, type Level, type ReadOptions, type TailHandle, type TailParser, type TrackResult } from './tail-tracker-types.js';

/** A periodic save (`flush(…, saveAgeMs)`) saves a file that moved this far since its last save, however recent. @defaultValue 1048576 (1 MB) */
/** A periodic save leaves a file saved less than this long ago for a later one, in ms (TailTracker.flush; every observer's endCheck). */
export const SAVE_AGE_MS = 60_000;
export const SAVE_MOVED_BYTES = 1024 * 1024;

/** A cheap hash of a file's name (its last 32 characters), to spread periodic saves. */
function hashOf(file: string): number {
  let h = 0;
  for (let i = Math.max(0, file.length - 32); i < file.length; i++) h = (Math.imul(h, 31) + file.charCodeAt(i)) >>> 0;
  return h;
}

/** How stale a saved use time may get before an unchanged file is saved again. */
const USED_AT_REFRESH_MS = 3_600_000;

/** Diagnostics kept for the caller to drain. @defaultValue 100 */
const DIAGNOSTICS_MAX = 100;

/** Per-file positions and parser states; `read` returns the state after the newly appended lines. */
export class TailTracker<S> {
  private entries = new Map<string, TailHandle<S>>();
  private stored?: Promise<Map<string, StoredTail<S>>>;
  private busy = new Map<string, Promise<unknown>>();
  /** Files whose position or state changed since the last flush (only these are saved). */
  private dirty = new Set<string>();
  private diags: ObserveDiagnostic[] = [];
  private checkId = 0;
  /** The last version handed out (versions are never reused, even for a file read again from scratch). */
  private versions = 0;

  constructor(
    readonly reader: TailReader,
    private readonly parser: TailParser<S>,
    private readonly store?: TailStore<S>,
  ) {}

  /**
   * A new check begins: until the next call, each file is read at most once however many
   * tasks ask for it (a parent transcript shared by its subagents); later asks get that read.
   */
  beginCheck(): void {
    this.checkId++;
  }

  /**
   * Read what `file` gained since the last call (or since the saved position) and return the
   * state. A cold start of a lazy parser reads a short tail; `context` widens or completes it.
   */
  read(file: string, nowMs: number, opts: ReadOptions = {}): Promise<TrackResult<S>> {
    const mem = this.entries.get(file);
    const want: Level = opts.context ? LEVEL_OF[opts.context] : 0;
    if (
      mem &&
      this.checkId > 0 &&
      mem.checkId === this.checkId &&
      mem.size !== undefined &&
      mem.mtimeMs !== undefined &&
      !this.busy.has(file) &&
      !this.wantsMore(mem, want)
    ) {
      return Promise.resolve({ ok: true, state: mem.state, size: mem.size, mtimeMs: mem.mtimeMs, version: mem.version!, handle: mem });
    }
    const before = this.busy.get(file) ?? Promise.resolve();
    const run = before.then(() => this.readNow(file, nowMs, want, opts.tailBytes, opts.coldTailBytes));
    const settled = run.catch(() => undefined);
    this.busy.set(file, settled);
    void settled.then(() => {
      if (this.busy.get(file) === settled) this.busy.delete(file);
    });
    return run;
  }

  /**
   * The version `read` would return for `file` if it did not change since it was last read, with
   * `read`'s side effects for an unchanged file (one stat, at most once per check; its use time
   * refreshed) and no promise. Undefined when it changed, was never read, or is being read: ask
   * `read` then. The reader's change notification may stand in for the stat, unless
   * `isStatRequired` (then a stat is taken once in the check).
   */
  peekVersion(file: string, nowMs: number, isStatRequired = false): number | undefined {
    const mem = this.entries.get(file);
    return mem && this.peekHandle(mem, nowMs, isStatRequired);
  }

  /** `peekVersion` of the file a handle from `read` tracks, with no path lookup. */
  peekHandle(mem: TailHandle<S>, nowMs: number, isStatRequired = false): number | undefined {
    if (mem.isDropped || mem.version === undefined || (this.busy.size !== 0 && this.busy.has(mem.file))) return undefined;
    if (this.checkId > 0 && mem.checkId === this.checkId && (!isStatRequired || mem.statCheckId === this.checkId)) return mem.version;
    const by = this.reader.unchangedBy(mem.file, mem.position, isStatRequired, mem.note);
    if (!by) {
      // Changed: a read in this check must not take the entry as read already.
      mem.checkId = undefined;
      return undefined;
    }
    // As readNow does for an unchanged file.
    if (nowMs - (mem.savedUsedAtMs ?? 0) > USED_AT_REFRESH_MS) this.dirty.add(mem.file);
    mem.usedAtMs = nowMs;
    mem.checkId = this.checkId;
    if (by === 'stat') {
      mem.statCheckId = this.checkId;
      mem.note = this.reader.noteOf(mem.file);
    }
    return mem.version;
  }

  /**
   * Whether `file`, which the last `read` found missing, still is: `peekVersion` for a file that
   * was not there (one stat at most, or none when change notification vouches; no promise).
   */
  isStillAbsent(file: string, isStatRequired = false): boolean {
    if (this.entries.has(file) || (this.busy.size !== 0 && this.busy.has(file))) return false;
    return this.reader.isStillAbsent(file, isStatRequired);
  }

  /** Problems met since the last call (bad JSON lines, oversized lines), oldest first. */
  drainDiagnostics(): ObserveDiagnostic[] {
    const out = this.diags;
    this.diags = [];
    return out;
  }

  /**
   * Save the positions and states that changed since the last flush (no-op when none did).
   * `saveAgeMs` (a periodic save): a file saved less than that long ago that moved less than
   * SAVE_MOVED_BYTES since waits for a later flush. Under a busy wave every file changes between
   * two saves, and saving each one every 10 s cost a sixth of a check's CPU (issue 37). Crash-safe:
   * a position is always saved with the state folded up to it, so an older one only makes a
   * restart read more again, never miss a record.
   */
  async flush(nowMs: number, saveAgeMs = 0): Promise<void> {
    if (!this.store || this.dirty.size === 0) return;
    const out = new Map<string, StoredTail<S>>();
    for (const file of this.dirty) {
      const e = this.entries.get(file);
      const offset = e?.position.cursor.offset ?? 0;
      // A file never saved (no saved offset) is saved at once; each waits its own share of the age
      // (half to all of it, by its name), so files first saved together come due over the window.
      const age = saveAgeMs * (0.5 + (hashOf(file) % 1024) / 2048);
      if (e?.savedOffset !== undefined && saveAgeMs > 0 && nowMs - (e.savedUsedAtMs ?? 0) < age && Math.abs(offset - e.savedOffset) < SAVE_MOVED_BYTES)
        continue;
      this.dirty.delete(file);
      if (!e) continue;
      out.set(file, { cursor: e.position.cursor, state: e.state, usedAtMs: e.usedAtMs });
      e.savedUsedAtMs = e.usedAtMs;
      e.savedOffset = offset;
    }
    for (const [file, e] of this.entries) {
      // Not read for a day: keep it on disk only, so memory follows the live tasks.
      if (nowMs - e.usedAtMs > 86_400_000) this.drop(file, e);
    }
    await this.store.save(out, nowMs, this.entries.size);
  }

  private drop(file: string, e: TailHandle<S>): void {
    e.isDropped = true;
    this.entries.delete(file);
  }

  private diag(d: ObserveDiagnostic): void {
    this.diags.push(d);
    if (this.diags.length > DIAGNOSTICS_MAX) this.diags.shift();
  }

  private async entryFor(file: string): Promise<TailHandle<S> | undefined> {
    const mem = this.entries.get(file);
    if (mem) return mem;
    if (!this.store) return undefined;
    this.stored ??= this.store.load();
    const stored = await this.stored;
    const saved = stored.get(file);
    // From here on the in-memory entry owns this state (it is folded into in place).
    stored.delete(file);
    return (
      saved && {
        file,
        position: positionFromCursor(saved.cursor),
        state: saved.state,
        usedAtMs: saved.usedAtMs,
        savedUsedAtMs: saved.usedAtMs,
        savedOffset: saved.cursor.offset,
      }
    );
  }

  /** The state came from a tail alone and misses context the parser can name. */
  lacksContext(state: S): boolean {
    return this.parser.hasContext !== undefined && !this.parser.hasContext(state);
  }

  private wantsMore(e: TailHandle<S>, want: Level): boolean {
    return this.lacksContext(e.state) && (e.level ?? 0) < want;
  }

  private async readNow(file: string, nowMs: number, want: Level, sizedBytes?: number, coldBytes?: number): Promise<TrackResult<S>> {
    let prev = await this.entryFor(file);
    const parser = this.parser;
    const opts = this.reader.opts;
    const isLazyParser = parser.beginTail !== undefined;
    // The cold-start size of each level: a lazy tail, one sized in records (only between the
    // lazy and the wide size: else that level is skipped), a wide one, the read-back bound.
    const lazy = Math.min(opts.tailBytes, opts.lazyTailBytes);
    const wide = Math.min(opts.tailBytes, opts.maxColdBytes);
    const isSized = isLazyParser && sizedBytes !== undefined && sizedBytes > lazy && sizedBytes < wide;
    // A cold start the caller guessed a size in records for starts at that level (asked for nothing more).
    const isColdSized = isLazyParser && want === 0 && !isSized && coldBytes !== undefined && coldBytes > lazy && coldBytes < wide;
    const sizes = isLazyParser
      ? [lazy, isSized ? Math.ceil(sizedBytes!) : isColdSized ? Math.ceil(coldBytes!) : wide, wide, opts.maxColdBytes]
      : [opts.tailBytes, opts.tailBytes, opts.tailBytes, opts.tailBytes];
    /** The level after `l`: the sized one only when asked for with its size. */
    const next = (l: Level): Level => (l === 0 && !isSized ? 2 : ((l + 1) as Level));
    let level: Level = 0;
    // Widening a tail-only state: start over (its tail is read again, its problems not reported again).
    let reportedFrom: number | undefined;
    if (prev && this.wantsMore(prev, want)) {
      [reportedFrom, level, prev] = [prev.lazyFrom, next(prev.level ?? 0), undefined];
    } else if (!prev && want > 0)
      level = want === 1 && isSized ? 1 : 2; // asked for context at once: no short tail first
    else if (!prev && isColdSized) level = 1;
    else if (prev && this.lacksContext(prev.state)) level = prev.level ?? 0;
    let lazyFrom = prev?.lazyFrom;
    let state = prev?.state ?? parser.empty();
    // Problems of the lines behind the state returned: a wider read parses a tail's lines again.
    let diags: ObserveDiagnostic[] = [];
    const read = (position: TailPosition | undefined) => {
      const isLazy = isLazyParser && level < 3;
      return this.reader.read(
        file,
        position,
        {
          reset: (_reason, cutAt) => {
            state = parser.empty();
            diags = [];
            // A lazy tail is marked so; a read-back to the bound is as much context as a cold start gets.
            if (cutAt !== undefined && isLazy) parser.beginTail?.(state, cutAt);
            lazyFrom = cutAt !== undefined && isLazy ? cutAt : undefined;
          },
          line: (bytes, ref) => {
            const d = parser.lineBytes ? parser.lineBytes(state, bytes, file, ref) : parser.line(state, bytes.toString('utf8'), file, ref);
            if (d) diags.push(d);
          },
          oversize: (ref, bytes) => {
            parser.skipped?.(state);
            const cap = this.reader.opts.maxLineBytes;
            diags.push({
              file,
              line: ref.lineNo,
              offset: ref.offset,
              message: `${describeRef(file, ref)}: line of ${bytes} bytes is over the ${cap}-byte cap; skipped`,
            });
          },
        },
        sizes[level],
      );
    };
    let res = await read(prev?.position);
    // Still lacking what was asked for: the next level, from scratch (a wide tail, where a turn
    // boundary usually is, then once to the bound).
    while (res.ok && this.lacksContext(state) && level < want) {
      level = next(level);
      res = await read(undefined);
    }
    for (const d of diags) if (reportedFrom === undefined || d.offset < reportedFrom) this.diag(d);
    if (!res.ok) {
      // Whatever was folded in before the failure no longer matches a position: start over next time.
      const live = this.entries.get(file);
      if (live) this.drop(file, live);
      return res;
    }
    const changed = !prev || res.position.cursor.offset !== prev.position.cursor.offset || res.reset !== undefined;
    // An unchanged file is saved again only to refresh its use time, which ranks it for pruning.
    const savedUsedAtMs = prev?.savedUsedAtMs ?? 0;
    if (changed || nowMs - savedUsedAtMs > USED_AT_REFRESH_MS) this.dirty.add(file);
    const version = prev && !changed && prev.version !== undefined && prev.size === res.size && prev.mtimeMs === res.mtimeMs ? prev.version : ++this.versions;
    const fresh: TailHandle<S> = {
      file,
      position: res.position,
      state,
      usedAtMs: nowMs,
      checkId: this.checkId,
      statCheckId: this.checkId,
      size: res.size,
      mtimeMs: res.mtimeMs,
      savedUsedAtMs,
      savedOffset: prev?.savedOffset,
      version,
      level,
      note: this.reader.noteOf(file),
      ...(lazyFrom !== undefined ? { lazyFrom } : {}),
    };
    // Updated in place: a handle a caller holds (peekHandle) stays the file's.
    const live = this.entries.get(file);
    const handle = live ? Object.assign(live, { lazyFrom: undefined }, fresh) : fresh;
    if (!live) this.entries.set(file, handle);
    return { ok: true, state, size: res.size, mtimeMs: res.mtimeMs, reset: res.reset, version, handle };
  }
}
