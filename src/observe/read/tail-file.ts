// Reads only the bytes appended to a file since a saved position, line by line, with bounded
// memory. Detects a replaced (new inode), truncated or rewritten file and starts over; a cold
// start reads just the last `tailBytes`, dropping the partial first line. I/O; no parsing.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { isPseudoDevice, pseudoDeviceReason } from '../../files/pseudo-files.js';
import type { ChangeNotes, Note } from './change-notes.js';
import { OpenFiles } from './open-files.js';
import { createLineSplitter, feedLines, type LineRef, type LineSplitter } from '../parse/line-splitter.js';

/** A saved position: just after the last complete line consumed. Plain JSON (persisted). */
export interface TailCursor {
  dev: number;
  ino: number;
  offset: number;
  /** Line number of the next line, when counting from byte 0. */
  lineNo?: number;
  /** Still dropping the cut first line of a tail start. */
  skipFirst?: boolean;
  size: number;
  mtimeMs: number;
}

/** The in-memory position: the cursor plus the unterminated line read so far. */
export interface TailPosition {
  cursor: TailCursor;
  splitter: LineSplitter;
}

export type ResetReason = 'cold' | 'replaced' | 'truncated' | 'rewritten';

export interface TailHandlers {
  /**
   * Reading starts over: forget what was parsed from this file. `cutAt`: the read begins at this
   * byte offset, mid-file (a tail start: the bytes before it are not read), else at byte 0.
   */
  reset(reason: ResetReason, cutAt?: number): void;
  line(bytes: Buffer, ref: LineRef): void;
  oversize(ref: LineRef, bytes: number): void;
}

export interface TailOptions {
  /** A cold start reads at most this many bytes from the end. @defaultValue 262144 (256 KB) */
  tailBytes: number;
  /**
   * A parser that can tell whether a tail holds enough context (transcripts) starts colder still:
   * at most this many bytes (and at most `tailBytes`), read further back only when needed.
   * @defaultValue 16384 (16 KB)
   */
  lazyTailBytes: number;
  /**
   * A cold start whose tail lacks what the verdict needs reads back once, at most this many
   * bytes from the end. @defaultValue 4194304 (4 MB)
   */
  maxColdBytes: number;
  /** A longer line is skipped with a diagnostic. @defaultValue 8388608 (8 MB) */
  maxLineBytes: number;
  /** Read size. @defaultValue 65536 */
  chunkBytes: number;
}

/** 256 KB cold-start tail (16 KB for a lazy one, widened to 256 KB, up to 4 MB read back), 8 MB line cap, 64 KB reads. */
export const DEFAULT_TAIL_OPTIONS: TailOptions = {
  tailBytes: 256 * 1024,
  lazyTailBytes: 16 * 1024,
  maxColdBytes: 4 * 1024 * 1024,
  maxLineBytes: 8 * 1024 * 1024,
  chunkBytes: 64 * 1024,
};

export type TailReadResult =
  | { ok: true; position: TailPosition; size: number; mtimeMs: number; reset?: ResetReason }
  | { ok: false; code: string; reason: string };

/** Rebuild the in-memory position from a persisted cursor. */
export function positionFromCursor(cursor: TailCursor): TailPosition {
  return { cursor, splitter: createLineSplitter(cursor.offset, { lineNo: cursor.lineNo, skipFirst: cursor.skipFirst }) };
}

/** Same file, same size and mtime as when it was last read up to its end: nothing to read. */
function isUnchanged(prev: TailPosition, st: { dev: number; ino: number; size: number; mtimeMs: number }): boolean {
  const c = prev.cursor;
  return c.ino === st.ino && c.dev === st.dev && c.size === st.size && c.mtimeMs === st.mtimeMs && prev.splitter.fedTo === st.size;
}

/**
 * How long the stat `unchangedBy` took of a changed file stands in for the stat of the read that
 * follows it, in ms: the observer reads the file right after asking (the same row, the same check).
 */
const CHANGED_STAT_MS = 1_000;

/** Reads appended bytes; `bytesRead` counts every byte read from disk (for tests and benches). */
export class TailReader {
  bytesRead = 0;
  /** Files opened (a file whose size, mtime and inode did not move is only stat'ed; a kept descriptor is not opened again). */
  opens = 0;
  /** Files read: opened, or through a descriptor kept from their last read. */
  reads = 0;
  /** Stats by path (an fstat of an open file not counted). */
  stats = 0;
  readonly opts: TailOptions;
  private buf: Buffer;
  /** Descriptors kept open for files written between checks (only with change notification): swept once a check, closed at the end. */
  readonly open?: OpenFiles;
  /** The last stat by `unchangedBy` that found its file changed: the read that follows takes it instead of stating again. */
  private changedStat?: { file: string; st: Stats; atMs: number };

  /** `notes`: change notification that may vouch for an untouched file instead of a stat, and for a kept descriptor. */
  constructor(
    opts: Partial<TailOptions> = {},
    private readonly notes?: ChangeNotes,
    open?: OpenFiles,
  ) {
    this.opts = { ...DEFAULT_TAIL_OPTIONS, ...opts };
    this.buf = Buffer.allocUnsafe(this.opts.chunkBytes);
    this.open = notes ? (open ?? new OpenFiles()) : undefined;
  }

  /**
   * Whether `file` is the same file, with the same size and mtime, as when `prev` read it to its
   * end: 'notes' when change notification vouches that nothing touched it since a stat said so
   * (no stat), 'stat' after one stat; undefined when it changed (or cannot be stat'ed). `note`:
   * the file's note handle (`noteOf`), asked instead of looking the path up.
   */
  unchangedBy(file: string, prev: TailPosition, isStatRequired = false, note?: Note): 'notes' | 'stat' | undefined {
    const notes = this.notes;
    if (notes) {
      const n = note ?? notes.noteOf(file);
      if (n !== undefined) {
        if (!isStatRequired && notes.isUntouchedNote(n)) return 'notes';
        // Written since its last stat (issue 37): changed, no stat needed to say so (the read stats it).
        if (notes.isTouchedNote(n)) return undefined;
      }
    }
    const hadVouched = notes?.beforeStat(file) === true;
    try {
      this.stats++;
      const st = statSync(file, { throwIfNoEntry: false });
      if (st === undefined || !st.isFile()) return undefined;
      if (!isUnchanged(prev, st)) {
        if (hadVouched) notes?.missed(st.mtimeMs);
        notes?.changed(file);
        this.changedStat = { file, st, atMs: performance.now() };
        return undefined;
      }
    } catch {
      return undefined;
    }
    this.notes?.atEnd(file);
    return 'stat';
  }

  /**
   * Whether `file` still does not exist: true when change notification vouches that nothing was
   * created in its directory since a stat found it missing (no stat), else after one stat.
   */
  isStillAbsent(file: string, isStatRequired = false): boolean {
    if (!isStatRequired && this.notes?.isStillAbsent(file)) return true;
    this.notes?.beforeStat(file);
    try {
      this.stats++;
      if (statSync(file, { throwIfNoEntry: false }) !== undefined) return false;
    } catch {
      return false;
    }
    this.notes?.absent(file);
    return true;
  }

  /** The change note of `file` once it was stat'ed (a handle for `unchangedBy`); undefined without change notification. */
  noteOf(file: string): Note | undefined {
    return this.notes?.noteOf(file);
  }

  /** Read what `file` gained since `prev` (undefined: cold start), feeding complete lines to `h`. */
  async read(file: string, prev: TailPosition | undefined, h: TailHandlers, coldBytes = this.opts.tailBytes): Promise<TailReadResult> {
    // One stat first: an unchanged file (the common case in a steady check) is never opened.
    // Synchronous on purpose: a cached stat costs microseconds, an awaited one a thread-pool round trip.
    // Skipped for a file read before that change notification says was written since (a busy
    // wave's changed files, issue 37): it is the same regular file, opened at once and fstat'ed.
    // Skipped too right after `unchangedBy` stat'ed the file and found it changed: that stat is
    // taken (the notes were told then), and the read goes up to the size it saw.
    const isTouched = prev !== undefined && this.notes?.isTouched(file) === true;
    const memo = this.changedStat;
    this.changedStat = undefined;
    let pre: Stats | undefined =
      !isTouched && prev !== undefined && memo?.file === file && performance.now() - memo.atMs < CHANGED_STAT_MS ? memo.st : undefined;
    // From here on an event marks the file touched again (`unchangedBy` said so before the stat it took).
    const hadVouched = pre === undefined && this.notes?.beforeStat(file) === true;
    if (!isTouched && pre === undefined) {
      try {
        this.stats++;
        pre = statSync(file, { throwIfNoEntry: false });
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
        return { ok: false, code, reason: `${file}: cannot open (${code})` };
      }
      if (!pre) {
        this.notes?.absent(file);
        return { ok: false, code: 'ENOENT', reason: `${file}: cannot open (ENOENT)` };
      }
      if (!pre.isFile()) return { ok: false, code: 'ENOTFILE', reason: `${file}: not a regular file` };
      if (prev && isUnchanged(prev, pre)) {
        this.notes?.atEnd(file);
        return { ok: true, position: prev, size: pre.size, mtimeMs: pre.mtimeMs };
      }
      if (prev) {
        if (hadVouched) this.notes?.missed(pre.mtimeMs);
        this.notes?.changed(file);
      }
    }
    // The rest synchronous too: a read is a few KB appended, or a 32 KB cold tail; each awaited
    // call would be a thread-pool round trip (1,000 of them in a cold check of 1,000 agents).
    // A descriptor kept from the file's last read (open-files.ts) is taken when the notes vouch
    // that its path still names that file (no rename or unlink in its directory since), or when
    // the stat just taken finds the path on its inode: a kept descriptor holds its inode, so no
    // other file can have that number. Then that stat is the file's (no fstat).
    const isStatVouched = pre !== undefined && prev !== undefined && pre.ino === prev.cursor.ino && pre.dev === prev.cursor.dev;
    const kept = prev && (isTouched || isStatVouched) ? this.open?.take(file, prev.cursor.dev, prev.cursor.ino) : undefined;
    this.open?.drop(file);
    let fd: number;
    this.reads++;
    if (kept) fd = kept.fd;
    else {
      try {
        // O_NONBLOCK: a FIFO or device named as a transcript must not hang the check on open().
        fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
        this.opens++;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
        if (code === 'ENOENT') this.notes?.absent(file);
        return { ok: false, code, reason: `${file}: cannot open (${code})` };
      }
    }
    // Kept after the read only when it read a regular file without error.
    let isKeepable = false;
    try {
      const isKeptByStat = kept !== undefined && isStatVouched;
      const st = isKeptByStat ? pre! : fstatSync(fd);
      if (!st.isFile()) return { ok: false, code: 'ENOTFILE', reason: `${file}: not a regular file` };
      // /proc/self/environ is a "regular file": named as a transcript, its bytes (API keys) are never read.
      if (isPseudoDevice(st.dev)) return { ok: false, code: 'EPSEUDO', reason: pseudoDeviceReason(file) };
      // A descriptor the notes kept vouches for growth only (none: a replacement whose event was lost?): the path is read.
      if (kept && !isKeptByStat && prev && st.size <= prev.splitter.fedTo) return await this.read(file, prev, h, coldBytes);
      // Touched, yet the same size and mtime (its attributes changed, or the event came late): nothing to read.
      if (isTouched && prev && isUnchanged(prev, st)) {
        this.notes?.atEnd(file);
        isKeepable = this.keep(file, fd, st, kept?.openedAtMs);
        return { ok: true, position: prev, size: st.size, mtimeMs: st.mtimeMs };
      }
      let reset: ResetReason | undefined;
      let pos = prev;
      // Bytes of the first chunk already in this.buf: read from one byte before the resume point,
      // that byte checked to still be a newline (one read for the check and the first chunk).
      let first = 0;
      if (!pos) reset = 'cold';
      else if (pos.cursor.ino !== st.ino || pos.cursor.dev !== st.dev) reset = 'replaced';
      else if (st.size < pos.splitter.fedTo) reset = 'truncated';
      else if (st.size > pos.splitter.fedTo) {
        first = this.readContinuing(fd, pos.splitter, st.size);
        if (first === -1) reset = 'rewritten';
      }
      if (reset || !pos) {
        first = 0;
        pos = this.coldPosition(st.size, coldBytes);
        h.reset(reset ?? 'cold', pos.splitter.isSkipping ? pos.cursor.offset : undefined);
      }
      const s = pos.splitter;
      if (first > 0) feedLines(s, this.buf.subarray(this.buf.length - first), this.opts.maxLineBytes, h);
      while (s.fedTo < st.size) {
        const want = Math.min(this.buf.length, st.size - s.fedTo);
        const bytesRead = readSync(fd, this.buf, 0, want, s.fedTo);
        if (bytesRead === 0) break; // shrank under us; the next read sees it
        this.bytesRead += bytesRead;
        feedLines(s, this.buf.subarray(0, bytesRead), this.opts.maxLineBytes, h);
      }
      const cursor: TailCursor = {
        dev: st.dev,
        ino: st.ino,
        offset: s.lineStart,
        lineNo: s.lineNo,
        skipFirst: s.isSkipping && !s.isOversize ? true : undefined,
        size: st.size,
        mtimeMs: st.mtimeMs,
      };
      if (s.fedTo === st.size) this.notes?.atEnd(file);
      // A descriptor a stat vouched for counts as opened now: it is as good as the path's.
      isKeepable = this.keep(file, fd, st, isKeptByStat ? undefined : kept?.openedAtMs);
      return { ok: true, position: { cursor, splitter: s }, size: st.size, mtimeMs: st.mtimeMs, reset };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
      return { ok: false, code, reason: `${file}: read failed (${code}: ${(e as Error).message})` };
    } finally {
      if (!isKeepable) closeSync(fd);
    }
  }

  /** Keep `fd` for the next read of `file` (true), if descriptors are kept at all. */
  private keep(file: string, fd: number, st: { dev: number; ino: number }, openedAtMs?: number): boolean {
    if (!this.open) return false;
    this.open.keep(file, fd, st.dev, st.ino, openedAtMs);
    return true;
  }

  /** Where a cold start begins: the whole file when small, else its last `tailBytes`. */
  private coldPosition(size: number, tailBytes: number): TailPosition {
    if (size <= tailBytes) return positionFromCursor({ dev: 0, ino: 0, offset: 0, lineNo: 1, size: 0, mtimeMs: 0 });
    // Start one byte early: if that byte is a newline, only it is dropped and no line is lost.
    const start = size - tailBytes - 1;
    return { cursor: { dev: 0, ino: 0, offset: start, size: 0, mtimeMs: 0 }, splitter: createLineSplitter(start, { skipFirst: true }) };
  }

  /**
   * Same inode and longer: the first chunk after the resume point, read together with the byte
   * before it, which must still be a newline (else the file was rewritten: -1). Returns how many
   * bytes of the chunk it left at the end of this.buf (0: nothing read, read on as usual).
   */
  private readContinuing(fd: number, s: LineSplitter, size: number): number {
    if (s.fedTo === 0 || s.partBytes > 0 || s.isSkipping) return 0;
    // Into the buffer's end, so the chunk after the checked byte is its last `n` bytes.
    const want = Math.min(this.buf.length, size - s.fedTo + 1);
    const at = this.buf.length - want;
    const bytesRead = readSync(fd, this.buf, at, want, s.fedTo - 1);
    this.bytesRead += bytesRead;
    if (bytesRead === 0 || this.buf[at] !== 0x0a) return -1;
    // The rest of the chunk moved to the end (a short read leaves a gap before it).
    if (bytesRead < want) this.buf.copyWithin(this.buf.length - (bytesRead - 1), at + 1, at + bytesRead);
    return bytesRead - 1;
  }
}
