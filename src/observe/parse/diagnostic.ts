// A problem with one line of an observed file (any agent's transcript, hook activity, telemetry):
// reported, never fatal. Pure.
import type { LineRef } from './line-splitter.js';

/** A problem with one line of an observed file: reported, never fatal. */
export interface ObserveDiagnostic {
  file: string;
  /** 1-based line, when known (reading started at byte 0). */
  line?: number;
  /** Byte offset of the line. */
  offset: number;
  message: string;
}

/** `file:line` when the line number is known, else `file@offset`. */
export function describeRef(file: string, ref: LineRef): string {
  return ref.lineNo !== undefined ? `${file}:${ref.lineNo}` : `${file}@${ref.offset}`;
}
