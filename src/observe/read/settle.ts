// Reading a file that another program rewrites in place (DESIGN §3 "Reading under a live
// writer"): a file is settled when its identity, size and times held still across an interval,
// or when another file was renamed over it (an atomic writer's file is whole when it appears).
// Real time on purpose: a file's mtime is real, whatever clock the loop runs on.
import { promises as fs } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

export interface SettleOptions {
  /** How long the file must hold still. @defaultValue 100 */
  intervalMs: number;
  /** Give up (the file is still changing) after this long. @defaultValue 2000 */
  maxWaitMs: number;
  /**
   * A watchdog with no earlier read of the file trusts it only once its content is this old (by
   * mtime): a writer that truncates, writes part and pauses leaves a torn file at rest for
   * seconds, and a fresh watchdog has nothing to compare it with. Also how long, in check time,
   * a row that regressed is held before it is believed (at least two check intervals).
   * @defaultValue 4000
   */
  restMs: number;
}

export const DEFAULT_SETTLE: SettleOptions = { intervalMs: 100, maxWaitMs: 2000, restMs: 4000 };

interface StatSignature {
  signature: string;
  /** dev:ino, or `missing`. */
  identity: string;
  /** Latest of mtime and ctime (ms). */
  changedMs: number;
  /** mtime alone (ms): when the content was last written. */
  writtenMs: number;
}

/** inode, size, mtime and ctime in ns; `missing` when the file does not exist. */
export async function fileSignature(file: string): Promise<string> {
  return (await statSignature(file)).signature;
}

async function statSignature(file: string): Promise<StatSignature> {
  try {
    const s = await fs.stat(file, { bigint: true });
    const changedNs = s.mtimeNs > s.ctimeNs ? s.mtimeNs : s.ctimeNs;
    return {
      signature: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`,
      identity: `${s.dev}:${s.ino}`,
      changedMs: Number(changedNs / 1_000_000n),
      writtenMs: Number(s.mtimeNs / 1_000_000n),
    };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { signature: 'missing', identity: 'missing', changedMs: 0, writtenMs: 0 };
    throw e;
  }
}

export interface SettledFile {
  signature: string;
  /** Another file was renamed over it while we waited: whole as it is, however new. */
  isRenamed: boolean;
}

/**
 * Wait until `file` holds still for `intervalMs` (and, with `mustRest`, its content is `restMs`
 * old), or until another file is renamed over it; resolve with its signature then, or with
 * undefined when it kept changing for `maxWaitMs`. The caller reads it and checks the signature
 * again: unchanged, the read is of that settled file.
 */
export async function waitUntilSettled(file: string, opts: Omit<SettleOptions, 'restMs'> & { restMs?: number }, mustRest = false): Promise<string | undefined> {
  return (await waitForSettledFile(file, opts, mustRest))?.signature;
}

export async function waitForSettledFile(
  file: string,
  opts: Omit<SettleOptions, 'restMs'> & { restMs?: number },
  mustRest = false,
): Promise<SettledFile | undefined> {
  const deadline = Date.now() + opts.maxWaitMs;
  const restMs = mustRest ? (opts.restMs ?? DEFAULT_SETTLE.restMs) : 0;
  let previous = await statSignature(file);
  const isRested = (s: StatSignature) => s.identity === 'missing' || Date.now() - s.writtenMs >= restMs;
  // Unchanged for an interval already (ctime cannot be set back): no need to wait.
  if (Date.now() - previous.changedMs >= opts.intervalMs && isRested(previous)) return { signature: previous.signature, isRenamed: false };
  for (;;) {
    await delay(opts.intervalMs);
    const current = await statSignature(file);
    if (current.signature === previous.signature && isRested(current)) return { signature: current.signature, isRenamed: false };
    // A new inode with content: an atomic writer's rename (temp + rename writes a whole file).
    if (current.identity !== previous.identity && current.identity !== 'missing' && previous.identity !== 'missing')
      return { signature: current.signature, isRenamed: true };
    if (Date.now() >= deadline) return undefined;
    previous = current;
  }
}
