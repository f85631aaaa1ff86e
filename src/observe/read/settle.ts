// Reading a file that another program rewrites in place (DESIGN §3 "Reading under a live
// writer"): a file is settled when its identity, size and times held still across an interval.
// Real time on purpose: a file's mtime is real, whatever clock the loop runs on.
import { promises as fs } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

export interface SettleOptions {
  /** How long the file must hold still. @defaultValue 100 */
  intervalMs: number;
  /** Give up (the file is still changing) after this long. @defaultValue 2000 */
  maxWaitMs: number;
}

export const DEFAULT_SETTLE: SettleOptions = { intervalMs: 100, maxWaitMs: 2000 };

/** inode, size, mtime and ctime in ns; `missing` when the file does not exist. */
export async function fileSignature(file: string): Promise<string> {
  return (await statSignature(file)).signature;
}

async function statSignature(file: string): Promise<{ signature: string; changedMs: number }> {
  try {
    const s = await fs.stat(file, { bigint: true });
    const changedNs = s.mtimeNs > s.ctimeNs ? s.mtimeNs : s.ctimeNs;
    return { signature: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, changedMs: Number(changedNs / 1_000_000n) };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { signature: 'missing', changedMs: 0 };
    throw e;
  }
}

/**
 * Wait until `file` holds still for `intervalMs`; resolve with its signature then, or with
 * undefined when it kept changing for `maxWaitMs`.
 */
export async function waitUntilSettled(file: string, opts: SettleOptions): Promise<string | undefined> {
  const deadline = Date.now() + opts.maxWaitMs;
  const first = await statSignature(file);
  // Unchanged for an interval already (ctime cannot be set back): no need to wait.
  if (Date.now() - first.changedMs >= opts.intervalMs) return first.signature;
  let previous = first.signature;
  for (;;) {
    await delay(opts.intervalMs);
    const current = await fileSignature(file);
    if (current === previous) return current;
    if (Date.now() >= deadline) return undefined;
    previous = current;
  }
}
