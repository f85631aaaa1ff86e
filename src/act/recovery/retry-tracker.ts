// Escalations whose tracker step failed (Linear down, rate limited past our patience, a key
// fixed since) are retried: at every start-up, and every 5 minutes by a running watchdog when
// the failure was retryable. The comment carries the idempotency key, so a retry never comments
// twice; a success is journaled as a second `escalated_to_blocked` line with `is_retry`.
import path from 'node:path';
import type { Wave } from '../../contracts/state-file.js';
import { foldEvent } from '../../core/history.js';
import { moveToBlocked } from './escalate.js';
import { specFromRecord, type PerformerContext } from './spec.js';

/** How long a running watchdog waits between two retries of failed tracker steps. */
export const TRACKER_RETRY_INTERVAL_MS = 5 * 60_000;

/** Retry every pending tracker step; returns the keys that went through now. */
export async function retryFailedTrackers(ctx: PerformerContext, opts: { isRetryableOnly: boolean; wave?: Wave }): Promise<string[]> {
  if (!ctx.tracker.apiKey) return [];
  const done: string[] = [];
  for (const [key, failed] of [...ctx.history.trackerPending]) {
    if (opts.isRetryableOnly && failed.tracker_retryable === false) continue;
    const rec = ctx.history.actions.get(key);
    if (!rec) continue;
    const spec = specFromRecord(rec, opts.wave);
    const r = await moveToBlocked(ctx, spec, path.join(ctx.paths.root, failed.friction_path));
    if (r.tracker === 'failed') continue; // still failing: the first line already says so; no line per try
    const e = await ctx.log.append({
      event: 'escalated_to_blocked',
      ticket_id: failed.ticket_id,
      task_id: failed.task_id,
      agent_id: failed.agent_id,
      key,
      attempt_count: failed.attempt_count,
      friction_path: failed.friction_path,
      tracker: r.tracker,
      is_retry: true,
      ...(r.detail ? { tracker_detail: r.detail } : {}),
    });
    foldEvent(ctx.history, e, ctx.epicId);
    done.push(key);
  }
  return done;
}
