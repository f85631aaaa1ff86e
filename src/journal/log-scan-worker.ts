// The worker thread of a first start (log-scan-start.ts): scans the day files it is given for one
// epic (log-scan.ts), posting each as soon as it is scanned (`{ file }`, in order; the main thread
// folds it while the next is scanned), then `{ done: true }`, or `{ error }`. Bundled as
// bundle/log-scan.cjs.
import { parentPort, workerData } from 'node:worker_threads';
import { scanDayFiles } from './log-scan.js';

const { dir, names, epicId } = workerData as { dir: string; names: string[]; epicId: string };
scanDayFiles(dir, names, epicId, (file) => parentPort?.postMessage({ file })).then(
  () => parentPort?.postMessage({ done: true }),
  (e: unknown) => parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) }),
);
