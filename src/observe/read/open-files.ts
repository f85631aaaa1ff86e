// Descriptors of tail-read files kept open between checks (issue 37): in a busy wave every agent's
// transcript is written every few seconds, and an open() and close() per changed file per check
// cost more than reading its appended bytes (~40 µs against ~20 on this machine). A kept
// descriptor is used only while change notification vouches that the path still names the file
// it was opened on (an event named the file and no rename or unlink happened in its directory
// since: `ChangeNotes.isTouched`), and only for a bounded time: past `reopenMs` the path is opened
// afresh. Anything else opens the path as before. Bounded in number (least recently used closed),
// and swept once a check: a descriptor past its age is closed even if its file is never read again
// (a removed transcript's space is freed within `reopenMs`, not held for the watchdog's life).
import { closeSync, readFileSync } from 'node:fs';

/** A kept descriptor is trusted at most this long, then the path is opened again. @defaultValue 30000 */
export const REOPEN_MS = 30_000;

/** At most this many descriptors, and at most a quarter of the process's soft limit. @defaultValue 4096 */
export const KEPT_MAX = 4096;

interface Kept {
  fd: number;
  dev: number;
  ino: number;
  openedAtMs: number;
}

/** The soft limit of open files (Linux /proc), else a conservative 1,024. */
function softFileLimit(): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'latin1'));
    if (m) return m[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(m[1]);
  } catch {
    // not Linux
  }
  return 1024;
}

export class OpenFiles {
  private kept = new Map<string, Kept>();
  private readonly max: number;
  private sweptAtMs = -Infinity;

  constructor(
    max = Math.min(KEPT_MAX, Math.floor(softFileLimit() / 4)),
    private readonly now: () => number = () => performance.now(),
    private readonly reopenMs = REOPEN_MS,
  ) {
    this.max = Math.max(0, max);
  }

  get size(): number {
    return this.kept.size;
  }

  /**
   * The descriptor kept for `file`, handed over (keep it again after use, or close it), if it was
   * opened on inode `dev`/`ino` recently enough; else undefined, and a stale one is closed.
   */
  take(file: string, dev: number, ino: number): { fd: number; openedAtMs: number } | undefined {
    const k = this.kept.get(file);
    if (!k) return undefined;
    this.kept.delete(file);
    if (k.dev === dev && k.ino === ino && this.now() - k.openedAtMs < this.reopenMs) return k;
    closeSync(k.fd);
    return undefined;
  }

  /** Keep `fd` (open on `dev`/`ino`, opened at `openedAtMs`) for the next read of `file`; the least recently used beyond the bound is closed. */
  keep(file: string, fd: number, dev: number, ino: number, openedAtMs = this.now()): void {
    if (this.max === 0) {
      closeSync(fd);
      return;
    }
    const old = this.kept.get(file);
    if (old) {
      this.kept.delete(file);
      if (old.fd !== fd) closeSync(old.fd);
    }
    this.kept.set(file, { fd, dev, ino, openedAtMs });
    while (this.kept.size > this.max) {
      const [name, k] = this.kept.entries().next().value as [string, Kept];
      this.kept.delete(name);
      closeSync(k.fd);
    }
  }

  /** Close every descriptor past its age. Cheap when none is: at most once every `reopenMs / 4`. */
  sweep(): void {
    const now = this.now();
    if (now - this.sweptAtMs < this.reopenMs / 4) return;
    this.sweptAtMs = now;
    for (const [file, k] of this.kept) {
      if (now - k.openedAtMs < this.reopenMs) continue;
      this.kept.delete(file);
      closeSync(k.fd);
    }
  }

  /** Close `file`'s kept descriptor, if any. */
  drop(file: string): void {
    const k = this.kept.get(file);
    if (!k) return;
    this.kept.delete(file);
    closeSync(k.fd);
  }

  /** Close every kept descriptor. */
  closeAll(): void {
    for (const k of this.kept.values()) closeSync(k.fd);
    this.kept.clear();
  }
}
