// Exponential backoff with jitter, shared by every retried call (Linear, webhooks). Pure.

/** Backoff before retry `retry` (1-based): min × 2^(retry−1) × (1 + jitter), capped at max. */
export function backoffDelayMs(retry: number, minDelayMs: number, maxDelayMs: number, jitter: number): number {
  return Math.min(maxDelayMs, Math.round(minDelayMs * 2 ** (retry - 1) * (1 + jitter)));
}
