// Framing a day file of the dispatch log into lines, and the half of a first start that a
// worker thread can take (log-scan-worker.ts): scanning day files for the lines one epic's
// history needs, while the main thread folds the days before them. A first start over a long
// log (1,000,000 events) is mostly this scan; two cores scan it in a little over half the time.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { DispatchEvent } from '../contracts/events.js';
import { parseLogLine } from './dispatch-log.js';
import { CROSS_REF, LinePrefilter, SKIP } from './log-prefilter.js';

const READ_CHUNK = 4 * 1024 * 1024;

/** Only spaces, tabs, vertical tabs and form feeds (what trim() removes, in ASCII). */
function isBlank(buf: Buffer, s: number, e: number): boolean {
  for (let i = s; i < e; i++) {
    const b = buf[i]!;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0b && b !== 0x0c) return false;
  }
  return true;
}

/**
 * Hand each complete line of `file` from byte `offset` (a line start; `linesBefore` lines precede
 * it) to `take` as bytes [s, e) of a buffer, with its file offset and line number, as a whole read
 * splits them: lines end at "\n", "\r\n" or a lone "\r", as readline splits them; a torn last line
 * (no newline yet) is left for a later read. Lines are never decoded here: `take` decides which
 * are worth it (most of a long log is other epics' lines nobody here folds).
 */
async function foldFile(
  file: string,
  offset: number,
  linesBefore: number,
  take: (buf: Buffer, s: number, e: number, at: number, lineNo: number) => void,
): Promise<{ dev: number; ino: number; size: number; lines: number; bytesRead: number }> {
  const h = await fs.open(file, 'r');
  let pending: Promise<{ bytesRead: number }> | undefined;
  try {
    const st = await h.stat();
    let lineNo = linesBefore;
    let pos = offset;
    let done = offset;
    let carry = Buffer.alloc(0);
    // Two buffers: the next chunk is read in libuv's pool while this one is scanned, so a first
    // start over a long log waits for the disk (or the page cache's copy) only for its first chunk.
    const bufs = [Buffer.allocUnsafe(READ_CHUNK), Buffer.allocUnsafe(READ_CHUNK)] as const;
    const readInto = (i: 0 | 1, at: number) => h.read(bufs[i], 0, Math.min(READ_CHUNK, st.size - at), at);
    let which: 0 | 1 = 0;
    pending = pos < st.size ? readInto(which, pos) : undefined;
    while (pending) {
      const { bytesRead } = await pending;
      pending = undefined;
      if (bytesRead === 0) break;
      const buf = bufs[which];
      const base = pos - carry.length;
      pos += bytesRead;
      which = which === 0 ? 1 : 0;
      if (pos < st.size) pending = readInto(which, pos);
      const chunk = carry.length > 0 ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      const end = chunk.lastIndexOf(0x0a);
      if (end < 0) {
        carry = Buffer.from(chunk);
        continue;
      }
      let cr = chunk.indexOf(0x0d);
      for (let s = 0; s <= end; ) {
        const nl = chunk.indexOf(0x0a, s);
        const le = nl > s && chunk[nl - 1] === 0x0d ? nl - 1 : nl;
        if (cr !== -1 && cr < s) cr = chunk.indexOf(0x0d, s);
        let ls = s;
        while (cr !== -1 && cr < le) {
          take(chunk, ls, cr, base + ls, ++lineNo);
          ls = cr + 1;
          cr = chunk.indexOf(0x0d, ls);
        }
        take(chunk, ls, le, base + ls, ++lineNo);
        s = nl + 1;
      }
      carry = Buffer.from(chunk.subarray(end + 1));
      done = pos - carry.length;
    }
    return { dev: st.dev, ino: st.ino, size: done, lines: lineNo, bytesRead: pos - offset };
  } finally {
    // A read still in flight (a line's handler threw) ends before its handle closes.
    await pending?.catch(() => undefined);
    await h.close();
  }
}

/** What a scan kept of one line: a line to parse, or another epic's stall or redispatch (a reference). */
export const LINE = 0;
export const REF_STALL = 1;
export const REF_REDISPATCH = 2;

/**
 * A kept line as the fold takes it: its event, or why it is left out (a diagnostic's message;
 * null: left out silently, as a blank line or another tool's event is).
 */
export type ParsedLine = DispatchEvent | string | null;

export function parseKeptLine(text: string): ParsedLine {
  if (text.trim() === '') return null;
  const r = parseLogLine(text);
  return r.ok ? r.event : (r.message ?? null);
}

/**
 * One day file as scanned: its cover (device, inode, bytes and lines read whole) and, in order,
 * every line the fold needs: `kinds[i]` is LINE (`parsed[i]` the line parsed, `lineNos[i]` its
 * number) or REF_STALL / REF_REDISPATCH (`texts[i]` the ticket); `ats[i]` and `lens[i]` its
 * bytes. Blank lines and the lines the prefilter skips are not kept. Plain arrays and objects:
 * posted from the worker, which parses this epic's lines too (the main thread only folds them).
 */
export interface ScannedFile {
  name: string;
  dev: number;
  ino: number;
  size: number;
  lines: number;
  bytesRead: number;
  kinds: number[];
  texts: string[];
  parsed: ParsedLine[];
  ats: number[];
  lens: number[];
  lineNos: number[];
}

/**
 * Hand each line of `file` from `offset` that start-up keeps to `keep`: LINE with the line's text,
 * or REF_STALL / REF_REDISPATCH with another epic's ticket, its bytes and line number. Blank lines
 * and the lines the prefilter skips are not handed over. Both threads of a first start read
 * their days through this.
 */
export function foldKeptLines(
  file: string,
  offset: number,
  linesBefore: number,
  prefilter: LinePrefilter,
  keep: (kind: number, text: string, at: number, len: number, lineNo: number) => void,
): ReturnType<typeof foldFile> {
  return foldFile(file, offset, linesBefore, (buf, s, e, at, lineNo) => {
    if (isBlank(buf, s, e)) return;
    const kind = prefilter.classify(buf, s, e);
    if (kind === SKIP) return;
    if (kind === CROSS_REF)
      keep(prefilter.isStall ? REF_STALL : REF_REDISPATCH, buf.toString('utf8', prefilter.ticketStart, prefilter.ticketEnd), at, e - s, lineNo);
    else keep(LINE, buf.toString('utf8', s, e), at, e - s, lineNo);
  });
}

/** Scan whole day files `names` of `dir` for `epicId`, as start-up's fold would read them, handing each to `onFile` as soon as it is scanned. */
export async function scanDayFiles(dir: string, names: readonly string[], epicId: string, onFile: (f: ScannedFile) => void): Promise<void> {
  const prefilter = new LinePrefilter(epicId);
  for (const name of names) {
    const kinds: number[] = [];
    const texts: string[] = [];
    const parsed: ParsedLine[] = [];
    const ats: number[] = [];
    const lens: number[] = [];
    const lineNos: number[] = [];
    const r = await foldKeptLines(path.join(dir, name), 0, 0, prefilter, (kind, text, at, len, lineNo) => {
      kinds.push(kind);
      texts.push(kind === LINE ? '' : text);
      parsed.push(kind === LINE ? parseKeptLine(text) : null);
      ats.push(at);
      lens.push(len);
      lineNos.push(lineNo);
    });
    onFile({ name, ...r, kinds, texts, parsed, ats, lens, lineNos });
  }
}
