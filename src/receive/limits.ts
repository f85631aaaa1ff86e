// The receiver's limits on what a sender can make it hold (issue 36 item 1): a request rate per
// client, where every loopback address is one client (127.0.0.2 is this machine too) and an IPv6
// client is its /64; a budget of request bytes in flight across all requests; and how many
// sessions are stored.
import { promises as fs } from 'node:fs';
import type { StatePaths } from '../files/paths.js';

/** The client a peer address counts as for the rate limit. */
export function clientOf(address: string | undefined): string {
  if (!address) return 'unknown';
  const a = address.toLowerCase();
  const v4 = a.startsWith('::ffff:') && a.includes('.') ? a.slice('::ffff:'.length) : a;
  if (v4 === '::1' || /^127\.\d+\.\d+\.\d+$/.test(v4)) return 'loopback';
  if (!v4.includes(':')) return v4;
  // IPv6: one client per /64 (a host is given a whole /64 and can take any address in it).
  const [head = '', tail = ''] = v4.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = v4.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** Buckets kept; past this the stalest half is let go (a sender cannot grow the map without bound). @defaultValue 10000 */
const BUCKETS_MAX = 10_000;

/** A token bucket per client: `rate` requests a second, bursts of twice as many. */
export function rateLimiter(rate: number, nowMs: () => number) {
  const buckets = new Map<string, { tokens: number; atMs: number }>();
  return (client: string): boolean => {
    const now = nowMs();
    let b = buckets.get(client);
    if (b) buckets.delete(client);
    else {
      if (buckets.size >= BUCKETS_MAX) {
        let drop = BUCKETS_MAX / 2;
        for (const k of buckets.keys()) {
          buckets.delete(k);
          if (--drop <= 0) break;
        }
      }
      b = { tokens: rate * 2, atMs: now };
    }
    b.tokens = Math.min(rate * 2, b.tokens + (Math.max(0, now - b.atMs) / 1000) * rate);
    b.atMs = now;
    buckets.set(client, b); // most recent last
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  };
}

/** Bytes of request bodies held at once, across every request; a request that would pass it is refused (503). */
export class InFlightBudget {
  private used = 0;
  constructor(readonly max: number) {}

  get bytes(): number {
    return this.used;
  }

  /** Take `n` bytes; false (nothing taken) when that would pass the budget. */
  take(n: number): boolean {
    if (this.used + n > this.max) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}

/** The sessions stored under telemetry/: a new one is admitted while there are fewer than `max`. */
export async function knownSessions(paths: StatePaths, max: number) {
  const known = new Set<string>();
  let listedAtMs = -Infinity;
  const list = async () => {
    listedAtMs = Date.now();
    known.clear();
    try {
      for (const f of await fs.readdir(paths.telemetryDir())) if (f.endsWith('.ndjson')) known.add(f.slice(0, -'.ndjson'.length));
    } catch {
      /* none yet */
    }
  };
  await list();
  return {
    max,
    admit(sessionId: string): boolean {
      if (known.has(sessionId)) return true;
      if (known.size >= max) {
        // Pruned since? Looked at again at most once a minute, in the background.
        if (Date.now() - listedAtMs > 60_000) void list();
        return false;
      }
      known.add(sessionId);
      return true;
    },
  };
}
