// Persists tail positions and parser states across watchdog restarts, in one small JSON file
// per kind under `<stateDir>/observe/` (e.g. transcripts.json), written atomically. Bounded:
// at most `maxEntries`, least recently used first out, and nothing unused for `retainMs`.
import { promises as fs } from 'node:fs';
import { writeFileAtomic } from '../../journal/atomic-write.js';
import type { TailCursor } from './tail-file.js';

/** One file's saved position and what was parsed up to it. */
export interface StoredTail<S> {
  cursor: TailCursor;
  state: S;
  usedAtMs: number;
}

export interface TailStoreOptions {
  /** Files remembered at most. @defaultValue 128 */
  maxEntries: number;
  /** Forget a file not read for this long, in ms. @defaultValue 604800000 (7 days) */
  retainMs: number;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function isCursor(v: unknown): v is TailCursor {
  if (v === null || typeof v !== 'object') return false;
  const c = v as Record<string, unknown>;
  return isNum(c.dev) && isNum(c.ino) && isNum(c.offset) && c.offset >= 0 && isNum(c.size) && isNum(c.mtimeMs);
}

/** The JSON file of one tracker; `isState` rejects a state from an older or foreign format. */
export class TailStore<S> {
  readonly opts: TailStoreOptions;
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
    let raw: unknown;
    try {
      raw = JSON.parse(await fs.readFile(this.file, 'utf8'));
    } catch {
      return out;
    }
    if (raw === null || typeof raw !== 'object') return out;
    const { version, entries } = raw as { version?: unknown; entries?: unknown };
    if (version !== 1 || entries === null || typeof entries !== 'object') return out;
    for (const [path, e] of Object.entries(entries as Record<string, unknown>)) {
      const v = e as Partial<StoredTail<S>> | null;
      if (v && isCursor(v.cursor) && this.isState(v.state) && isNum(v.usedAtMs)) out.set(path, { cursor: v.cursor, state: v.state, usedAtMs: v.usedAtMs });
    }
    return out;
  }

  /** Write `ours` merged over what another process may have saved meanwhile, pruned. */
  async save(ours: Map<string, StoredTail<S>>, nowMs: number): Promise<void> {
    const merged = await this.load();
    for (const [path, e] of ours) {
      const theirs = merged.get(path);
      if (!theirs || theirs.usedAtMs <= e.usedAtMs) merged.set(path, e);
    }
    const kept = [...merged.entries()]
      .filter(([, e]) => nowMs - e.usedAtMs <= this.opts.retainMs)
      .sort((a, b) => b[1].usedAtMs - a[1].usedAtMs)
      .slice(0, this.opts.maxEntries);
    await writeFileAtomic(this.file, JSON.stringify({ version: 1, entries: Object.fromEntries(kept) }));
  }
}
