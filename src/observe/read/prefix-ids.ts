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

/** Files scanned at once in memory; the oldest is forgotten beyond this. @defaultValue 1024 */
const FILES_MAX = 1024;

export class PrefixIds {
  private scanned = new Map<string, Scanned>();

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
      const start = Math.max(0, st.size - this.maxBytes);
      const buf = Buffer.allocUnsafe(Math.max(0, from - start));
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await handle.read(buf, got, buf.length - got, start + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      let text = buf.toString('latin1', 0, got);
      // The line cut at `from` was not parsed either: scan it to its end.
      const chunk = Buffer.allocUnsafe(64 * 1024);
      for (let at = from; at < st.size; ) {
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, at);
        if (bytesRead === 0) break;
        const nl = chunk.subarray(0, bytesRead).indexOf(0x0a);
        text += chunk.toString('latin1', 0, nl < 0 ? bytesRead : nl);
        if (nl >= 0) break;
        at += bytesRead;
      }
      const ids = taskIdsMentioned(text);
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
