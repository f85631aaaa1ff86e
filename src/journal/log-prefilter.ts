// Start-up reads every day of the dispatch log, every epic's lines, but folds another epic's line
// only for a few events (core/history.ts CROSS_EPIC_EVENTS). A line's own bytes are looked at
// first, without decoding or parsing it, when it opens as DispatchLog writes every line:
//   {"timestamp_utc":"<24 characters>","event":"<name>","epic_id":"<id>","run_id":"<id>","ticket_id":"<id>",…}
// (plain strings: no escapes) and ends with its closing brace. Then
// - another epic's line of an event that cannot change this epic's history is skipped: neither
//   folded nor checked (a corrupt one is the concern of its own epic's watchdog, which parses it);
// - another epic's stall_detected or redispatch only feeds its ticket's totals: it is kept as a
//   reference to its bytes (journal/ticket-refs.ts), checked against the schema when read back;
// - anything else is parsed as before. A torn line (no closing brace), one with escapes in those
//   fields or one of another shape is always parsed. Pure.
import { CROSS_EPIC_EVENTS } from '../core/history.js';

export const PARSE = 0;
export const SKIP = 1;
/** Another epic's stall_detected (isStall) or redispatch: its ticket is bytes [ticketStart, ticketEnd). */
export const CROSS_REF = 2;

const OPEN = Buffer.from('{"timestamp_utc":"');
const TS_LEN = 24;
const EVENT = Buffer.from('","event":"');
const EPIC = Buffer.from('","epic_id":"');
const RUN = Buffer.from('","run_id":"');
const TICKET = Buffer.from('","ticket_id":"');
const STALL = Buffer.from('stall_detected');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when `want` stands at `p` in `buf`, before `end`. */
function at(buf: Buffer, p: number, end: number, want: Buffer): boolean {
  if (p + want.length > end) return false;
  for (let i = 0; i < want.length; i++) if (buf[p + i] !== want[i]) return false;
  return true;
}

/** The closing quote of a plain string starting at `p`, or -1 when it has an escape or does not close before `end`. */
function plainEnd(buf: Buffer, p: number, end: number): number {
  for (let i = p; i < end; i++) {
    const b = buf[i];
    if (b === QUOTE) return i;
    if (b === BACKSLASH) return -1;
  }
  return -1;
}

const same = (buf: Buffer, s: number, e: number, want: Buffer) => e - s === want.length && at(buf, s, e, want);

export class LinePrefilter {
  private readonly epic: Buffer;
  private readonly cross: Buffer[];
  ticketStart = 0;
  ticketEnd = 0;
  isStall = false;

  constructor(epicId: string) {
    this.epic = Buffer.from(epicId, 'utf8');
    this.cross = [...CROSS_EPIC_EVENTS].map((n) => Buffer.from(n));
  }

  /** Bytes [s, e) name one of CROSS_EPIC_EVENTS (a loop, not `some`: no closure per line of a million). */
  private isCross(buf: Buffer, s: number, e: number): boolean {
    for (let i = 0; i < this.cross.length; i++) if (same(buf, s, e, this.cross[i]!)) return true;
    return false;
  }

  /** What to do with the line at bytes [s, e) of `buf`: PARSE, SKIP or CROSS_REF. */
  classify(buf: Buffer, s: number, e: number): number {
    if (buf[e - 1] !== 0x7d || !at(buf, s, e, OPEN)) return PARSE;
    let p = s + OPEN.length;
    for (let i = p; i < p + TS_LEN; i++) if (buf[i] === QUOTE || buf[i] === BACKSLASH) return PARSE;
    p += TS_LEN;
    if (!at(buf, p, e, EVENT)) return PARSE;
    const evS = p + EVENT.length;
    const evE = plainEnd(buf, evS, e);
    if (evE < 0 || !at(buf, evE, e, EPIC)) return PARSE;
    const epS = evE + EPIC.length;
    const epE = plainEnd(buf, epS, e);
    if (epE < 0 || same(buf, epS, epE, this.epic)) return PARSE;
    if (!this.isCross(buf, evS, evE)) return SKIP;
    if (!at(buf, epE, e, RUN)) return PARSE;
    const runE = plainEnd(buf, epE + RUN.length, e);
    if (runE < 0 || !at(buf, runE, e, TICKET)) return PARSE;
    const tS = runE + TICKET.length;
    const tE = plainEnd(buf, tS, e);
    if (tE <= tS) return PARSE;
    this.ticketStart = tS;
    this.ticketEnd = tE;
    this.isStall = same(buf, evS, evE, STALL);
    return CROSS_REF;
  }
}
