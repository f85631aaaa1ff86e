// One webhook POST with p-retry: exponential backoff with jitter, only for a network error, a
// timeout, 5xx and 429 (honouring Retry-After); any other answer stops at once, a redirect too
// (refused, never followed). Bounded (issue 36 item 3): the whole exchange, answer body included,
// ends within timeout_ms, and at most BODY_MAX_BYTES of the body are read. The URL is a secret (a
// Slack URL embeds a token): no message, error or log line built here contains it.
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
  /** Awaited before a retry's POST (attempt 2 on): the notifier marks the send begun again. */
  beforeRetryPost?: (attempt: number) => Promise<void>;
  /** Awaited after a failed attempt, before the wait for the next: no POST is in flight until it ends. */
  beforeRetryWait?: (attempts: number, error: string) => Promise<void>;
}

/** Bytes of an answer's body read (then the rest is dropped): a webhook's answer is not ours to keep. @defaultValue 4096 */
export const BODY_MAX_BYTES = 4096;

export type WebhookResult =
  | { ok: true; status: number; attempts: number }
  | { ok: false; error: string; attempts: number; status?: number; wasStopped: boolean };

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

/** Read at most `max` bytes of `res`'s body, until it ends or `signal` aborts; the rest is cancelled, never buffered. */
async function skimBody(res: Response, max: number, signal: AbortSignal): Promise<void> {
  const reader = res.body?.getReader();
  if (!reader) return;
  let stop: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const onAbort = () => stop?.();
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (let got = 0; got < max; ) {
      const r = await Promise.race([reader.read(), stopped.then(() => undefined)]);
      if (!r || r.done) return;
      got += r.value.byteLength;
    }
  } catch {
    // A body cut short: the answer's status is what counts.
  } finally {
    signal.removeEventListener('abort', onAbort);
    reader.cancel().catch(() => undefined);
  }
}

async function postOnce(url: string, body: string, headers: Record<string, string>, o: WebhookRetryOptions): Promise<number> {
  // One deadline for the whole exchange: connecting, the answer's headers and its body.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException(`no answer within ${o.timeoutMs} ms`, 'TimeoutError')), o.timeoutMs);
  const signal = AbortSignal.any([deadline.signal, ...(o.signal ? [o.signal] : [])]);
  try {
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body, signal, redirect: 'manual' });
    } catch (e) {
      throw describeThrown(e, o.timeoutMs, o.signal);
    }
    await skimBody(res, BODY_MAX_BYTES, signal);
    if (res.status >= 200 && res.status < 300) return res.status;
    // A redirect is refused: following it would POST the notice (and its key) somewhere not configured.
    if (res.status >= 300 && res.status < 400)
      throw new PostFailure(`the webhook answered HTTP ${res.status}: a redirect, not followed (configure the URL it points to)`, false, res.status);
    const isRetryable = res.status >= 500 || res.status === 429;
    throw new PostFailure(`the webhook answered HTTP ${res.status}`, isRetryable, res.status, retryAfterMs(res.headers.get('retry-after'), Date.now()));
  } finally {
    clearTimeout(timer);
  }
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
        if (attempts > 1) await o.beforeRetryPost?.(attempts);
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
          if (retriesLeft <= 0 || (error instanceof PostFailure && !error.isRetryable)) return;
          await o.beforeRetryWait?.(attempts, error instanceof PostFailure ? error.message : 'the POST failed');
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
    return {
      ok: false,
      error: wasStopped ? 'stopped before the webhook answered' : (failure?.message ?? 'the POST failed'),
      attempts,
      ...(failure?.status ? { status: failure.status } : {}),
      wasStopped,
    };
  }
}
