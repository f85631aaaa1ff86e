// Splits a byte stream into complete lines, chunk by chunk, with bounded memory. Pure: the
// caller reads the bytes. A line longer than `maxLineBytes` is dropped (reported once) and the
// splitter resyncs at the next newline; a line without its newline yet stays pending.

/** Where a complete line sits in the file. */
export interface LineRef {
  /** Byte offset of the line's first byte. */
  offset: number;
  /** 1-based line number, when counting started at byte 0; undefined after a tail start. */
  lineNo?: number;
}

export interface LineSplitter {
  /** Bytes of the pending (unterminated) line. */
  parts: Buffer[];
  partBytes: number;
  /** File offset where the pending line starts. */
  lineStart: number;
  /** File offset just after the last byte fed. */
  fedTo: number;
  /** Dropping bytes until the next newline (an oversized line, or the partial first line of a tail). */
  isSkipping: boolean;
  /** The line being skipped is oversized (so it is reported), not the cut first line of a tail. */
  isOversize: boolean;
  /** Line number of the pending line, when known. */
  lineNo?: number;
}

/** A splitter positioned at `offset`; `skipFirst` drops bytes up to the first newline. */
export function createLineSplitter(offset: number, opts: { skipFirst?: boolean; lineNo?: number } = {}): LineSplitter {
  return {
    parts: [],
    partBytes: 0,
    lineStart: offset,
    fedTo: offset,
    isSkipping: opts.skipFirst ?? false,
    isOversize: false,
    lineNo: opts.skipFirst ? undefined : (opts.lineNo ?? (offset === 0 ? 1 : undefined)),
  };
}

export interface SplitSink {
  /** A complete line, without its newline. The bytes are lent: they may be a view of the caller's read buffer, valid during the call only. */
  line(bytes: Buffer, ref: LineRef): void;
  /** A line over the cap was dropped whole. */
  oversize(ref: LineRef, bytes: number): void;
}

const NL = 0x0a;

/** Feed the next `chunk` (it must start at `s.fedTo`); calls `sink.line` for each complete line. */
export function feedLines(s: LineSplitter, chunk: Buffer, maxLineBytes: number, sink: SplitSink): void {
  let pos = 0;
  const base = s.fedTo;
  s.fedTo += chunk.length;
  while (pos < chunk.length) {
    const nl = chunk.indexOf(NL, pos);
    const end = nl === -1 ? chunk.length : nl;
    if (s.isSkipping) {
      s.partBytes += end - pos;
    } else if (s.partBytes + (end - pos) > maxLineBytes) {
      s.parts = [];
      s.partBytes += end - pos;
      s.isSkipping = true;
      s.isOversize = true;
    } else if (end > pos && (nl === -1 || s.parts.length > 0)) {
      // Copy a part that waits for the rest of its line: the caller reuses the chunk's buffer for
      // the next read. A line whole within this chunk is lent as it is (no copy; see SplitSink).
      s.parts.push(Buffer.from(chunk.subarray(pos, end)));
      s.partBytes += end - pos;
    }
    if (nl === -1) return;
    const ref: LineRef = { offset: s.lineStart, lineNo: s.lineNo };
    if (!s.isSkipping) {
      const bytes = s.parts.length === 0 ? chunk.subarray(pos, end) : s.parts.length === 1 ? s.parts[0]! : Buffer.concat(s.parts, s.partBytes);
      if (bytes.length > 0) sink.line(bytes, ref);
    } else if (s.isOversize) {
      sink.oversize(ref, s.partBytes);
    }
    s.parts = [];
    s.partBytes = 0;
    s.isSkipping = false;
    s.isOversize = false;
    s.lineStart = base + nl + 1;
    if (s.lineNo !== undefined) s.lineNo++;
    pos = nl + 1;
  }
}
