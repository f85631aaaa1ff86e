// Time the watchdog did not see pass (DESIGN §8, self-lag guard): a check that woke later than
// planned measures how late. A machine paused or a wall clock stepped forward moves every
// timestamp on alike, so the agents had none of that time: it is no silence of theirs.

/** One late wake: the check at `atMs` ran `ms` later than planned. */
export interface UnobservedSpan {
  atMs: number;
  ms: number;
}

/** Lateness below this is timer jitter or a slow check of our own, not time lost. @defaultValue 2000 */
export const MIN_UNOBSERVED_MS = 2000;

/** Spans older than this no longer matter to any window. @defaultValue 86400000 (a day) */
export const UNOBSERVED_KEEP_MS = 86_400_000;

/** At most this many spans are kept (the oldest go first). @defaultValue 256 */
export const MAX_UNOBSERVED_SPANS = 256;

/** Record a late wake (in place); lateness under MIN_UNOBSERVED_MS is not recorded. */
export function noteLateWake(spans: UnobservedSpan[], atMs: number, lateMs: number): void {
  if (lateMs >= MIN_UNOBSERVED_MS) spans.push({ atMs, ms: lateMs });
  while (spans.length > 0 && (spans.length > MAX_UNOBSERVED_SPANS || spans[0]!.atMs < atMs - UNOBSERVED_KEEP_MS)) spans.shift();
}

/**
 * How much of (sinceMs, nowMs] the watchdog did not see pass. Where a pause fell between two checks
 * is not known, so a span counts as far as it can reach back: the silence is judged the shortest
 * it can have been, never longer.
 */
export function unobservedSince(spans: readonly UnobservedSpan[] | undefined, sinceMs: number, nowMs: number): number {
  if (!spans) return 0;
  let total = 0;
  // Newest first (spans are kept in time order): an agent that moved lately stops at once.
  for (let i = spans.length - 1; i >= 0 && spans[i]!.atMs > sinceMs; i--) {
    const s = spans[i]!;
    if (s.atMs <= nowMs) total += Math.min(s.ms, s.atMs - sinceMs);
  }
  return Math.min(total, Math.max(0, nowMs - sinceMs));
}
