// What every record family (one Claude Code transcript record `type`) provides to the fold in
// parse-transcript-record.ts, and the field readers the families share. Pure: no I/O, no clock.
import type { TranscriptState } from '../transcript-state.js';

export type Rec = Record<string, unknown>;
export const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** An epoch in seconds (a rate limit's `resetsAt`) as epoch ms; undefined unless a date can hold it (a hostile 1e20 would make `toISOString` throw). */
export const epochSecondsMs = (v: unknown): number | undefined => {
  const s = num(v);
  return s !== undefined && s > 0 && s < 8.64e12 ? s * 1000 : undefined;
};

/**
 * When a record was written: its `timestamp`, else its `written_at`. Claude Code 2.1.337 stamps
 * the stream-json records that carry no `timestamp` (`system/*`, `result`: an `api_retry`, a
 * hook's start) with `written_at`; older versions leave them undated.
 */
export const recordTime = (rec: Rec): string | undefined => str(rec.timestamp) ?? str(rec.written_at);

/** Own keys only: a record type or subtype named like an Object.prototype member (`constructor`) finds no row. */
export const rowOf = <T>(table: Readonly<Record<string, T>>, key: unknown): T | undefined =>
  typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : undefined;

/** Who a record shows at work: used by `replay` to tell whether the agent went on after a stall. */
export type RecordActor = 'agent' | 'human' | 'interrupt' | 'harness';

/** What a record means for the turn, beyond its actor (records/turn.ts reads these). */
export interface RecordMarks {
  /** A local command the human typed (`/model`, `/login`) or its output: the human's, not the agent's. */
  isLocalCommand?: boolean;
  /** A `compact_boundary`: `manual` for the human's `/compact`. */
  compact?: 'manual' | 'auto';
  /** A new run begins in the same file (stream-json `system/init`). */
  isRunStart?: boolean;
  /** A turn ended (`system/turn_duration`, `stop_hook_summary`). */
  isTurnEnd?: boolean;
  /** Teammate messages delivered to a lead: they wake it, though no human typed them. */
  isTeamWake?: boolean;
}

/** What the fold knows of a record when a family applies it. */
export interface RecordContext {
  atMs: number | undefined;
  actor: RecordActor;
  marks: RecordMarks;
  /** A turn had ended before this record. */
  isAfterTurnEnd: boolean;
}

/** One record family: a row of RECORD_FAMILIES (records/table.ts). */
export interface RecordFamily {
  /**
   * Records of this type are the session's own (its identity, version and activity time count);
   * false for queued input and for types we do not know.
   */
  readonly isSession: boolean;
  /** A harness note (`system/*`): it neither ends a stretch of API retries nor a manual `/compact`. */
  readonly isHarnessNote: boolean;
  actor(rec: Rec): RecordActor;
  marks(rec: Rec): RecordMarks;
  /** Fold the record into `s` (after the turn bookkeeping). */
  apply(s: TranscriptState, rec: Rec, ctx: RecordContext): void;
}

export const NO_MARKS: RecordMarks = Object.freeze({});

/** Text of a message's `content`: a string, or the `text` of each block (joined by newlines). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isRec(b) ? (str(b.text) ?? '') : '')).join('\n');
}
