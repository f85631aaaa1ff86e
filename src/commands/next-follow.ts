// `next` beside another watchdog of the same epic (issue 33 item 1): when `serve` or a standalone
// loop already holds the epic's lock, `next` does not refuse and does not watch twice. It follows
// that watchdog: it folds the dispatch log that watchdog writes (its requests, escalations,
// attention items, unanswered requests, and what earlier `next` runs printed) and reads its
// watchdog.json for the wave's counts, and returns the same document with the same exit code as a
// `next` that holds the lock. When the holder stops (the lock is free), the caller runs `next` as
// usual. One watchdog per epic judges and acts; `next` only relays (docs/orchestrator.md).
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Clock, Output } from '../deps.js';
import { classifyStatus, type StatusClass } from '../contracts/state-file.js';
import type { VerdictKind } from '../contracts/vocabulary.js';
import { foldEvent, type History } from '../core/history.js';
import { newsOf, nextReason, nextReturnedEvent } from '../core/next.js';
import { DispatchLog, parseLogLine } from '../journal/dispatch-log.js';
import { readLock } from '../journal/lock.js';
import { loadHistory } from '../journal/log-summary.js';
import { StatePaths } from '../files/paths.js';
import { isAlive } from '../sys/proc-identity.js';
import type { ResolvedOptions } from '../options.js';
import type { NextDoc } from '../contracts/next.js';
import type { NextNews } from '../core/next.js';

/** What the document needs of the wave (commands/next.ts WaveFacts). */
export interface FollowedWave {
  isWaveDone: boolean;
  verdicts: { kind: VerdictKind; taskId: string; ticketId: string }[];
  tasks: { taskId: string; statusClass: StatusClass }[];
}
import { readWatchdogJson } from './status.js';

/** How often the holder's log is looked at again. @defaultValue 1000 */
export const FOLLOW_POLL_MS = 1000;
const DAY_FILE = /^\d{4}-\d{2}-\d{2}\.ndjson$/;

/** The live holder of the epic's lock (not this process), or undefined when there is none. */
export async function liveHolder(paths: StatePaths, epicId: string, ownPid: number): Promise<{ pid: number; started_at?: string } | undefined> {
  const holder = await readLock(paths.lockFile(epicId));
  return holder && holder.pid !== ownPid && isAlive(holder.pid) ? holder : undefined;
}

/** The day files' sizes: where the tail starts. */
async function sizes(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const n of names.filter((x) => DAY_FILE.test(x))) out.set(n, (await fs.stat(path.join(dir, n)).catch(() => undefined))?.size ?? 0);
  return out;
}

/** Fold the lines appended to the day files since `read` (whole lines only; `read` moves on). */
async function foldAppended(dir: string, read: Map<string, number>, history: History, epicId: string): Promise<void> {
  const now = await sizes(dir);
  for (const [name, size] of [...now].sort(([a], [b]) => a.localeCompare(b))) {
    const from = read.get(name) ?? 0;
    if (size <= from) continue;
    const fh = await fs.open(path.join(dir, name), 'r');
    try {
      const buf = Buffer.alloc(size - from);
      const { bytesRead } = await fh.read(buf, 0, buf.length, from);
      const text = buf.subarray(0, bytesRead).toString('utf8');
      const end = text.lastIndexOf('\n');
      if (end < 0) continue;
      for (const line of text.slice(0, end).split('\n')) {
        const p = line ? parseLogLine(line) : undefined;
        if (p?.ok) foldEvent(history, p.event, epicId);
      }
      read.set(name, from + Buffer.byteLength(text.slice(0, end + 1)));
    } finally {
      await fh.close();
    }
  }
}

/** The wave as the holder last judged it (its watchdog.json); none yet: no counts. */
async function holderWave(paths: StatePaths, epicId: string): Promise<FollowedWave> {
  const doc = await readWatchdogJson(paths, epicId).catch(() => undefined);
  const tasks = doc?.tasks ?? [];
  return {
    isWaveDone: false,
    verdicts: tasks.map((t) => ({ kind: t.verdict as VerdictKind, taskId: t.task_id, ticketId: t.ticket_id })),
    // A replacement the holder launched has a status of its own making: judged, so in flight.
    tasks: tasks.map((t) => ({
      taskId: t.task_id,
      statusClass: classifyStatus(t.status) === 'unknown' && t.verdict !== 'unknown' ? 'in_flight' : classifyStatus(t.status),
    })),
  };
}

export interface FollowDeps {
  clock: Clock;
  output: Output;
  signal: AbortSignal;
  pid: number;
  /** The `next` document (commands/next.ts buildNextDoc) and its text as printed. */
  makeDoc(news: NextNews, history: History, wave: FollowedWave, isMaxWait: boolean): Promise<{ doc: NextDoc; text: string }>;
}

/**
 * Follow the watchdog holding `opts.epicId` until it has news for the orchestrator (print it,
 * journal `next_returned`, resolve with the exit code), `--max-wait` passes (exit 14), or the
 * holder stops ('free': the caller watches the epic itself).
 */
export async function followHolder(
  opts: ResolvedOptions,
  deps: FollowDeps,
  holder: { pid: number; started_at?: string },
  maxWaitMs?: number,
): Promise<number | 'free' | 'signal'> {
  const paths = new StatePaths(opts.stateDir);
  const dir = paths.dispatchLogDir();
  deps.output.err(
    `dispatch-watchdog next: epic ${opts.epicId} is watched by pid ${holder.pid}${holder.started_at ? ` (since ${holder.started_at})` : ''}; ` +
      `reporting what that watchdog finds (its requests, escalations and attention items) instead of watching it twice.\n`,
  );
  // Sizes first, then the history: a line written in between is folded twice, never missed (the news is keyed).
  const read = await sizes(dir);
  const { history } = await loadHistory(paths, opts.epicId, { isWritable: false });
  const untilMs = maxWaitMs === undefined ? undefined : deps.clock.nowMs() + maxWaitMs;
  const log = new DispatchLog(paths, opts.epicId, randomUUID(), () => deps.clock.nowMs());
  for (;;) {
    await foldAppended(dir, read, history, opts.epicId);
    const news = newsOf(history);
    const isMaxWait = untilMs !== undefined && deps.clock.nowMs() >= untilMs;
    const reason = nextReason(news, false);
    if (reason || isMaxWait) {
      const { doc, text } = await deps.makeDoc(news, history, await holderWave(paths, opts.epicId), isMaxWait && !reason);
      deps.output.out(text);
      await log.append(nextReturnedEvent(doc, news));
      return doc.exit_code;
    }
    if (!(await liveHolder(paths, opts.epicId, deps.pid))) return 'free';
    if (deps.signal.aborted) return 'signal';
    const wait = Math.min(FOLLOW_POLL_MS, untilMs === undefined ? Infinity : Math.max(0, untilMs - deps.clock.nowMs()));
    await deps.clock.sleep(wait, deps.signal).catch(() => undefined);
    if (deps.signal.aborted) return 'signal';
  }
}
