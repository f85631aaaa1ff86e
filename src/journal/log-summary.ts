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
import type { LogDiagnostic } from './dispatch-log.js';
import type { StatePaths } from '../files/paths.js';
import { LinePrefilter } from './log-prefilter.js';
import { foldKeptLines, LINE, parseKeptLine, REF_STALL, type ParsedLine, type ScannedFile } from './log-scan.js';
import { defaultScanWorker, PARALLEL_MIN_BYTES, splitForWorker, startScan } from './log-scan-start.js';
import { StallRefMap, tagLine } from './ticket-refs.js';
import { RedispatchRefs } from './redispatch-refs.js';

/** Corrupt lines remembered by name (the rest are counted); start-up prints the first five. */
const DIAGNOSTICS_KEPT = 20;
/** Rewrite the summary when a start read at least this much past it. */
const REFRESH_BYTES = 1024 * 1024;
/** A stopping watchdog brings the summary to the log's end when the log grew at least this much during its run. */
const REFRESH_AT_STOP_BYTES = 256 * 1024;
const DAY_FILE = /^\d{4}-\d{2}-\d{2}\.ndjson$/;

export interface LoadedHistory {
  history: History;
  /** The first corrupt lines of the whole log, oldest first. */
  diagnostics: LogDiagnostic[];
  /** All corrupt lines of the whole log. */
  diagnosticCount: number;
  /** How start-up went: from the summary or rebuilt, and the log bytes read. */
  stats: {
    from: 'summary' | 'rebuilt' | 'empty';
    bytesRead: number;
    summaryWritten: boolean;
    logBytes: number /** Days a worker thread scanned. */;
    workerDays: number;
  };
}

type Covered = HistorySummary['covers'][number];

export interface LoadOptions {
  isWritable: boolean;
  isRefresh?: boolean;
  /** The scan worker's file (log-scan-start.ts), or null for none. @defaultValue the one beside this module, when there is one */
  scanWorker?: URL | null;
  /** Days from their start worth a worker when they hold at least this many bytes. @defaultValue PARALLEL_MIN_BYTES */
  parallelMinBytes?: number;
}

/**
 * The history of `epicId` folded from the whole dispatch log, reading only what the summary
 * does not cover. `isWritable`: refresh the summary when it was missing, stale or far behind.
 */
export async function loadHistory(paths: StatePaths, epicId: string, opts: LoadOptions): Promise<LoadedHistory> {
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
  const history = start
    ? historyFromJson(summary!.history, lazy)
    : { ...emptyHistory(), stalls: lazy.stalls(), redispatchCount: redispatches.count, lastRecoveryMode: redispatches.mode };
  const stalls = history.stalls as StallRefMap;
  const diagnostics: LogDiagnostic[] = start ? summary!.diagnostics.first.slice() : [];
  let diagnosticCount = start ? summary!.diagnostics.count : 0;
  const prefilter = new LinePrefilter(epicId);
  let bytesRead = 0;
  /** Another epic's stall or redispatch only feeds its ticket's totals (foldEvent's one effect of it): kept by reference, checked when read back. */
  const takeRef = (isStall: boolean, ticket: string, index: number, at: number, len: number) => {
    if (isStall) stalls.addRef(ticket, index, at, len);
    else redispatches.add(ticket, index, at, len);
  };
  /** One line of this epic's (or one the prefilter could not vouch for) of day `index`, parsed here or by the worker. */
  const foldParsed = (ev: ParsedLine, file: string, lineNo: number, index: number, at: number, len: number) => {
    if (ev === null) return;
    if (typeof ev === 'string') {
      diagnosticCount++;
      if (diagnostics.length < DIAGNOSTICS_KEPT) diagnostics.push({ file, line: lineNo, message: ev });
      return;
    }
    if (ev.event === 'stall_detected') tagLine(ev, [index, at, len]);
    foldEvent(history, ev, epicId);
  };
  const foldDay = async (name: string) => {
    const file = path.join(dir, name);
    const from = start && name === start.resume.name ? start.resume : undefined;
    const index = covers.length;
    coverNames[index] = name;
    const r = await foldKeptLines(file, from?.size ?? 0, from?.lines ?? 0, prefilter, (kind, text, at, len, lineNo) =>
      kind === LINE ? foldParsed(parseKeptLine(text), file, lineNo, index, at, len) : takeRef(kind === REF_STALL, text, index, at, len),
    );
    bytesRead += r.bytesRead;
    covers.push({ name, dev: r.dev, ino: r.ino, size: r.size, lines: r.lines });
  };
  // The same lines in the same order, scanned by the worker: folded here as foldDay folds them.
  const foldScanned = (f: ScannedFile) => {
    const file = path.join(dir, f.name);
    const index = covers.length;
    coverNames[index] = f.name;
    for (let i = 0; i < f.kinds.length; i++) {
      const kind = f.kinds[i]!;
      if (kind === LINE) foldParsed(f.parsed[i]!, file, f.lineNos[i]!, index, f.ats[i]!, f.lens[i]!);
      else takeRef(kind === REF_STALL, f.texts[i]!, index, f.ats[i]!, f.lens[i]!);
    }
    bytesRead += f.bytesRead;
    covers.push({ name: f.name, dev: f.dev, ino: f.ino, size: f.size, lines: f.lines });
  };
  const todo = start ? names.slice(start.index) : names;
  let workerDays = 0;
  // A long stretch of whole days: a worker scans the later ones while this thread folds the first.
  const worker = opts.scanWorker === null ? undefined : (opts.scanWorker ?? defaultScanWorker());
  const split = worker ? await splitForWorker(dir, todo, start ? 1 : 0, opts.parallelMinBytes ?? PARALLEL_MIN_BYTES) : undefined;
  const scan = split === undefined ? undefined : startScan(worker!, dir, todo.slice(split), epicId);
  for (const name of scan ? todo.slice(0, split) : todo) await foldDay(name);
  if (scan) {
    // Each day as the worker sends it: folded here while it scans the next.
    for (let f = await scan.next(); f; f = await scan.next()) {
      foldScanned(f);
      workerDays++;
    }
    // A worker that failed (or could not start) costs time, never correctness: the days it did not send are folded here.
    for (const name of todo.slice(split! + workerDays)) await foldDay(name);
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
  return {
    history,
    diagnostics,
    diagnosticCount,
    stats: { from: start ? 'summary' : names.length > 0 ? 'rebuilt' : 'empty', bytesRead, summaryWritten, logBytes, workerDays },
  };
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
  for (const n of (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => DAY_FILE.test(f)))
    total += (await fs.stat(path.join(dir, n)).catch(() => undefined))?.size ?? 0;
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
