// The receiver's bounds as plain data: which client an address counts as for the rate limit (every
// loopback address one client, an IPv6 client its /64), and hosts.json's book (at most its cap,
// the least recently heard let go first, written one host a line as valid JSON).
import { describe, expect, it } from 'vitest';
import { HostsBook } from '../../src/receive/hosts-book.js';
import { clientOf, InFlightBudget, rateLimiter } from '../../src/receive/limits.js';

describe('clientOf', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.0.0.2', 'loopback'],
    ['127.255.3.4', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.5', 'loopback'],
    ['10.1.2.3', '10.1.2.3'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:bbbb:cccc:dddd:eeee', '2001:db8:1:2::/64'],
    ['2001:0db8::9', '2001:db8:0:0::/64'],
    [undefined, 'unknown'],
  ])('%s → %s', (address, client) => {
    expect(clientOf(address)).toBe(client);
  });

  it('a bucket per client: 127.0.0.2 spends the tokens 127.0.0.1 left', () => {
    const allow = rateLimiter(1, () => 0);
    expect([allow(clientOf('127.0.0.1')), allow(clientOf('127.0.0.2')), allow(clientOf('127.0.0.3'))]).toEqual([true, true, false]);
  });

  it('bytes in flight: taken up to the budget, given back', () => {
    const b = new InFlightBudget(10);
    expect([b.take(6), b.take(5), b.take(4)]).toEqual([true, false, true]);
    b.give(6);
    expect(b.bytes).toBe(4);
  });
});

describe('HostsBook', () => {
  it('keeps the most recently heard hosts up to its cap, as valid JSON one host a line', () => {
    const book = new HostsBook(3);
    for (const [i, h] of ['a', 'b', 'c', 'a', 'd', '__proto__'].entries()) book.heard(h, 2, 1000 + i);
    const lines = [...book.lines()];
    expect(lines).toHaveLength(3 + 2);
    const doc = JSON.parse(lines.join('\n')) as { hosts: Record<string, { first_ms: number; last_ms: number; requests: number; records: number }> };
    expect(Object.keys(doc.hosts)).toEqual(['a', 'd', '__proto__']);
    expect(doc.hosts.a).toEqual({ first_ms: 1000, last_ms: 1003, requests: 2, records: 4 });
    expect(({} as Record<string, unknown>).last_ms).toBeUndefined();
  });
});
