// Periods on the command line: `--since 2w`, `--since 2026-04-01`, `--older-than 30d`. Pure.
import { InputError } from '../contracts/errors.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
const DAY_MS = UNIT_MS.d!;

/** `45s`, `90m`, `12h`, `30d`, `2w` → milliseconds; undefined when `text` is not a duration. */
export function parseDurationMs(text: string): number | undefined {
  const m = /^(\d+)([smhdw])$/.exec(text.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : undefined;
}

/**
 * The start of the period `text` names, as of `nowMs`: minutes and hours count back from now;
 * days and weeks are calendar days (UTC), so `0d` is today and `1d` yesterday and today; a date
 * (`2026-04-01`) or a time with a zone is that moment.
 */
export function parseSince(text: string, nowMs: number, flag = '--since'): number {
  const t = text.trim();
  const m = /^(\d+)([mhdw])$/.exec(t);
  if (m) {
    const n = Number(m[1]);
    if (m[2] === 'm' || m[2] === 'h') return nowMs - n * UNIT_MS[m[2]]!;
    const days = m[2] === 'w' ? 7 * n : n;
    return Math.floor(nowMs / DAY_MS) * DAY_MS - days * DAY_MS;
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(t) && !Number.isNaN(Date.parse(`${t}T00:00:00Z`))) return Date.parse(`${t}T00:00:00Z`);
  if (hasZone(t) && !Number.isNaN(Date.parse(t))) return Date.parse(t);
  throw new InputError('bad_flag', `${flag}: expected a duration (90m, 12h, 30d, 2w) or a date (2026-04-01, UTC), got ${JSON.stringify(text)}.`, {
    hint: `e.g. ${flag} 7d`,
  });
}

/** An ISO-8601 date-time that says its zone (`Z` or `±hh:mm`). */
export function hasZone(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text.trim());
}
