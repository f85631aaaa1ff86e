// ISO-8601 timestamps as they appear in our files. Pure.
import * as z from 'zod';

/** A timestamp with a zone (`Z` or `+02:00`); a bare local time is ambiguous and rejected. */
export const IsoTimestamp = z.iso.datetime({ offset: true, message: 'expected an ISO-8601 timestamp with a zone, e.g. "2026-04-02T10:00:00Z"' });

/** Milliseconds since the epoch of a timestamp IsoTimestamp accepted. */
export function isoToMs(iso: string): number {
  return Date.parse(iso);
}

/** `2026-04-02T10:00:00.000Z` → `2026-04-02T10:00:00Z` (seconds precision, as the seed writes). */
export function msToIso(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? iso.slice(0, -5) + 'Z' : iso;
}

/** The UTC calendar date of `ms`, `YYYY-MM-DD`: names the dispatch-log file of that day. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
