// A fast reader for the plain block YAML that orchestrators write (state files, configs): nested
// mappings with snake_case keys, sequences of them, plain, single- and double-quoted scalars.
// It returns the same value as the `yaml` package's `parseDocument(text).toJS()` for every text
// it accepts, and `undefined` (so the caller runs the full parser, which also gives positioned
// errors) for anything else: flow collections, block scalars, anchors, tags, multi-line plain
// and single-quoted scalars, numbers other than small decimals, tabs, duplicate keys, ….
// ~20× cheaper than the full parser on a 427 KB state file, which builds a document with
// positions for every node. Pure. `test/unit/fast-yaml.test.ts` compares the two.
import { BAIL, bail, NUMBER_LIKE, closingQuote, closingSingleQuote, plainPiece, resolvePlain, unescape, type Value } from './fast-yaml-scalars.js';

/** A character no accepted text contains: a tab, CR, BOM, control or YAML 1.1 line-break character. */
const REJECTED_CHARS = /[\x00-\x09\x0b-\x1f\x7f\u0085\u2028\u2029\ufeff]/;
/** `key:` or `"key":`, then nothing or spaces and the value. */
const KEY = /^(?:([A-Za-z_][A-Za-z0-9_-]*)|"([A-Za-z_][A-Za-z0-9_-]*)"):(?: +(.*))?$/;
/** Keys the full parser would resolve to something other than their text (null, booleans), or that are special in JS. */
const SPECIAL_KEY = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE|__proto__)$/;
/** First characters a plain scalar may not start with here (indicators, quotes, comments, flow). */
const PLAIN_FIRST = new Set([...'-?:,[]{}#&*!|>\'"%@`']);

/** The value of `text`, or undefined when it is outside the subset this reader accepts. */
export function fastYaml(text: string): unknown {
  if (REJECTED_CHARS.test(text)) return undefined;
  try {
    return new Reader(text).document();
  } catch (e) {
    if (e === BAIL) return undefined;
    throw e;
  }
}

const indentOf = (line: string) => {
  let i = 0;
  while (line.charCodeAt(i) === 0x20) i++;
  return i;
};
const isBlank = (line: string) => indentOf(line) === line.length;
/** What may follow a closing quote: spaces, then a comment only after at least one. */
const isBlankOrComment = (rest: string) => {
  const n = indentOf(rest);
  return n === rest.length || (n > 0 && rest.charCodeAt(n) === 0x23);
};

class Reader {
  private readonly lines: string[];
  /** Index of the next line to read. */
  private at = 0;

  constructor(text: string) {
    this.lines = text.split('\n');
  }

  document(): Value {
    const first = this.peek();
    if (first === undefined || indentOf(first) !== 0) bail();
    if (first.trimEnd() === '{}') {
      this.at++;
      if (this.peek() !== undefined) bail();
      return {};
    }
    const value = this.mapping(0);
    if (this.peek() !== undefined) bail();
    return value;
  }

  /** The next line that is neither blank nor a comment (not consumed), skipping the others. */
  private peek(): string | undefined {
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!;
      if (isBlank(line)) {
        this.at++;
        continue;
      }
      if (line.charCodeAt(indentOf(line)) === 0x23 /* # */) {
        this.at++;
        continue;
      }
      const head = line.slice(0, 3);
      if (head === '---' || head === '...' || line.startsWith('%')) bail();
      return line;
    }
    return undefined;
  }

  /** A block mapping whose keys are at column `indent`; `firstRest`: its first entry, already cut from a `- ` line. */
  private mapping(indent: number, firstRest?: string): Value {
    const out: { [key: string]: Value } = {};
    let entry = firstRest;
    for (;;) {
      if (entry === undefined) {
        const line = this.peek();
        if (line === undefined) break;
        const ind = indentOf(line);
        if (ind < indent) break;
        if (ind > indent) bail();
        this.at++;
        entry = line.slice(ind);
      }
      const m = KEY.exec(entry);
      if (!m) bail();
      const key = (m[1] ?? m[2])!;
      if (SPECIAL_KEY.test(key) || Object.hasOwn(out, key)) bail();
      out[key] = m[3] === undefined || m[3] === '' ? this.nested(indent) : this.scalar(m[3], indent);
      entry = undefined;
    }
    return out;
  }

  /** The value of `key:` with nothing after it: a deeper block, a sequence at the key's own column, or null. */
  private nested(indent: number): Value {
    const line = this.peek();
    if (line === undefined) return null;
    const ind = indentOf(line);
    const isItem = line.startsWith('- ', ind) || (line.length === ind + 1 && line.endsWith('-'));
    if (ind > indent) return isItem ? this.sequence(ind) : this.mapping(ind);
    if (ind === indent && isItem) return this.sequence(ind);
    return null;
  }

  /** A block sequence whose dashes are at column `indent`. */
  private sequence(indent: number): Value[] {
    const out: Value[] = [];
    for (;;) {
      const line = this.peek();
      if (line === undefined) break;
      const ind = indentOf(line);
      if (ind < indent) break;
      if (ind > indent || !line.startsWith('- ', ind)) {
        if (ind === indent && !line.startsWith('-', ind)) break; // the parent mapping's next key
        bail();
      }
      this.at++;
      const after = line.slice(ind + 2);
      const column = ind + 2 + indentOf(after);
      const rest = after.slice(column - ind - 2);
      if (rest === '' || rest.startsWith('- ') || rest === '-') bail();
      if (KEY.test(rest)) out.push(this.mapping(column, rest));
      else out.push(this.scalar(rest, indent));
    }
    return out;
  }

  /** A scalar starting at `text` (the rest of its line); its node belongs to a block at column `indent`. */
  private scalar(text: string, indent: number): Value {
    const c = text[0]!;
    if (c === '"' || c === "'") return this.quoted(text, indent, c);
    if (text === '[]') return [];
    if (text === '{}') return {};
    return this.plain(text, indent);
  }

  /**
   * A plain scalar, resolved by the core schema (null, booleans, small integers, else text). It
   * continues on deeper lines (folded: a break is a space, an empty line a newline), as writers
   * fold long text.
   */
  private plain(text: string, indent: number): Value {
    if (PLAIN_FIRST.has(text[0]!)) bail();
    const first = plainPiece(text);
    if (first === undefined) return resolvePlain(text.slice(0, text.indexOf(' #')).trimEnd()); // a comment ends it
    let out = first;
    let isMultiLine = false;
    for (let i = this.at, empties = 0; i < this.lines.length; i++) {
      const line = this.lines[i]!;
      if (isBlank(line)) {
        empties++;
        continue;
      }
      const ind = indentOf(line);
      if (ind <= indent || line.charCodeAt(ind) === 0x23 /* # */) break;
      const piece = line.slice(ind);
      if (PLAIN_FIRST.has(piece[0]!)) bail();
      const more = plainPiece(piece);
      if (more === undefined) bail(); // a comment after a continuation: not worth reading
      out += (empties > 0 ? '\n'.repeat(empties) : ' ') + more;
      isMultiLine = true;
      empties = 0;
      this.at = i + 1;
    }
    return isMultiLine ? (NUMBER_LIKE.test(out) ? bail() : out) : resolvePlain(out);
  }

  /** A quoted scalar, folded across lines as YAML does (a break is a space, an empty line a newline). */
  private quoted(text: string, indent: number, q: '"' | "'"): string {
    const isDouble = q === '"';
    const unquote = isDouble ? unescape : (s: string) => s.replaceAll("''", "'");
    let out = '';
    let line = text.slice(1);
    for (let isFirst = true; ; isFirst = false) {
      // Leading white space of a continuation line is folded away.
      if (!isFirst) line = line.slice(indentOf(line));
      const close = isDouble ? closingQuote(line) : closingSingleQuote(line);
      if (close >= 0) {
        out += unquote(line.slice(0, close));
        if (!isBlankOrComment(line.slice(close + 1))) bail();
        return out;
      }
      // The line break: escaped (`\` at the end of a double-quoted line: nothing), or folded.
      let trailing = 0;
      while (isDouble && line.charCodeAt(line.length - 1 - trailing) === 0x5c /* \ */) trailing++;
      const isEscapedBreak = trailing % 2 === 1;
      if (isEscapedBreak) {
        out += unquote(line.slice(0, -1));
      } else {
        if (line.endsWith(' ')) bail(); // trailing space (dropped, or an escaped one kept): not worth telling apart
        out += unquote(line);
      }
      let empties = 0;
      for (;;) {
        const next = this.lines[this.at];
        if (next === undefined) bail();
        this.at++;
        if (!isBlank(next)) {
          if (indentOf(next) <= indent) bail();
          line = next;
          break;
        }
        empties++;
      }
      if (!isEscapedBreak) out += empties > 0 ? '\n'.repeat(empties) : ' ';
      else if (empties > 0) bail();
    }
  }
}
