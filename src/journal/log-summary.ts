// Start-up that does not grow with history (DESIGN §12): the fold of the dispatch log for one
// epic is kept in observe/history/<epic>.json together with how much of each day file it covers
// (device, inode, bytes, lines). A start reads the summary, then only what follows it: the rest
// of the last covered day and the days after. The summary is stale, and rebuilt from every day
// file, when a covered file vanished, was replaced or shrank, an earlier-covered file grew (its
// new lines would fold out of order), or an uncovered day sorts before the last covered one.
// A stopping watchdog, the appender of its epic's lines, brings the summary to the log's end
// (refreshSummary). The NDJSON files stay the source of truth and are never written here.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { HISTORY_SUMMARY_VERSION, HistorySummarySchema, type HistorySummary } from '../contracts/history-summary.js';
import { emptyHistory, foldEvent, type History } from '../core/history.js';
import { historyFromJson, historyToJson } from '../core/history-summary.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { parseLogLine, type LogDiagnostic } from './dispatch-log.js';
import type { StatePaths } from '../files/paths.js';
import { LinePrefilter, CROSS_REF, SKIP } from './log-prefilter.js';
import { StallRefMap, tagLine } from './ticket-refs.js';
import { RedispatchRefs } from './redispatch-refs.js';

/** Corrupt lines remembered by name (the rest are counted); start-up prints the first five. */
const DIAGNOSTICS_KEPT = 20;
/** Rewrite the summary when a start read at least this much past it. */
const REFRESH_BYTES = 1024 * 1024;
/** A stopping watchdog brings the summary to the log's end when the log grew at least this much during its run. */
const REFRESH_AT_STOP_BYTES = 256 * 1024;
const READ_CHUNK = 4 * 1024 * 1024;
const DAY_FILE = /^\d{4}-\d{2}-\d{2}\.ndjson$/;

export interface LoadedHistory {
  history: History;
  /** The first corrupt lines of the whole log, oldest first. */
  diagnostics: LogDiagnostic[];
  /** All corrupt lines of the whole log. */
  diagnosticCount: number;
  /** How start-up went: from the summary or rebuilt, and the log bytes read. */
  stats: { from: 'summary' | 'rebuilt' | 'empty'; bytesRead: number; summaryWritten: boolean; logBytes: number };
}

type Covered = HistorySummary['covers'][number];

/**
 * The history of `epicId` folded from the whole dispatch log, reading only what the summary
 * does not cover. `isWritable`: refresh the summary when it was missing, stale or far behind.
 */
export async function loadHistory(paths: StatePaths, epicId: string, opts: { isWritable: boolean; isRefresh?: boolean }): Promise<LoadedHistory> {
  const dir = paths.dispatchLogDir();
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => DAY_FILE.test(n)).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    names = [];
  }
  const summaryFile = paths.historySummary(epicId);
  const summary = await readSummary(summaryFile, epicId);
  const start = summary && (await resumePoint(dir, names, summary));

  const covers: Covered[] = start ? summary!.covers.slice(0, -1) : [];
  // The day files by cover index, the one being folded included: a stall is kept as a reference into them.
  const coverNames = start ? summary!.covers.map((c) => c.name) : [];
  const namesOf = () => coverNames;
  let redispatches = new RedispatchRefs(dir, namesOf);
  const lazy = {
    stalls: (j?: HistorySummary['history']) => new StallRefMap(dir, namesOf, j?.stalls, j?.stall_events),
    redispatch: (j: HistorySummary['history']) => {
      redispatches = new RedispatchRefs(dir, namesOf, j.redispatches);
      return { redispatchCount: redispatches.count, lastRecoveryMode: redispatches.mode };
    },
  };
  const history = start ? historyFromJson(summary!.history, lazy) : { ...emptyHistory(), stalls: lazy.stalls(), redispatchCount: redispatches.count, lastRecoveryMode: redispatches.mode };
  const stalls = history.stalls as StallRefMap;
  const diagnostics: LogDiagnostic[] = start ? summary!.diagnostics.first.slice() : [];
  let diagnosticCount = start ? summary!.diagnostics.count : 0;
  const prefilter = new LinePrefilter(epicId);
  let bytesRead = 0;
  for (const name of start ? names.slice(start.index) : names) {
    const file = path.join(dir, name);
    const from = start && name === start.resume.name ? start.resume : undefined;
    const index = covers.length;
    coverNames[index] = name;
    const r = await foldFile(file, from?.size ?? 0, from?.lines ?? 0, (buf, s, e, at, lineNo) => {
      if (isBlank(buf, s, e)) return;
      const kind = prefilter.classify(buf, s, e);
      if (kind === SKIP) return;
      // Another epic's stall or redispatch only feeds its ticket's totals (foldEvent's one effect of it): kept by reference, checked when read back.
      if (kind === CROSS_REF) {
        const ticket = buf.toString('utf8', prefilter.ticketStart, prefilter.ticketEnd);
        if (prefilter.isStall) stalls.addRef(ticket, index, at, e - s);
        else redispatches.add(ticket, index, at, e - s);
        return;
      }
      const line = buf.toString('utf8', s, e);
      if (line.trim() === '') return;
      const parsed = parseLogLine(line);
      if (!parsed.ok) {
        if (!parsed.message) return;
        diagnosticCount++;
        if (diagnostics.length < DIAGNOSTICS_KEPT) diagnostics.push({ file, line: lineNo, message: parsed.message });
        return;
      }
      const ev = parsed.event;
      if (ev.event === 'stall_detected') tagLine(ev, [index, at, e - s]);
      foldEvent(history, ev, epicId);
    });
    bytesRead += r.bytesRead;
    covers.push({ name, dev: r.dev, ino: r.ino, size: r.size, lines: r.lines });
  }
  let summaryWritten = false;
  const logBytes = covers.reduce((n, c) => n + c.size, 0);
  // A refresh writes once the summary would cover more (a torn last line read again does not count).
  const isBehind = opts.isRefresh ? logBytes > (summary?.covers.reduce((n, c) => n + c.size, 0) ?? 0) : bytesRead >= REFRESH_BYTES;
  if (opts.isWritable && (!start || isBehind) && covers.length > 0) {
    const body: HistorySummary = {
      version: HISTORY_SUMMARY_VERSION,
      epic_id: epicId,
      covers,
      diagnostics: { count: diagnosticCount, first: diagnostics },
      history: historyToJson(history, { redispatch: () => redispatches.raw() }),
    };
    try {
      await writeFileAtomic(summaryFile, JSON.stringify(body));
      summaryWritten = true;
    } catch {
      // Derived data: a summary we cannot write costs the next start time, never correctness.
    }
  }
  return { history, diagnostics, diagnosticCount, stats: { from: start ? 'summary' : names.length > 0 ? 'rebuilt' : 'empty', bytesRead, summaryWritten, logBytes } };
}

/**
 * Bring the summary up to the log's end: what the appender (a watchdog, at its stop) does so that
 * the next start reads only what was appended after. `sinceBytes`: the log's size when it started;
 * nothing is done when it grew less than REFRESH_AT_STOP_BYTES (a short run such as one `next`:
 * the next start reads that faster than a rewrite here). Written only from what was read back
 * whole from the day files (a torn last line is left for later), so a crash at any point never
 * leaves a summary claiming more than the log holds. True when written.
 */
export async function refreshSummary(paths: StatePaths, epicId: string, sinceBytes?: number): Promise<boolean> {
  try {
    if (sinceBytes !== undefined && (await logBytes(paths.dispatchLogDir())) - sinceBytes < REFRESH_AT_STOP_BYTES) return false;
    return (await loadHistory(paths, epicId, { isWritable: true, isRefresh: true })).stats.summaryWritten;
  } catch {
    return false; // derived data: the next start catches up from the summary's recorded offsets
  }
}

/** The bytes of every day file now. */
async function logBytes(dir: string): Promise<number> {
  let total = 0;
  for (const n of (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => DAY_FILE.test(f))) total += (await fs.stat(path.join(dir, n)).catch(() => undefined))?.size ?? 0;
  return total;
}

/** The summary, if it is ours, whole and of this version; anything else is rebuilt. */
async function readSummary(file: string, epicId: string): Promise<HistorySummary | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = HistorySummarySchema.safeParse(json);
  return r.success && r.data.epic_id === epicId && r.data.covers.length > 0 ? r.data : undefined;
}

/** Where to resume folding, or undefined when the summary no longer describes a prefix of the log. */
async function resumePoint(dir: string, names: string[], s: HistorySummary): Promise<{ index: number; resume: Covered } | undefined> {
  const last = s.covers[s.covers.length - 1]!;
  // Every day up to the last covered one must be exactly the covered set, in order.
  const upTo = names.filter((n) => n <= last.name);
  if (upTo.length !== s.covers.length || upTo.some((n, i) => n !== s.covers[i]!.name)) return undefined;
  for (const c of s.covers) {
    const st = await fs.stat(path.join(dir, c.name)).catch(() => undefined);
    if (!st || st.dev !== c.dev || st.ino !== c.ino) return undefined;
    if (c === last ? st.size < c.size : st.size !== c.size) return undefined;
  }
  return { index: upTo.length - 1, resume: last };
}

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
