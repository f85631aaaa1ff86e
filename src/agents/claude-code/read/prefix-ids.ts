// The task and agent ids the unread part of a lazily read transcript mentions (the bytes before
// its tail, back to the read-back bound), found by one raw scan per file without parsing: a parent
// read from a tail alone is read back only when its prefix may report the agent asking. The ids
// found are saved (observe/prefix-ids.json) with the positions, so a restart whose saved tail
// starts where it did need not scan again. I/O.
import { promises as fs, statSync } from 'node:fs';
import { PrefixIdsFileSchema } from '../../../contracts/observe-store.js';
import { writeFileAtomic } from '../../../files/atomic-write.js';
import { taskIdsMentioned } from '../parse/records/tasks.js';

interface Scanned {
  from: number;
  dev: number;
  ino: number;
  ids: Set<string>;
}

/** Bytes each chunk reads again of the one before it: more than any id mention is long. */
const OVERLAP = 512;
/**
 * Bytes scanned at a time: each chunk's text is a string V8 allocates in its young generation
 * (below its 128 KB regular-object limit), reused memory. A longer string goes to the large-object
 * space, one fresh mapping and its page faults each: a cold check of 1,000 agents decoded its 50
 * parents' 58 MB in ~200 ms with 256 KB or 1.25 MB chunks, in ~55 with these (docs/performance.md).
 */
export const PREFIX_CHUNK_BYTES = 96 * 1024;
/** Files scanned at once in memory; the oldest is forgotten beyond this. @defaultValue 1024 */
const FILES_MAX = 1024;

export class PrefixIds {
  /** Prefix scans done (for tests and benches). */
  scans = 0;
  private scanned = new Map<string, Scanned>();
  private chunk?: Buffer;
  private loading?: Promise<void>;
  private isDirty = false;

  /**
   * `maxBytes`: how far back a read-back goes (a prefix beyond it is never read). `file`: where
   * scans are saved and loaded from (none: kept in memory only).
   */
  constructor(
    private readonly maxBytes: number,
    private readonly file?: string,
    /** Bytes scanned at a time (tests make it small to cross chunk boundaries). */
    private readonly chunkBytes = PREFIX_CHUNK_BYTES,
  ) {}

  /**
   * True when the bytes of `file` before `from` (within the bound) may name `id`; an unreadable file
   * may. `seen`: the file's device and inode as a read in this check just found them (no stat).
   */
  async mention(file: string, from: number, id: string, seen?: { dev: number; ino: number }): Promise<boolean> {
    const ids = await this.idsOf(file, from, seen);
    return ids === undefined || ids.has(id);
  }

  /** Save the scans done since the last save (one small file, rewritten). */
  async save(): Promise<void> {
    if (!this.file || !this.isDirty) return;
    this.isDirty = false;
    const files: Record<string, { dev: number; ino: number; from: number; ids: string[] }> = {};
    for (const [path, s] of this.scanned) files[path] = { dev: s.dev, ino: s.ino, from: s.from, ids: [...s.ids] };
    await writeFileAtomic(this.file, JSON.stringify({ version: 1, files }) + '\n');
  }

  /** The saved scans, once; a missing or corrupt file is none (each parent is scanned again). */
  private async load(): Promise<void> {
    if (!this.file) return;
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch {
      return;
    }
    let parsed;
    try {
      parsed = PrefixIdsFileSchema.safeParse(JSON.parse(text));
    } catch {
      return;
    }
    if (!parsed.success) return;
    for (const [path, s] of Object.entries(parsed.data.files)) {
      if (this.scanned.size >= FILES_MAX) break;
      if (!this.scanned.has(path)) this.scanned.set(path, { from: s.from, dev: s.dev, ino: s.ino, ids: new Set(s.ids) });
    }
  }

  private async idsOf(file: string, from: number, seen?: { dev: number; ino: number }): Promise<Set<string> | undefined> {
    await (this.loading ??= this.load());
    // The subagents of one parent ask in turn: one scan per parent, and a stat each unless the
    // caller just read the file (a busy wave's changed subagents ask every check, issue 37).
    const pre = seen ?? statSync(file, { throwIfNoEntry: false });
    const had = this.scanned.get(file);
    if (pre && had && had.from === from && had.ino === pre.ino && had.dev === pre.dev) return had.ids;
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, 'r');
    } catch {
      return undefined;
    }
    try {
      const st = await handle.stat();
      this.scans++;
      // Scanned in chunks, each reading again the last OVERLAP bytes of the one before it (a
      // mention across two chunks is whole in the second): never a whole prefix in memory, and
      // each chunk's text one decode of the buffer, never joined to a carried piece (one more copy).
      // The line cut at `from` was not parsed either: scanned to its end.
      const ids = new Set<string>();
      const chunk = (this.chunk ??= Buffer.allocUnsafe(this.chunkBytes));
      for (let at = Math.max(0, st.size - this.maxBytes); ; ) {
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, at);
        if (bytesRead === 0) break;
        let n = bytesRead;
        let isDone = false;
        if (at + bytesRead > from) {
          // This chunk reaches the tail: stop at the end of the cut line.
          const nl = chunk.subarray(0, bytesRead).indexOf(0x0a, Math.max(0, from - at));
          if (nl >= 0) [n, isDone] = [nl, true];
        }
        for (const id of taskIdsMentioned(chunk.toString('latin1', 0, n))) ids.add(id);
        // A short read is the file's end (or a file cut meanwhile): nothing more to scan.
        if (isDone || bytesRead <= OVERLAP || bytesRead < chunk.length) break;
        at += bytesRead - OVERLAP;
      }
      this.scanned.delete(file);
      if (this.scanned.size >= FILES_MAX) this.scanned.delete(this.scanned.keys().next().value!);
      this.scanned.set(file, { from, dev: st.dev, ino: st.ino, ids });
      this.isDirty = true;
      return ids;
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  }
}
