// How a failed Linear call is classified (retry or not) and turned into one ActionError.
// One table for every message; nothing here ever puts the API key in a message (see redact).
import { DEFAULTS } from '../../contracts/defaults.js';
import { LinearError, LinearErrorType, RatelimitedLinearError } from '@linear/sdk';
import { ActionError, type ErrorCode } from '../../contracts/errors.js';

/** What kind of failure a Linear call had; decides retry, code and message. */
export type LinearFailureKind = 'rate_limited' | 'transient' | 'auth' | 'forbidden' | 'input' | 'http_client' | 'unknown';

type RawErrors = { response?: { errors?: { extensions?: { code?: unknown; statusCode?: unknown } }[] } };

/** True if Linear said RATELIMITED, however the SDK classified it (it may arrive as HTTP 400). */
export function isRateLimited(e: unknown): boolean {
  if (e instanceof RatelimitedLinearError) return true;
  if (!(e instanceof LinearError)) return false;
  const errors = (e.raw as RawErrors | undefined)?.response?.errors ?? [];
  return errors.some((x) => x?.extensions?.code === 'RATELIMITED' || x?.extensions?.statusCode === 429);
}

const INPUT = new Set<string>([
  LinearErrorType.InvalidInput,
  LinearErrorType.UserError,
  LinearErrorType.GraphqlError,
  LinearErrorType.UsageLimitExceeded,
  LinearErrorType.BootstrapError,
]);
const TRANSIENT = new Set<string>([LinearErrorType.NetworkError, LinearErrorType.InternalError, LinearErrorType.LockTimeout]);

/** The failure class of anything a Linear call threw. */
export function classifyLinearError(e: unknown): LinearFailureKind {
  if (!(e instanceof LinearError)) return 'unknown';
  if (isRateLimited(e)) return 'rate_limited';
  if (e.type === LinearErrorType.AuthenticationError) {
    // The SDK calls every 4xx without a GraphQL error body "authentication"; only a 401 or an explicit one is.
    return e.status === 401 || (e.errors?.length ?? 0) > 0 ? 'auth' : 'http_client';
  }
  if (e.type === LinearErrorType.Forbidden || e.type === LinearErrorType.FeatureNotAccessible) return 'forbidden';
  if (e.type && INPUT.has(e.type)) return 'input';
  if (e.type && TRANSIENT.has(e.type)) return 'transient';
  // A refused connection or a timeout has no HTTP status; raw is fetch's TypeError or a TimeoutError.
  const raw = e.raw as { name?: unknown } | undefined;
  if (e.status === undefined && (raw instanceof TypeError || raw?.name === 'TimeoutError')) return 'transient';
  // A body that is not JSON (a proxy's 502 page, even when labelled application/json) is the path to
  // Linear failing, not Linear refusing us; any 5xx is too.
  if (raw instanceof SyntaxError || raw?.name === 'SyntaxError') return 'transient';
  if (e.status !== undefined && e.status >= 500) return 'transient';
  return 'unknown';
}

/** Network errors, 5xx and rate limits may pass; nothing else gets better by trying again. */
export function isRetryableLinearError(e: unknown): boolean {
  const kind = classifyLinearError(e);
  return kind === 'rate_limited' || kind === 'transient';
}

/** How long Linear asked us to wait, in ms: Retry-After (seconds), else the requests-reset epoch ms. */
export function rateLimitWaitMs(e: unknown, nowMs: number): number | undefined {
  if (!isRateLimited(e)) return undefined;
  // Only RatelimitedLinearError parses the headers; an untyped RATELIMITED reply still has them in raw.
  const headers = ((e as LinearError).raw as { response?: { headers?: Headers } } | undefined)?.response?.headers;
  const num = (v: number | undefined, header: string) => v ?? (Number(headers?.get?.(header) ?? NaN) || undefined);
  const r = e as Partial<RatelimitedLinearError>;
  const retryAfterSec = num(r.retryAfter, 'retry-after');
  if (retryAfterSec !== undefined && Number.isFinite(retryAfterSec)) return Math.max(0, retryAfterSec * 1000);
  const resetAtMs = num(r.requestsResetAt, 'x-ratelimit-requests-reset');
  if (resetAtMs !== undefined && Number.isFinite(resetAtMs)) return Math.max(0, resetAtMs - nowMs);
  return undefined;
}

/** `text` with every occurrence of `secret` replaced, in any letter case (the SDK capitalises messages). */
export function redact(text: string, secret: string): string {
  secret = secret.trim();
  if (!secret) return text;
  return text.replace(new RegExp(secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '[redacted]');
}

/** Where the failure happened, for the message. */
export interface FailureContext {
  ticketId: string;
  /** The step that failed, e.g. "look up the issue". */
  step: string;
  apiKey: string;
  apiUrl: string;
  /** Requests made for this step, retries included. */
  attempts: number;
  nowMs: number;
  signal?: AbortSignal;
}

/** The server's words, shortened, without the key. */
function detailOf(e: unknown, apiKey: string): string {
  const raw = e instanceof Error ? e.message : String(e);
  const oneLine = raw.replace(/\s+/g, ' ').trim();
  return redact(oneLine.length > 200 ? oneLine.slice(0, 197) + '...' : oneLine, apiKey) || 'no message';
}

/**
 * Why a Linear call was cancelled, in words: the escalation's time budget ran out, the watchdog
 * was stopped by a signal (the CLI aborts with `{ signal }`), or the reason's own message.
 */
export function abortCause(reason: unknown, apiKey: string): string {
  if (reason instanceof Error && reason.name === 'TimeoutError') return "Linear did not answer within the escalation's time budget";
  if (reason instanceof Error && reason.name === 'AbortError' && !reason.message.trim()) return 'the watchdog stopped waiting';
  if (reason instanceof Error) return detailOf(reason, apiKey);
  const signal = (reason as { signal?: unknown } | null)?.signal;
  if (typeof signal === 'string') return `the watchdog was stopped (${signal})`;
  if (typeof reason === 'string' && reason.trim()) return detailOf(reason, apiKey);
  return 'the watchdog stopped waiting';
}

/** The endpoint without any credentials or query string. */
export function endpointOf(apiUrl: string): string {
  try {
    const u = new URL(apiUrl);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'the configured linear.api_url';
  }
}

/** One ActionError for any failure of a Linear step: the message says which step, what Linear said and the fix. */
export function toActionError(e: unknown, ctx: FailureContext): ActionError {
  const where = `Linear escalation of ${ctx.ticketId} failed at "${ctx.step}"`;
  const detail = detailOf(e, ctx.apiKey);
  const status = e instanceof LinearError && e.status !== undefined ? `HTTP ${e.status}: ` : '';
  const tries = `${ctx.attempts} attempt${ctx.attempts === 1 ? '' : 's'}`;
  const cause = new Error(`${e instanceof Error ? e.constructor.name : typeof e}: ${detail}`);
  const make = (code: ErrorCode, message: string, hint: string, isRetryable = false) =>
    new ActionError(code, redact(message, ctx.apiKey), { hint: redact(hint, ctx.apiKey), isRetryable, cause });

  if (ctx.signal?.aborted) {
    return make(
      'tracker_unavailable',
      `${where}: cancelled after ${tries} (${abortCause(ctx.signal.reason, ctx.apiKey)}).`,
      'Safe to retry: the escalation is idempotent.',
      true,
    );
  }
  switch (classifyLinearError(e)) {
    case 'auth':
      return make(
        'tracker_auth',
        `${where}: the API key was rejected (${status}${detail}).`,
        'Set LINEAR_API_KEY to a valid Linear personal API key (Linear: Settings > Security & access). Not retried: the same key would be rejected again.',
      );
    case 'forbidden':
      return make(
        'tracker_auth',
        `${where}: the API key's user is not allowed to do this (${status}${detail}).`,
        "Use the key of a user who is a member of the issue's team. Not retried.",
      );
    case 'input':
      if (ctx.step === LOOKUP_STEP) {
        return make(
          'tracker_not_found',
          `${where}: Linear has no issue "${ctx.ticketId}" that this API key can see (${detail}).`,
          'Check ticket_id in the state file: expected a Linear issue identifier such as "ENG-123". Not retried.',
        );
      }
      return make('tracker_input', `${where}: Linear rejected the request (${status}${detail}).`, 'Not retried: the same request would be rejected again.');
    case 'http_client':
      return make(
        'tracker_input',
        `${where}: ${endpointOf(ctx.apiUrl)} answered ${status}${detail}; expected Linear's GraphQL API.`,
        `Check linear.api_url (default ${DEFAULTS.linear.api_url}). Not retried.`,
      );
    case 'rate_limited': {
      const wait = rateLimitWaitMs(e, ctx.nowMs);
      const asked = wait === undefined ? '' : `; Linear asked to wait ${Math.ceil(wait / 1000)} s`;
      return make(
        'tracker_unavailable',
        `${where}: rate limited by Linear after ${tries}${asked}.`,
        "Safe to retry later: the escalation is idempotent. The request quota is per Linear user, shared by all of that user's API keys.",
        true,
      );
    }
    case 'transient':
      return make(
        'tracker_unavailable',
        `${where}: Linear was unreachable or failing after ${tries} (${status}${detail}).`,
        'Safe to retry later: the escalation is idempotent. Check the network and https://linearstatus.com.',
        true,
      );
    case 'unknown':
      return make(
        'tracker_unavailable',
        `${where}: unexpected answer from Linear (${status}${detail}).`,
        'Not retried. Check linear.api_url and any proxy in between (a captive portal answers with HTML).',
      );
  }
}

/** The step name whose "invalid input" means the ticket id matches no issue. */
export const LOOKUP_STEP = 'look up the issue';
