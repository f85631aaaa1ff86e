// Start-up recovery (DESIGN §8, the task-orphan-check idea): every action started but not
// finished is classified from its markers as done (log the outcome), safe to finish (finish it:
// every step checks its marker, so nothing fires twice) or orphan (cannot tell: never re-fired,
// reported once, in one recovery_summary event and one friction note).
import { createHash } from 'node:crypto';
import type { Wave } from '../../contracts/state-file.js';
import { foldEvent } from '../../core/history.js';
import type { ActionKind } from '../../contracts/vocabulary.js';
import type { CancelRequest, MarkerState } from '../agents/adapter.js';
import { checkpointMarker, readCheckpoint, renderRecoveryPrompt } from './checkpoint.js';
import { findFrictionNote, writeOrphanNote, ORPHANS_LIST_ALL_UP_TO, ORPHANS_SHOWN_WHEN_MANY, type OrphanAction } from '../friction/friction.js';
import { runSteps } from './perform.js';
import { requestMarker } from '../agents/mailbox.js';
import { retryFailedTrackers } from './retry-tracker.js';
import { specFromRecord, type ActionSpecOf, type PerformerContext } from './spec.js';

export type Classification = 'done' | 'safe_to_finish' | 'orphan';

export interface RecoveryReport {
  done: string[];
  finished: string[];
  /** Safe to finish, but a step failed while finishing it (its action_failed is in the log). */
  failed: { key: string; error: string }[];
  orphans: OrphanAction[];
  /** Escalations whose failed tracker step went through on retry at this start-up. */
  trackerRetried?: string[];
}

/** The request the markers of an action are read with. */
type MarkerRequest = CancelRequest;

/** The side-effect markers of one action kind, each named: read only, nothing fires. */
export type MarkerReader<K extends ActionKind> = (ctx: PerformerContext, spec: ActionSpecOf<K>, req: MarkerRequest) => Promise<[string, MarkerState][]>;

/** Every kind's markers, one entry per kind: a kind added to ACTION_KINDS does not compile until they are written. */
export const MARKERS: { readonly [K in ActionKind]: MarkerReader<K> } = {
  cancel: async (ctx, _spec, req) => [['stop', await ctx.adapter.cancelMarker(req)]],
  redispatch: async (ctx, spec, req) => {
    const checkpoint = await checkpointMarker(ctx.paths, spec.task.ticketId, spec.attempt);
    const stop = await ctx.adapter.cancelMarker(req);
    const cp = await readCheckpoint(ctx.paths, spec.task.ticketId, spec.attempt);
    const checkpointPath = ctx.paths.checkpoint(spec.task.ticketId, spec.attempt);
    const prompt = cp?.ok ? renderRecoveryPrompt(cp.value, { checkpointPath }) : '';
    const launch = await ctx.adapter.redispatchMarker({
      ...req,
      attempt: spec.attempt,
      recoveryTaskId: spec.recoveryTaskId ?? '',
      checkpointPath,
      prompt,
      ...(spec.mode ? { mode: spec.mode } : {}),
    });
    return [
      ['checkpoint', checkpoint],
      ['stop', stop],
      ['launch', launch],
    ];
  },
  // Moving to Blocked and commenting are idempotent by key; the note is written once per attempt.
  escalate: async (ctx, spec) => [['friction note', (await findFrictionNote(ctx.paths, spec.task.ticketId, spec.attempt)) ? 'done' : 'absent']],
  nudge: async (ctx, _spec, req) => [['nudge', await ctx.adapter.nudgeMarker(req)]],
  reconcile: async (_ctx, _spec, req) => [['reconcile request', await requestMarker(req, 'reconcile')]],
};

/** Classify one unfinished action from its side-effect markers; a kind with no markers is an orphan (never re-fired). */
export async function classifyAction<K extends ActionKind>(ctx: PerformerContext, spec: ActionSpecOf<K>): Promise<{ kind: Classification; detail: string }> {
  const req = { epicId: ctx.epicId, key: spec.key, task: spec.task, paths: ctx.paths, expectedProcess: spec.task.expectedProcess };
  const read: MarkerReader<K> | undefined = Object.hasOwn(MARKERS, spec.kind) ? MARKERS[spec.kind as K] : undefined;
  if (!read) return { kind: 'orphan', detail: `no markers are known for action kind "${String(spec.kind)}"` };
  const markers = await read(ctx, spec, req);
  const unknown = markers.filter(([, m]) => m === 'unknown').map(([n]) => n);
  const describe = markers.map(([n, m]) => `${n}: ${m}`).join(', ');
  if (unknown.length > 0) return { kind: 'orphan', detail: `cannot tell whether ${unknown.join(' and ')} happened (${describe})` };
  if (markers.every(([, m]) => m === 'done')) return { kind: 'done', detail: describe };
  return { kind: 'safe_to_finish', detail: describe };
}

/** Classify and settle every unfinished action of the epic; journal one summary when there were any. */
export async function recoverUnfinished(ctx: PerformerContext, opts: { runId: string; wave?: Wave }): Promise<RecoveryReport> {
  const report: RecoveryReport = { done: [], finished: [], failed: [], orphans: [] };
  const open = [...ctx.history.actions.values()].filter((r) => !r.outcome && !ctx.history.reportedOrphans.has(r.key));
  for (const rec of open) {
    const spec = specFromRecord(rec, opts.wave);
    const c = await classifyAction(ctx, spec);
    if (c.kind === 'orphan') {
      report.orphans.push({
        key: spec.key,
        action: spec.kind,
        ticketId: spec.task.ticketId,
        taskId: spec.task.taskId,
        startedAt: rec.started.timestamp_utc,
        detail: c.detail,
      });
      continue;
    }
    const row = opts.wave?.tasks.find((t) => t.taskId === spec.task.taskId);
    if (c.kind === 'safe_to_finish' && spec.kind !== 'escalate' && row && row.statusClass !== 'in_flight') {
      // The agent finished (or was stopped) while we were down: stopping or replacing it now would be wrong.
      const error = `not finished: the task is "${row.status}" now, so stopping or replacing it is no longer wanted (${c.detail})`;
      foldEvent(
        ctx.history,
        await ctx.log.append({
          event: 'action_failed',
          ticket_id: spec.task.ticketId,
          task_id: spec.task.taskId,
          agent_id: spec.task.agentId ?? spec.task.taskId,
          key: spec.key,
          action: spec.kind,
          error,
          retryable: false,
        }),
        ctx.epicId,
      );
      report.failed.push({ key: spec.key, error });
      continue;
    }
    await runSteps(ctx, spec);
    const outcome = ctx.history.actions.get(spec.key)?.outcome;
    if (outcome?.event === 'action_failed') report.failed.push({ key: spec.key, error: outcome.error });
    else (c.kind === 'done' ? report.done : report.finished).push(spec.key);
  }
  if (open.length === 0) return report;
  const keys = report.orphans.map((o) => o.key);
  const listed = keys.length > ORPHANS_LIST_ALL_UP_TO ? keys.slice(0, ORPHANS_SHOWN_WHEN_MANY) : keys;
  let frictionPath: string | undefined;
  if (report.orphans.length > 0) {
    // Named by the set of orphans, not the run: a crash between the note and the summary must
    // not leave a second note for the same orphans at the next start-up.
    const setId = `orphans-${createHash('sha256').update(keys.join('\n')).digest('hex').slice(0, 12)}`;
    const note = await writeOrphanNote(ctx.paths, report.orphans, { runId: setId, epicId: ctx.epicId, nowMs: ctx.clock.nowMs() });
    frictionPath = ctx.paths.relative(note.path);
  }
  const body = {
    event: 'recovery_summary' as const,
    done: report.done,
    finished: report.finished,
    orphans: listed,
    ...(listed.length < keys.length ? { more_orphans: keys.slice(listed.length) } : {}),
    orphan_count: keys.length,
    ...(frictionPath ? { friction_path: frictionPath } : {}),
  };
  foldEvent(ctx.history, await ctx.log.append(body), ctx.epicId);
  return report;
}

/** Start-up: settle unfinished actions, then retry every escalation whose tracker step failed. */
export async function recoverAtStartUp(ctx: PerformerContext, opts: { runId: string; wave?: Wave }): Promise<RecoveryReport> {
  const report = await recoverUnfinished(ctx, opts);
  report.trackerRetried = await retryFailedTrackers(ctx, { isRetryableOnly: false, wave: opts.wave });
  return report;
}
