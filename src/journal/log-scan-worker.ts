// The worker thread of a first start (log-scan-start.ts): scans the day files it is given for one
// epic (log-scan.ts) and posts what it kept, or `{ error }`. Bundled as bundle/log-scan.cjs.
import { parentPort, workerData } from 'node:worker_threads';
import { scanDayFiles } from './log-scan.js';

const { dir, names, epicId } = workerData as { dir: string; names: string[]; epicId: string };
scanDayFiles(dir, names, epicId).then(
  (files) => parentPort?.postMessage({ files }),
  (e: unknown) => parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) }),
);
