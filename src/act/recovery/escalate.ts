// The escalation step (DESIGN §9): move the ticket to Blocked in Linear with a comment carrying
// the idempotency key, then write the friction note once. Without LINEAR_API_KEY the tracker is
// skipped and said so; the key itself never leaves this module's call into the SDK.
import type { TrackerOutcomeKind } from '../../contracts/vocabulary.js';
import { readdir } from 'node:fs/promises';
import { ActionError } from '../../contracts/errors.js';
import { crashPoint } from '../../sys/crash-point.js';
import type { History } from '../../core/history.js';
import type { StatePaths } from '../../files/paths.js';
import { frictionNotePathFor, writeFrictionNote } from '../friction/friction.js';
import { renderEscalationComment } from '../tracker/linear-comment.js';
import { stallRecordFromEvent } from '../friction/stall-history.js';
import type { ActionSpec, TrackerSettings } from './spec.js';
import path from 'node:path';

interface EscalationContext {
  paths: StatePaths;
  history: History;
  clock: { nowMs(): number };
  maxRedispatches: number;
  tracker: TrackerSettings;
}

export interface EscalationResult {
  frictionPath: string;
  tracker: TrackerOutcomeKind;
  detail?: string;
}

/** Dispatch-log files and checkpoints of a ticket, state-dir relative, for the evidence section. */
async function evidence(paths: StatePaths, ticketId: string) {
  const list = async (dir: string) => readdir(dir).catch(() => [] as string[]);
  const dispatchLogs = (await list(paths.dispatchLogDir()))
    .filter((f) => f.endsWith('.ndjson'))
    .sort()
    .map((f) => paths.relative(path.join(paths.dispatchLogDir(), f)));
  const checkpoints = (await list(paths.checkpointDir(ticketId)))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => paths.relative(path.join(paths.checkpointDir(ticketId), f)));
  return { dispatchLogs, checkpoints };
}

/** What happened to the ticket in the tracker. */
export interface TrackerResult {
  tracker: EscalationResult['tracker'];
  detail?: string;
  /** tracker failed, and trying again later may succeed (network, 5xx, rate limit). */
  isRetryable?: boolean;
}

/** Move the ticket to Blocked and comment (idempotent by the key in the comment); never throws an ActionError. */
export async function moveToBlocked(ctx: EscalationContext, spec: ActionSpec, frictionPath: string): Promise<TrackerResult> {
  if (!ctx.tracker.apiKey) return { tracker: 'skipped', detail: 'LINEAR_API_KEY is not set: the ticket was not moved' };
  const { ticketId } = spec.task;
  const history = (ctx.history.stalls.get(ticketId) ?? []).map(stallRecordFromEvent);
  // Loaded here, not at start-up: @linear/sdk is large and only an escalation with a key needs it.
  const { escalateInLinear } = await import('../tracker/linear.js');
  try {
    const r = await escalateInLinear({
      ...ctx.tracker.retry,
      apiKey: ctx.tracker.apiKey,
      apiUrl: ctx.tracker.apiUrl,
      ticketId,
      blockedStateName: ctx.tracker.blockedStateName,
      idempotencyKey: spec.key,
      commentBody: (linearState) =>
        renderEscalationComment({
          ticketId,
          attempts: spec.attempt,
          history,
          frictionPath: ctx.paths.relative(frictionPath),
          key: spec.key,
          stateName: linearState,
        }),
    });
    crashPoint('after', 'linear'); // test-only (sys/crash-point.ts)
    return { tracker: r.tracker, detail: r.commented ? undefined : 'the escalation comment was already there' };
  } catch (e) {
    if (!(e instanceof ActionError)) throw e;
    return { tracker: 'failed', detail: e.describe(), isRetryable: e.isRetryable };
  }
}

/** Blocked in Linear (when configured) and the friction note; both idempotent by key and attempt. */
export async function escalateTicket(ctx: EscalationContext, spec: ActionSpec): Promise<EscalationResult & TrackerResult> {
  const { ticketId } = spec.task;
  const nowMs = ctx.clock.nowMs();
  const history = (ctx.history.stalls.get(ticketId) ?? []).map(stallRecordFromEvent);
  const frictionPath = await frictionNotePathFor(ctx.paths, ticketId, spec.attempt, nowMs);
  const moved = await moveToBlocked(ctx, spec, frictionPath);
  const written = await writeFrictionNote(
    ctx.paths,
    {
      ticketId,
      attempts: spec.attempt,
      maxRedispatches: ctx.maxRedispatches,
      history,
      evidencePaths: await evidence(ctx.paths, ticketId),
      trackerOutcome: { kind: moved.tracker, stateName: ctx.tracker.blockedStateName, detail: moved.detail },
      escalatedAt: new Date(nowMs).toISOString(),
      actionKey: spec.key,
    },
    { nowMs },
  );
  return { ...moved, frictionPath: written.path };
}
