// A document's JSON text as bytes in one buffer reused from call to call: exactly
// `JSON.stringify(doc) + '\n'`, without the one large string per call. watchdog.json at 10,000
// agents is 2.5 MB of text written every check: as one string it went straight to V8's
// large-object space (old generation) and its bytes to a new 2.5 MB external buffer, every
// check, and the old generation's collections that this brought on were most of what a steady
// loop paid beyond the check itself (docs/performance.md).

/** Long arrays are encoded this many elements at a time: each piece a small, short-lived string. */
const PIECE = 64;

/**
 * Per top-level key of a document, the text of each item of its array as the caller makes it
 * (exactly `JSON.stringify(item)`: a cache of row texts, core/report.ts RowTexts).
 */
export type ItemTexts = Readonly<Record<string, (item: never) => string>>;

export class JsonBytes {
  private buf: Buffer;
  private at = 0;

  constructor(initialBytes = 16 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  /**
   * `JSON.stringify(doc) + '\n'` as UTF-8 bytes: a view of this encoder's buffer, valid until
   * the next call (write it before encoding again).
   */
  encode(doc: object, items?: ItemTexts): Buffer {
    this.at = 0;
    this.put('{');
    let isFirst = true;
    for (const key of Object.keys(doc)) {
      const value = (doc as Record<string, unknown>)[key];
      const textOf = Array.isArray(value) ? items?.[key] : undefined;
      const isLong = textOf !== undefined || (Array.isArray(value) && value.length > PIECE);
      // What JSON.stringify leaves out of an object (undefined, functions, symbols) stays out.
      const text = isLong ? '' : JSON.stringify(value);
      if (text === undefined) continue;
      this.put(isFirst ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
      isFirst = false;
      if (textOf) this.putTexts(value as unknown[], textOf);
      else if (isLong) this.putArray(value as unknown[]);
      else this.put(text);
    }
    this.put('}\n');
    return this.buf.subarray(0, this.at);
  }

  /** A long array, a piece at a time: each piece's brackets become the commas between pieces. */
  private putArray(items: readonly unknown[]): void {
    for (let i = 0; i < items.length; i += PIECE) {
      const start = this.at;
      this.put(JSON.stringify(items.slice(i, i + PIECE)));
      if (i > 0) this.buf[start] = 0x2c; // ','
      this.at--; // the piece's ']'
    }
    this.put(']');
  }

  /** An array whose items' texts the caller makes, a piece at a time. */
  private putTexts(items: readonly unknown[], textOf: (item: never) => string): void {
    this.put('[');
    for (let i = 0; i < items.length; i += PIECE) {
      let piece = i > 0 ? ',' : '';
      const end = Math.min(items.length, i + PIECE);
      for (let k = i; k < end; k++) piece += k > i ? `,${textOf(items[k] as never)}` : textOf(items[k] as never);
      this.put(piece);
    }
    this.put(']');
  }

  private put(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const need = this.at + text.length * 3;
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.at);
      this.buf = grown;
    }
    this.at += this.buf.write(text, this.at);
  }
}
