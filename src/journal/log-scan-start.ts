// Starting the scan worker of a first start (log-scan.ts, log-scan-worker.ts): which days it takes,
// and where its file is. A worker that cannot start or fails is no error: its days are folded on
// the main thread instead, so it costs time, never correctness.
import { existsSync, promises as fs } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ScannedFile } from './log-scan.js';

/** Days from their start worth a worker: a smaller read is over before a worker has started. */
export const PARALLEL_MIN_BYTES = 64 * 1024 * 1024;
/**
 * The worker's share of the bytes. The main thread scans its own share more slowly than the
 * worker (it also takes in and folds what the worker sends, and its heap is the larger): timed on
 * 1,000,000 events, history ready at p50 1.36 / 1.29 / 1.21 / 1.19 / 1.39 s for 0.45 / 0.55 /
 * 0.62 / 0.7 / 0.75 (interleaved runs).
 */
const WORKER_SHARE = 0.7;

/**
 * The scan worker beside this module: bundle/log-scan.cjs beside the CLI bundle, dist/'s module
 * beside this one; none when running from src/ (tests name a built one).
 */
export function defaultScanWorker(): URL | undefined {
  const here = import.meta.url;
  const url = new URL(here.endsWith('.cjs') ? './log-scan.cjs' : './log-scan-worker.js', here);
  return existsSync(url) ? url : undefined;
}

/**
 * Where `names` (day files read from their start, but the first `firstWhole` which may resume
 * mid-file) split between this thread and a worker: the worker takes the days from the returned
 * index on, about WORKER_SHARE of the bytes. Undefined when they hold fewer than `minBytes`.
 */
export async function splitForWorker(dir: string, names: readonly string[], firstWhole: number, minBytes: number): Promise<number | undefined> {
  if (names.length - firstWhole < 2) return undefined;
  const sizes = await Promise.all(
    names.map((n) =>
      fs.stat(path.join(dir, n)).then(
        (st) => st.size,
        () => 0,
      ),
    ),
  );
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total < minBytes) return undefined;
  let tail = 0;
  for (let k = names.length - 1; k > firstWhole; k--) {
    tail += sizes[k]!;
    if (tail >= total * WORKER_SHARE) return k;
  }
  return firstWhole + 1;
}

/**
 * Scan workers at once in one process: `serve` starts every epic's watch together, and a worker
 * beyond the spare cores adds only memory (each holds its share of the log's kept lines).
 */
export const MAX_SCAN_WORKERS = Math.max(1, availableParallelism() - 1);
let runningScans = 0;

/** The days a worker scans, in order, as it sends them. */
export interface ScanStream {
  /** The next day scanned; undefined once the worker is done, or failed or could not start (then fewer days came than were asked). */
  next(): Promise<ScannedFile | undefined>;
}

/**
 * Scan `names` of `dir` in a worker thread, each day handed over as soon as it is scanned (the
 * caller folds one while the next is scanned). No stream at all when MAX_SCAN_WORKERS are
 * already at work: the caller folds them itself.
 */
export function startScan(file: URL, dir: string, names: readonly string[], epicId: string): ScanStream | undefined {
  if (runningScans >= MAX_SCAN_WORKERS) return undefined;
  runningScans++;
  const arrived: ScannedFile[] = [];
  let isEnded = false;
  let wake: (() => void) | undefined;
  let worker: Worker | undefined;
  const end = () => {
    if (!isEnded) runningScans--;
    isEnded = true;
    wake?.();
    void worker?.terminate();
  };
  try {
    worker = new Worker(file, { workerData: { dir, names, epicId } });
    worker.on('message', (m: { file?: ScannedFile; done?: true; error?: string }) => {
      if (isEnded) return;
      if (m.file) {
        arrived.push(m.file);
        wake?.();
      } else end();
    });
    worker.once('error', end);
    worker.once('exit', end);
  } catch {
    end();
  }
  return {
    async next() {
      while (arrived.length === 0 && !isEnded) await new Promise<void>((r) => (wake = r));
      wake = undefined;
      // Taken out of the queue: a day folded is not held here too.
      return arrived.shift();
    },
  };
}
