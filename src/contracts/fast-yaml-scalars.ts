// The scalar half of fast-yaml.ts: how a plain scalar resolves (null, booleans, small integers),
// where a quoted one closes, and double-quoted escapes; `bail` leaves the subset. Pure.

/** Thrown inside the reader: the text is outside the subset (not necessarily invalid). */
export const BAIL = Symbol('bail');

export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

/** What the core schema reads as a number (or may): decline all but `SMALL_INT`. */
export const NUMBER_LIKE = /^[-+]?(?:0o[0-7]+|0x[0-9a-fA-F]+|\.(?:inf|Inf|INF|nan|NaN|NAN)|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$/;
const SMALL_INT = /^(?:0|[1-9][0-9]{0,14})$/;

export function bail(): never {
  throw BAIL;
}

/** One line of a plain scalar, trimmed; undefined when a comment follows it. Declines what could be a key or an indicator. */
export function plainPiece(text: string): string | undefined {
  const s = text.trimEnd();
  if (s.includes(': ') || s.endsWith(':')) bail();
  return s.includes(' #') ? undefined : s;
}

export function resolvePlain(s: string): Value {
  if (s.includes(': ') || s.endsWith(':')) bail();
  switch (s) {
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return null;
    case 'true':
    case 'True':
    case 'TRUE':
      return true;
    case 'false':
    case 'False':
    case 'FALSE':
      return false;
  }
  if (SMALL_INT.test(s)) return Number(s);
  if (NUMBER_LIKE.test(s)) bail();
  return s;
}

/** Index of the closing `'` in `s` (`''` is a quote), or -1. */
export function closingSingleQuote(s: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) !== 0x27) continue;
    if (s.charCodeAt(i + 1) === 0x27) i++;
    else return i;
  }
  return -1;
}

/** Index of the unescaped closing `"` in `s`, or -1. */
export function closingQuote(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return -1;
}

export const SIMPLE_ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '"': '"',
  '/': '/',
  '\\': '\\',
  ' ': ' ',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};
export const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

/** The content of a double-quoted line piece with its escapes resolved. */
export function unescape(s: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = s[++i];
    if (e === undefined) bail();
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    const n = HEX_LENGTH[e];
    if (n === undefined) bail();
    const hex = s.slice(i + 1, i + 1 + n);
    if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) bail();
    const code = parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) bail();
    out += String.fromCodePoint(code);
    i += n;
  }
  return out;
}
