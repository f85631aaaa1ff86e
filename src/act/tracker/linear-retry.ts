// p-retry around one Linear call (DESIGN §9): exponential backoff with jitter for network
// errors, 5xx and rate limits only; everything else stops at once. Every wait goes through the
// injected `sleep` (p-retry's own timer is off), so tests never wait for real.
import pRetry, { AbortError } from 'p-retry';
import { realClock } from '../../deps.js';
import { backoffDelayMs } from '../../core/backoff.js';
import { isRetryableLinearError, rateLimitWaitMs } from './linear-errors.js';

/** Retry and wait settings of every Linear call. */
export interface LinearRetryOptions {
  /** Retries after the first attempt. @defaultValue 4 */
  retries?: number;
  /** Backoff before the first retry, in ms; doubled per retry, times a jitter in [1, 2). @defaultValue 500 */
  minDelayMs?: number;
  /** Largest backoff, in ms. @defaultValue 8000 */
  maxDelayMs?: number;
  /** Longest rate-limit wait (Retry-After) honoured, in ms; a longer one gives up at once. @defaultValue 60000 */
  maxRateLimitWaitMs?: number;
  /** Waits `ms`; resolves early when `signal` aborts. @defaultValue realClock.sleep */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Stops retrying (and any wait) when aborted. */
  signal?: AbortSignal;
  /** Jitter source in [0, 1). @defaultValue Math.random */
  random?: () => number;
  /** Current time in epoch ms (for the rate-limit reset header). @defaultValue Date.now */
  nowMs?: () => number;
}

export { backoffDelayMs };

/** Run `fn` until it succeeds, fails for good, or runs out of retries; rejects with the last original error. */
export function withLinearRetry<T>(fn: (attempt: number) => Promise<T>, o: LinearRetryOptions = {}): Promise<T> {
  const sleep = o.sleep ?? realClock.sleep;
  const random = o.random ?? Math.random;
  const nowMs = o.nowMs ?? Date.now;
  const maxRateLimitWaitMs = o.maxRateLimitWaitMs ?? 60_000;
  return pRetry(
    async (attempt) => {
      try {
        return await fn(attempt);
      } catch (e) {
        // AbortError: p-retry stops and rejects with `e` itself.
        if (!isRetryableLinearError(e)) throw new AbortError(e as Error);
        throw e;
      }
    },
    {
      retries: o.retries ?? 4,
      minTimeout: 0, // our sleep does the waiting
      signal: o.signal,
      onFailedAttempt: async ({ error, retriesConsumed, retriesLeft }) => {
        if (retriesLeft <= 0) return;
        const asked = rateLimitWaitMs(error, nowMs());
        if (asked !== undefined && asked > maxRateLimitWaitMs) throw error; // give up now, with this error
        const backoff = backoffDelayMs(retriesConsumed + 1, o.minDelayMs ?? 500, o.maxDelayMs ?? 8_000, random());
        await sleep(Math.max(backoff, asked ?? 0), o.signal);
      },
    },
  );
}
