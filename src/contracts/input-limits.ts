// Bounds on a YAML (or JSON) document, checked in one pass before any parser runs (issue 24
// item 4): nesting deeper than any real file, and more rows than any real wave, are a clear
// input error (exit 2), never a parser's stack overflow or a heap of hundreds of MB. Pure.
import { InputError } from './errors.js';

/** Deepest nesting (block indentation, compact `- -`, flow `[ {`) a file may have; a state file needs ~6. */
export const MAX_NESTING_DEPTH = 64;

/** Most task rows a state file may list (counted as `ticket_id` keys, before parsing). A 10,000-agent wave fits. */
export const MAX_STATE_ROWS = 20_000;

export interface TooDeep {
  line: number;
  column: number;
}

/**
 * Where the nesting of `text` first exceeds `max`, or undefined. An upper bound of the parser's
 * depth: quoted strings, comments and block scalars (`|`, `>`) are skipped, so brackets in text
 * never count; a `[` or `{` opens a collection only where a value starts.
 */
export function findTooDeep(text: string, max = MAX_NESTING_DEPTH): TooDeep | undefined {
  const indents: number[] = [];
  let flow = 0;
  let quote: '"' | "'" | undefined;
  /** Inside a block scalar: lines indented more than this are its text. */
  let scalarIndent: number | undefined;
  for (let start = 0, line = 1; start <= text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let first = start;
    while (first < end && (text[first] === ' ' || text[first] === '\t')) first++;
    const indent = first - start;
    const isBlank = first >= end;
    if (scalarIndent !== undefined && (isBlank || indent > scalarIndent)) {
      start = end + 1;
      continue;
    }
    scalarIndent = undefined;
    if (!quote && flow === 0 && !isBlank && text[first] !== '#') {
      while (indents.length > 0 && indents[indents.length - 1]! >= indent) indents.pop();
      indents.push(indent);
    }
    let depth = indents.length;
    if (depth > max) return { line, column: indent + 1 };
    let isValueStart = !quote && flow === 0;
    let isTokenStart = true;
    for (let k = first; k < end; k++) {
      const c = text[k];
      if (quote) {
        if (quote === '"' && c === '\\') k++;
        else if (c === quote && !(quote === "'" && text[k + 1] === "'" && ++k)) quote = undefined;
        continue;
      }
      if (c === '#' && (k === first || text[k - 1] === ' ' || text[k - 1] === '\t')) break;
      if (c === ' ' || c === '\t') {
        isTokenStart = true;
        continue;
      }
      if (flow > 0) {
        if (c === '[' || c === '{') {
          if (depth + ++flow > max) return { line, column: k - start + 1 };
        } else if (c === ']' || c === '}') flow--;
        else if ((c === '"' || c === "'") && isTokenStart) quote = c;
        isTokenStart = c === ',' || c === '[' || c === '{' || c === ':';
        continue;
      }
      if (isValueStart) {
        if (c === '[' || c === '{') {
          flow = 1;
          if (depth + flow > max) return { line, column: k - start + 1 };
          isTokenStart = true;
          continue;
        }
        if (c === '-' && (k + 1 === end || text[k + 1] === ' ')) {
          if (++depth > max) return { line, column: k - start + 1 };
          continue;
        }
        if (c === '"' || c === "'") {
          quote = c;
          isValueStart = false;
          continue;
        }
        if (c === '|' || c === '>') {
          scalarIndent = indent;
          break;
        }
        isValueStart = false;
      }
      // `key: value`: a value starts after the colon.
      if (c === ':' && (k + 1 === end || text[k + 1] === ' ' || text[k + 1] === '\t')) isValueStart = true;
    }
    start = end + 1;
  }
  return undefined;
}

/** An input error when `text` nests deeper than MAX_NESTING_DEPTH (checked before any parser runs). */
export function checkNesting(text: string, file: string): InputError | undefined {
  const deep = findTooDeep(text);
  if (!deep) return undefined;
  return new InputError('input_too_large', `nested deeper than ${MAX_NESTING_DEPTH} levels (lists and mappings inside each other); nothing was parsed.`, {
    location: { file, line: deep.line, column: deep.column },
    hint: 'No state or config file nests this deep: the file is damaged or not what the watchdog reads. Write it again (docs/state-files.md shows each shape).',
  });
}

/** How many times `key` appears as a mapping key (`key:` or `"key":`): an upper bound of the rows that have it. */
export function countKeys(text: string, key: string): number {
  let n = 0;
  for (let at = text.indexOf(key); at >= 0; at = text.indexOf(key, at + key.length)) {
    let k = at + key.length;
    if (text[k] === '"' || text[k] === "'") k++;
    while (text[k] === ' ') k++;
    if (text[k] === ':') n++;
  }
  return n;
}
