// One webhook POST with p-retry: exponential backoff with jitter, only for a network error, a
// timeout, 5xx and 429 (honouring Retry-After); any other answer stops at once. The URL is a
// secret (a Slack URL embeds a token): no message, error or log line built here contains it.
import pRetry, { AbortError } from 'p-retry';
import { realClock } from '../../deps.js';
import { backoffDelayMs } from '../../core/backoff.js';

export interface WebhookRetryOptions {
  /** One POST's deadline in ms. @defaultValue DEFAULTS.notifications.timeout_ms */
  timeoutMs: number;
  /** Retries after the first POST. @defaultValue DEFAULTS.notifications.retries */
  retries: number;
  /** Backoff before the first retry, in ms; doubled per retry, times a jitter in [1, 2). @defaultValue 1000 */
  minDelayMs?: number;
  /** Largest backoff (and longest Retry-After honoured), in ms. @defaultValue 30000 */
  maxDelayMs?: number;
  /** Waits `ms`; resolves early when `signal` aborts. @defaultValue realClock.sleep */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The watchdog is stopping: the POST in flight and any wait end at once. */
  signal?: AbortSignal;
  random?: () => number;
  /** Called just before each POST is sent (the crash point of the tests sits after it). */
  onAttempt?: (attempt: number) => void;
}

export type WebhookResult = { ok: true; status: number; attempts: number } | { ok: false; error: string; attempts: number; status?: number; wasStopped: boolean };

/** A failed POST, said without the URL. */
class PostFailure extends Error {
  constructor(
    message: string,
    readonly isRetryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** `Retry-After` as ms (seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (!header) return undefined;
  const s = Number(header);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** What a fetch that threw says, by code only: undici's messages and causes may carry the URL. */
function describeThrown(e: unknown, timeoutMs: number, stop?: AbortSignal): PostFailure {
  if (stop?.aborted) return new PostFailure('stopped before the webhook answered', false);
  const err = e as { name?: string; cause?: { code?: string; name?: string } };
  if (err?.name === 'TimeoutError' || err?.cause?.name === 'TimeoutError') return new PostFailure(`no answer within ${timeoutMs} ms`, true);
  const code = err?.cause?.code;
  return new PostFailure(`network error${code && /^[A-Z_]+$/.test(code) ? ` (${code})` : ''}`, true);
}

async function postOnce(url: string, body: string, headers: Record<string, string>, o: WebhookRetryOptions): Promise<number> {
  const signals = [AbortSignal.timeout(o.timeoutMs), ...(o.signal ? [o.signal] : [])];
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.any(signals), redirect: 'error' });
  } catch (e) {
    throw describeThrown(e, o.timeoutMs, o.signal);
  }
  // The body is not ours to keep; read it off so the connection is released.
  await res.arrayBuffer().catch(() => undefined);
  if (res.status >= 200 && res.status < 300) return res.status;
  const isRetryable = res.status >= 500 || res.status === 429;
  throw new PostFailure(`the webhook answered HTTP ${res.status}`, isRetryable, res.status, retryAfterMs(res.headers.get('retry-after'), Date.now()));
}

/** POST `body` to `url` until a 2xx, a non-retryable answer, the last retry, or the stop signal. */
export async function postWebhook(url: string, body: string, headers: Record<string, string>, o: WebhookRetryOptions): Promise<WebhookResult> {
  const sleep = o.sleep ?? realClock.sleep;
  const random = o.random ?? Math.random;
  const maxDelayMs = o.maxDelayMs ?? 30_000;
  let attempts = 0;
  try {
    const status = await pRetry(
      async () => {
        attempts++;
        o.onAttempt?.(attempts);
        try {
          return await postOnce(url, body, headers, o);
        } catch (e) {
          if (e instanceof PostFailure && e.isRetryable) throw e;
          throw new AbortError(e as Error);
        }
      },
      {
        retries: o.retries,
        minTimeout: 0, // our sleep does the waiting
        signal: o.signal,
        onFailedAttempt: async ({ error, retriesConsumed, retriesLeft }) => {
          if (retriesLeft <= 0) return;
          const asked = error instanceof PostFailure ? error.retryAfterMs : undefined;
          const backoff = backoffDelayMs(retriesConsumed + 1, o.minDelayMs ?? 1_000, maxDelayMs, random());
          await sleep(Math.min(maxDelayMs, Math.max(backoff, asked ?? 0)), o.signal);
        },
      },
    );
    return { ok: true, status, attempts };
  } catch (e) {
    const failure = e instanceof PostFailure ? e : undefined;
    const wasStopped = Boolean(o.signal?.aborted);
    return { ok: false, error: wasStopped ? 'stopped before the webhook answered' : (failure?.message ?? 'the POST failed'), attempts, ...(failure?.status ? { status: failure.status } : {}), wasStopped };
  }
}
