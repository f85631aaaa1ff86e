// The fast path of the transcript fold (issue 37): a record whose bulk the fold never reads is
// recognised from its first bytes and folded without decoding or JSON.parse of that bulk.
// Claude Code 2.1.300+ writes per model request an `api-request-shape` (19–38 KB) and
// `api-request-blob` (1–8 KB), and attachments of 4–56 KB (`prompt_snapshot`, `skill_listing`):
// most of a busy transcript's bytes. Pure; exact: whatever it cannot vouch for (a short line, a
// type the fold reads, an odd shape, a line that is not one whole JSON object) it declines, and the
// caller parses the line in full (the one thing it does not vouch for: a line balanced to its last
// brace with a bad token inside is folded as a record of its type, not reported as a bad line).
// test/unit/skim-record.test.ts folds real 2.1.332 transcripts both
// ways and compares every state.
import { SKIMMED_ATTACHMENTS } from './records/queue-operation.js';
import { RECORD_FAMILIES } from './records/table.js';

/** Shorter lines are parsed in full: JSON.parse of a few hundred bytes costs less than deciding. */
export const SKIM_MIN_BYTES = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const TYPE_FIRST = Buffer.from('{"type":"');
const ATTACHMENT_KEY = Buffer.from('"attachment"');
/** Where Claude Code puts it: after `parentUuid`, `isSidechain` and `agentId`, well within the first bytes. */
const ATTACHMENT_AT = Buffer.from('"attachment":{"type":"');
const ATTACHMENT_WITHIN = 400;
const COMPACT_KEY = Buffer.from('"isCompactSummary"');

/** What the fast path makes of a line: declined (parse it in full), a record of a type the fold does not know, or a shorter text to parse. */
export type Skim = undefined | { unknownType: string } | { text: string };

/** The index just past the JSON string that starts at `i` (a quote), or -1. */
function skipString(b: Buffer, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, j);
    if (q === -1) return -1;
    // An escaped quote has an odd run of backslashes before it.
    let k = q - 1;
    while (k > i && b[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** The index just past the JSON value that starts at `i`, or -1 (structure only: a full parse still judges the rest). */
function skipValue(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c !== OPEN_BRACE && c !== 0x5b) {
    // A number or literal: up to the next delimiter.
    let j = i;
    while (j < b.length && b[j] !== 0x2c && b[j] !== CLOSE_BRACE && b[j] !== 0x5d) j++;
    return j;
  }
  let depth = 0;
  let j = i;
  while (j < b.length) {
    const x = b[j]!;
    if (x === QUOTE) {
      j = skipString(b, j);
      if (j === -1) return -1;
      continue;
    }
    if (x === OPEN_BRACE || x === 0x5b) depth++;
    else if (x === CLOSE_BRACE || x === 0x5d) {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  return -1;
}

const startsWith = (b: Buffer, prefix: Buffer, at = 0) => b.length >= at + prefix.length && b.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;

/** A record whose first key is its `type`, of a type the fold does not know (`api-request-shape`…). */
function skimUnknownType(b: Buffer): Skim {
  if (!startsWith(b, TYPE_FIRST)) return undefined;
  const end = b.indexOf(QUOTE, TYPE_FIRST.length);
  if (end === -1 || end - TYPE_FIRST.length > 64) return undefined;
  const type = b.toString('latin1', TYPE_FIRST.length, end);
  if (Object.hasOwn(RECORD_FAMILIES, type) || b.subarray(0, end).indexOf(BACKSLASH) !== -1) return undefined;
  // The fold reads one more field of an unknown record (records/turn.ts): a compact summary flag.
  if (b.indexOf(COMPACT_KEY) !== -1) return undefined;
  // One whole object, braces and quotes balanced to its last byte: a torn line glued to the next
  // record is not (the full parse reports it). Structure only: a balanced line with a bad token
  // inside (`{"type":"x","a" "b"}`) is taken as a record of its type, unreported.
  if (skipValue(b, 0) !== b.length) return undefined;
  return { unknownType: type };
}

/**
 * An `attachment` record whose attachment is one the fold never reads (SKIMMED_ATTACHMENTS): the
 * line with that attachment's body cut out, every top-level field kept for the fold to read.
 */
function skimAttachment(b: Buffer): Skim {
  // Most lines are no attachment: a look at the first bytes, before any walk.
  if (b.subarray(0, ATTACHMENT_WITHIN).indexOf(ATTACHMENT_AT) === -1) return undefined;
  // Walk the top-level keys (structure only) to the attachment's value.
  let i = 1;
  while (i < b.length && b[i] === QUOTE) {
    const keyEnd = skipString(b, i);
    if (keyEnd === -1 || b[keyEnd] !== 0x3a) return undefined;
    const valueAt = keyEnd + 1;
    if (keyEnd - i === ATTACHMENT_KEY.length && startsWith(b, ATTACHMENT_KEY, i)) {
      if (b[valueAt] !== OPEN_BRACE || !startsWith(b, TYPE_FIRST, valueAt)) return undefined;
      const typeEnd = b.indexOf(QUOTE, valueAt + TYPE_FIRST.length);
      const type = typeEnd === -1 ? '' : b.toString('latin1', valueAt + TYPE_FIRST.length, typeEnd);
      if (!SKIMMED_ATTACHMENTS.has(type)) return undefined;
      const valueEnd = skipValue(b, valueAt);
      if (valueEnd === -1) return undefined;
      return { text: `${b.toString('utf8', 0, valueAt)}{"type":"${type}"}${b.toString('utf8', valueEnd)}` };
    }
    const next = skipValue(b, valueAt);
    if (next === -1 || b[next] !== 0x2c) return undefined;
    i = next + 1;
  }
  return undefined;
}

/**
 * The fast path for one complete line (without its newline): undefined to parse it in full.
 * Only a line that is one JSON object (`{` … `}`, nothing around it) is skimmed.
 */
export function skimTranscriptLine(b: Buffer): Skim {
  if (b.length < SKIM_MIN_BYTES || b[0] !== OPEN_BRACE || b[b.length - 1] !== CLOSE_BRACE) return undefined;
  return skimUnknownType(b) ?? skimAttachment(b);
}
