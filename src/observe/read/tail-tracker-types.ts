// The tail tracker's vocabulary: how a file kind is parsed (TailParser), what a read asks for and
// returns, and the handle kept per tracked file. Split out of observe/read/tail-tracker.ts.
import type { LineRef } from '../parse/line-splitter.js';
import type { ObserveDiagnostic } from '../parse/diagnostic.js';
import type { ResetReason, TailPosition } from './tail-file.js';
import type { Note } from './change-notes.js';

/** How one kind of file (transcript, hook activity) is parsed; states must be plain JSON. */
export interface TailParser<S> {
  empty(): S;
  /** Fold one complete line (without its newline) into `state`. */
  line(state: S, text: string, file: string, ref: LineRef): ObserveDiagnostic | undefined;
  /**
   * The same from the line's bytes (optional: a parser that can fold some records from their
   * first bytes, never decoding the rest). The bytes are only lent: valid during the call.
   */
  lineBytes?(state: S, bytes: Buffer, file: string, ref: LineRef): ObserveDiagnostic | undefined;
  /** Count a line skipped for being over the size cap. */
  skipped?(state: S): void;
  /**
   * The state is folded from a tail alone (a cold start mid-file, cut at byte `cutAt`): a parser
   * with this hook is read lazily, `lazyTailBytes` first, and read back only when asked to.
   */
  beginTail?(state: S, cutAt: number): void;
  /** False while the state lacks context its tail start missed (`read(…, {full: true})` reads back). */
  hasContext?(state: S): boolean;
}

export interface ReadOptions {
  /**
   * A state that lacks context is read again first: `more`, a lazy tail of the size `tailBytes`
   * says (sized by the parser in records: a tail holding as many messages as the short one
   * lacked; skipped unless it lies between the short tail's size and the wide one's); `wide`, a
   * lazy tail of `tailBytes` (more messages for the parser to vouch with); `full`, back to a turn
   * boundary within `tailBytes`, else once to `maxColdBytes` from the end.
   */
  context?: 'more' | 'wide' | 'full';
  /** With `more`: the size of the tail to read, in bytes from the end. */
  tailBytes?: number;
  /**
   * A read that finds no position (a cold start) and is asked for nothing more starts at a lazy
   * tail of this size, as if asked for `more` (the caller's guess in records, from other files):
   * skipped unless it lies between the short tail's size and the wide one's.
   */
  coldTailBytes?: number;
}

/** How far a state reaches back: a lazy tail, one sized in records, a wide lazy tail, or read back to the bound. */
export type Level = 0 | 1 | 2 | 3;
export const LEVEL_OF = { more: 1, wide: 2, full: 3 } as const;

export type TrackResult<S> =
  | {
      ok: true;
      state: S;
      size: number;
      mtimeMs: number;
      reset?: ResetReason;
      /** Changes whenever what a read returns for this file changes (state, size, mtime): `peek` compares it. */
      version: number;
      /** The file's entry, for `peekHandle` (no path lookup per check). */
      handle: TailHandle<S>;
    }
  | { ok: false; code: string; reason: string };

/**
 * One tracked file, as a handle callers keep for `peekHandle`: the same object for as long as the
 * file is tracked (updated in place by each read), marked dropped once it is not.
 */
export interface TailHandle<S> {
  readonly file: string;
  position: TailPosition;
  /** No longer tracked (a failed read, pruned): ask `read`. */
  isDropped?: boolean;
  /** The file's change note after its last stat (a handle: no path lookup when change notification vouches). */
  note?: Note;
  state: S;
  usedAtMs: number;
  /** The check in which this file was last read (0: outside any check). */
  checkId?: number;
  /** The check in which it was last stat'ed (not only vouched for by change notification). */
  statCheckId?: number;
  size?: number;
  mtimeMs?: number;
  /** The use time last saved to (or loaded from) the store. */
  savedUsedAtMs?: number;
  /** The offset last saved to (or loaded from) the store. */
  savedOffset?: number;
  /** See TrackResult.version; unset for an entry loaded from the store and not read yet. */
  version?: number;
  /** Lines from this offset on were read (and their problems reported) since a lazy tail start. */
  lazyFrom?: number;
  /** The level its last tail start was read at (in memory only: a loaded state counts as lazy). */
  level?: Level;
}
