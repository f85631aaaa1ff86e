// Persists tail positions and parser states across watchdog restarts, one file per kind under
// `<stateDir>/observe/` (e.g. transcripts.json). Saved incrementally: the file is a header line
// then one line per saved entry, and a save appends only the entries that changed (one write,
// costing those entries, not the file's);
// the last line for a file wins. The file is rewritten (temp + rename) only to compact it: when
// it holds much more than its live entries, or an entry is due to be pruned. Bounded: at most
// `maxEntries` (or as many as the caller says are live, whichever is more), least recently used
// first out, and nothing unused for `retainMs`. Derived data: a torn or corrupt line costs one
// cold read of that file, never correctness.
import { promises as fs } from 'node:fs';
import { STORE_HEADER, TailCursorSchema } from '../../contracts/observe-store.js';
import { appendLines, writeFileAtomic } from '../../files/atomic-write.js';
import type { TailCursor } from './tail-file.js';

/** One file's saved position and what was parsed up to it. */
export interface StoredTail<S> {
  cursor: TailCursor;
  state: S;
  usedAtMs: number;
}

export interface TailStoreOptions {
  /** Files remembered at least (more when more are live). @defaultValue 128 */
  maxEntries: number;
  /** Forget a file not read for this long, in ms. @defaultValue 604800000 (7 days) */
  retainMs: number;
}

const HEADER = JSON.stringify(STORE_HEADER);
/** Compact when the file is this many times the size of its live lines (plus some slack). */
const COMPACT_FACTOR = 4;
const COMPACT_SLACK_BYTES = 64 * 1024;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isCursor = (v: unknown): v is TailCursor => TailCursorSchema.safeParse(v).success;

/**
 * What this process knows is in the file: entry sizes and use times, the file's length, and two
 * running figures so a save need not visit every entry: the bytes of the live (last) lines, and
 * a lower bound on the oldest use time (an update only ever raises the true oldest).
 */
interface DiskModel {
  bytes: number;
  entries: Map<string, { usedAtMs: number; bytes: number }>;
  liveBytes: number;
  oldestMs: number;
}

function newModel(bytes: number): DiskModel {
  return { bytes, entries: new Map(), liveBytes: 0, oldestMs: Infinity };
}

/** Record one live line in `disk` (a path's earlier line, if any, is no longer live). */
function setLive(disk: DiskModel, path: string, usedAtMs: number, bytes: number): void {
  disk.liveBytes += bytes - (disk.entries.get(path)?.bytes ?? 0);
  disk.entries.set(path, { usedAtMs, bytes });
  if (usedAtMs < disk.oldestMs) disk.oldestMs = usedAtMs;
}

/** The file of one tracker; `isState` rejects a state from an older or foreign format. */
export class TailStore<S> {
  readonly opts: TailStoreOptions;
  /** Whole-file rewrites done (for tests and benches). */
  compactions = 0;
  private disk?: DiskModel;

  constructor(
    readonly file: string,
    private readonly isState: (v: unknown) => v is S,
    opts: Partial<TailStoreOptions> = {},
  ) {
    this.opts = { maxEntries: 128, retainMs: 7 * 86_400_000, ...opts };
  }

  /** Every valid entry in the file; a missing or corrupt file is an empty store (we cold-start). */
  async load(): Promise<Map<string, StoredTail<S>>> {
    const out = new Map<string, StoredTail<S>>();
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch {
      this.disk = undefined;
      return out;
    }
    const lines = text.split('\n');
    const first = parseJson(lines[0] ?? '') as { version?: unknown; entries?: unknown } | undefined;
    this.disk = undefined;
    if (first?.version === 1 && first.entries !== null && typeof first.entries === 'object') {
      // The version-1 file: one JSON object; rewritten as version 2 on the next save.
      for (const [path, e] of Object.entries(first.entries as Record<string, unknown>)) this.take(out, path, e);
      return out;
    }
    if (lines[0] !== HEADER) return out;
    const disk = newModel(Buffer.byteLength(text));
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (line === '') continue;
      const v = parseJson(line) as ({ path?: unknown } & Partial<StoredTail<S>>) | undefined;
      if (typeof v?.path !== 'string') continue;
      const e = this.take(out, v.path, v);
      if (e) setLive(disk, v.path, e.usedAtMs, Buffer.byteLength(line) + 1);
    }
    // A torn last line (a crash mid-append): rewrite before appending again.
    if (text.endsWith('\n')) this.disk = disk;
    return out;
  }

  /**
   * Save `ours` (the entries that changed): appended as whole lines, or merged over what is on
   * disk (another process may have saved meanwhile) and rewritten when the file needs compacting.
   * `liveCount`: how many files the caller is watching now; never pruned below that. An append
   * costs the entries saved, not the entries on disk (the model is updated in place, after the
   * write succeeded); only a compaction visits them all.
   */
  async save(ours: Map<string, StoredTail<S>>, nowMs: number, liveCount = 0): Promise<void> {
    if (ours.size === 0) return;
    const limit = Math.max(this.opts.maxEntries, liveCount);
    const disk = this.disk;
    // Nothing on disk to append to (a first save, a torn file): written whole, each line as it goes.
    if (!disk) return this.compact(ours, nowMs, limit);
    // What the file would hold after the append, by the sizes these files' lines had last time (a
    // new one's: the mean): the lines are made only as they are written, never all at once.
    const mean = disk.entries.size > 0 ? disk.liveBytes / disk.entries.size : 0;
    let bytes = disk.bytes;
    let live = disk.liveBytes;
    let size = disk.entries.size;
    for (const path of ours.keys()) {
      const had = disk.entries.get(path);
      const n = had?.bytes ?? mean;
      bytes += n;
      if (!had) {
        size++;
        live += n;
      }
    }
    const isDue = size > limit || (nowMs - disk.oldestMs > this.opts.retainMs && this.isPruneDue(disk, ours, nowMs));
    if (isDue || bytes > COMPACT_FACTOR * live + COMPACT_SLACK_BYTES) return this.compact(ours, nowMs, limit);
    const sizes: number[] = [];
    function* lines(): Generator<string> {
      for (const [path, e] of ours) {
        const line = JSON.stringify({ path, ...e });
        sizes.push(Buffer.byteLength(line) + 1);
        yield line;
      }
    }
    await appendLines(this.file, lines(), { sync: false, isChunked: true });
    // The model, from the sizes written.
    let i = 0;
    for (const [path, e] of ours) {
      const n = sizes[i++]!;
      disk.bytes += n;
      const had = disk.entries.get(path);
      if (!had || had.usedAtMs <= e.usedAtMs) setLive(disk, path, e.usedAtMs, n);
    }
  }

  /**
   * Whether an entry would be past `retainMs` after saving `ours` (the whole index, visited only
   * when the lower bound on the oldest use time says one may be). Tightens that bound on the way,
   * so the next visit waits until time passes the true oldest.
   */
  private isPruneDue(disk: DiskModel, ours: Map<string, StoredTail<S>>, nowMs: number): boolean {
    let oldest = Infinity;
    for (const [path, e] of disk.entries) {
      const mine = ours.get(path);
      const usedAtMs = mine && mine.usedAtMs >= e.usedAtMs ? mine.usedAtMs : e.usedAtMs;
      if (usedAtMs < oldest) oldest = usedAtMs;
    }
    for (const [path, e] of ours) if (!disk.entries.has(path) && e.usedAtMs < oldest) oldest = e.usedAtMs;
    if (nowMs - oldest > this.opts.retainMs) return true;
    let current = Infinity;
    for (const e of disk.entries.values()) if (e.usedAtMs < current) current = e.usedAtMs;
    disk.oldestMs = current;
    return false;
  }

  /**
   * Rewrite the file with `ours` merged over what is on disk, pruned. `oursLines`: their lines,
   * in order, when save() made them already; else each line is made as it is written (the lines
   * of 10,000 agents' positions are never all in memory at once).
   */
  private async compact(ours: Map<string, StoredTail<S>>, nowMs: number, limit: number, oursLines?: readonly string[]): Promise<void> {
    this.compactions++;
    const merged = await this.load();
    const lineOf = new Map<StoredTail<S>, string>();
    let i = 0;
    for (const [path, e] of ours) {
      if (oursLines) lineOf.set(e, oursLines[i++]!);
      const theirs = merged.get(path);
      if (!theirs || theirs.usedAtMs <= e.usedAtMs) merged.set(path, e);
    }
    const kept = [...merged.entries()]
      .filter(([, e]) => nowMs - e.usedAtMs <= this.opts.retainMs)
      .sort((a, b) => b[1].usedAtMs - a[1].usedAtMs)
      .slice(0, limit);
    const disk = newModel(HEADER.length + 1);
    function* lines(): Generator<string> {
      yield HEADER;
      for (const [path, e] of kept) {
        const line = lineOf.get(e) ?? JSON.stringify({ path, ...e });
        const n = Buffer.byteLength(line) + 1;
        disk.bytes += n;
        setLive(disk, path, e.usedAtMs, n);
        yield line;
      }
    }
    await writeFileAtomic(this.file, { lines: lines() });
    this.disk = disk;
  }

  /** Validate one stored entry into `out` (a later one of the same file wins unless older). */
  private take(out: Map<string, StoredTail<S>>, path: string, e: unknown): StoredTail<S> | undefined {
    const v = e as Partial<StoredTail<S>> | null;
    if (!v || !isCursor(v.cursor) || !this.isState(v.state) || !isNum(v.usedAtMs)) return undefined;
    const had = out.get(path);
    if (had && had.usedAtMs > v.usedAtMs) return had;
    const entry = { cursor: v.cursor, state: v.state, usedAtMs: v.usedAtMs };
    out.set(path, entry);
    return entry;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
