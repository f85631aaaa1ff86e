import { describe, expect, it } from 'vitest';
import { hasZone, parseDurationMs, parseSince } from '../../src/core/period.js';

const now = Date.parse('2026-04-10T15:30:00Z');

describe('periods', () => {
  it.each([
    ['90m', '2026-04-10T14:00:00.000Z'],
    ['12h', '2026-04-10T03:30:00.000Z'],
    ['0d', '2026-04-10T00:00:00.000Z'],
    ['1d', '2026-04-09T00:00:00.000Z'],
    ['30d', '2026-03-11T00:00:00.000Z'],
    ['2w', '2026-03-27T00:00:00.000Z'],
    ['2026-04-01', '2026-04-01T00:00:00.000Z'],
    ['2026-04-01T12:00:00+02:00', '2026-04-01T10:00:00.000Z'],
  ])('--since %s starts at %s', (text, iso) => {
    expect(new Date(parseSince(text, now)).toISOString()).toBe(iso);
  });

  it.each(['last week', '30', '2026-04-01T12:00:00', '2026-13-01', '-1d'])('--since %j is refused with the forms it accepts', (text) => {
    expect(() => parseSince(text, now)).toThrow(`--since: expected a duration (90m, 12h, 30d, 2w) or a date (2026-04-01, UTC), got ${JSON.stringify(text)}.`);
  });

  it('durations and zones', () => {
    expect(parseDurationMs('2w')).toBe(14 * 86_400_000);
    expect(parseDurationMs('1y')).toBeUndefined();
    expect(hasZone('2026-04-02T10:10:00Z')).toBe(true);
    expect(hasZone('2026-04-02T10:10:00.123-05:00')).toBe(true);
    expect(hasZone('2026-04-02T10:10:00')).toBe(false);
  });
});
