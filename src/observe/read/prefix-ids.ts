// The task and agent ids the unread part of a lazily read transcript mentions (the bytes before
// its tail, back to the read-back bound), found by one raw scan per file without parsing: a parent
// read from a tail alone is read back only when its prefix may report the agent asking. I/O.
import { promises as fs, statSync } from 'node:fs';
import { taskIdsMentioned } from '../parse/parse-transcript-record.js';

interface Scanned {
  from: number;
  ino: number;
  ids: Set<string>;
}

/** Characters kept from one chunk for the next: longer than any id mention. */
const OVERLAP = 512;
/** Files scanned at once in memory; the oldest is forgotten beyond this. @defaultValue 1024 */
const FILES_MAX = 1024;

export class PrefixIds {
  private scanned = new Map<string, Scanned>();
  private chunk = Buffer.allocUnsafe(256 * 1024);

  /** `maxBytes`: how far back a read-back goes (a prefix beyond it is never read). */
  constructor(private readonly maxBytes: number) {}

  /** True when the bytes of `file` before `from` (within the bound) may name `id`; an unreadable file may. */
  async mention(file: string, from: number, id: string): Promise<boolean> {
    const ids = await this.idsOf(file, from);
    return ids === undefined || ids.has(id);
  }

  private async idsOf(file: string, from: number): Promise<Set<string> | undefined> {
    // The subagents of one parent ask in turn: one stat each, one scan per parent.
    const pre = statSync(file, { throwIfNoEntry: false });
    const had = this.scanned.get(file);
    if (pre && had && had.from === from && had.ino === pre.ino) return had.ids;
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, 'r');
    } catch {
      return undefined;
    }
    try {
      const st = await handle.stat();
      // Scanned in chunks that overlap by more than any match is long: small buffers and strings,
      // never a whole prefix in memory. The line cut at `from` was not parsed either: scanned to its end.
      const ids = new Set<string>();
      let carry = '';
      for (let at = Math.max(0, st.size - this.maxBytes); ; ) {
        const { bytesRead } = await handle.read(this.chunk, 0, this.chunk.length, at);
        if (bytesRead === 0) break;
        let n = bytesRead;
        let isDone = false;
        if (at + bytesRead > from) {
          // This chunk reaches the tail: stop at the end of the cut line.
          const nl = this.chunk.subarray(0, bytesRead).indexOf(0x0a, Math.max(0, from - at));
          if (nl >= 0) [n, isDone] = [nl, true];
        }
        const text = carry + this.chunk.toString('latin1', 0, n);
        for (const id of taskIdsMentioned(text)) ids.add(id);
        if (isDone) break;
        carry = text.slice(-OVERLAP);
        at += bytesRead;
      }
      if (this.scanned.size >= FILES_MAX) this.scanned.delete(this.scanned.keys().next().value!);
      this.scanned.set(file, { from, ino: st.ino, ids });
      return ids;
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  }
}
