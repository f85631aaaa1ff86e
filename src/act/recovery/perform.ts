// Carry out an intended action exactly once (DESIGN §8): append `action_started` with the
// idempotency key, then run each step, every one of which checks its own marker before firing,
// then append the outcome. Re-running the steps of a started key (start-up recovery) never
// repeats a side effect or a log line.
import { readFirstPrompt } from './first-prompt.js';
import { ActionError } from '../../contracts/errors.js';
import type { ActionKind } from '../../contracts/vocabulary.js';
import { crashPoint } from '../../sys/crash-point.js';
import { stallReasonOf } from '../../core/assess.js';
import type { Observation } from '../../observe/parse/observation.js';
import type { ActionPerformer, IntendedAction } from '../../core/plan.js';
import { renderNudge } from '../../core/plan-controls.js';
import { writeRequest } from '../agents/mailbox.js';
import { agentFiles } from '../agents/process-launch.js';
import { buildCheckpoint, readCheckpoint, recoveredSubagents, renderRecoveryPrompt, writeCheckpoint } from './checkpoint.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { escalateTicket } from './escalate.js';
import { writeEscalationNotice } from './escalation-notice.js';
import { retryFailedTrackers, TRACKER_RETRY_INTERVAL_MS } from './retry-tracker.js';
import { specOf, type ActionSpec, type ActionSpecOf, type PerformerContext, type StartedFields } from './spec.js';

import { cancelRequest, fail, hasStep, idsOf, journal, journalKilled, launchRequest, stopStep } from './step-requests.js';
export type { ActionSpec, PerformerContext } from './spec.js';

/** Append an event and fold it into the history, so later steps and checks see it. */
async function redispatchSteps(ctx: PerformerContext, spec: ActionSpecOf<'redispatch'>): Promise<void> {
  const { task } = spec;
  // 1. The checkpoint (created once; on a resume, the prompt is rendered from the file as written).
  const prior = spec.attempt > 1 ? await readCheckpoint(ctx.paths, task.ticketId, spec.attempt - 1).catch(() => undefined) : undefined;
  // The original task reaches the replacement: the row's prompt, the last checkpoint's, else the agent's first prompt.
  const transcriptPrompt =
    prior?.ok && prior.value.original_prompt ? undefined : await readFirstPrompt(spec.observation?.transcriptFile ?? task.transcriptPath);
  const built = buildCheckpoint({
    epicId: ctx.epicId,
    task,
    row: task.raw,
    observation: spec.observation,
    attempt: spec.attempt,
    stallReason: spec.stallReason,
    idleSeconds: spec.idleSeconds,
    nowMs: ctx.clock.nowMs(),
    previous: prior?.ok ? prior.value : undefined,
    cwd: spec.cwd,
    transcriptPrompt,
    recoveredSubagents: recoveredSubagents(ctx.history, spec.observation?.waitingOnChildren?.agentIds ?? [], task.taskId),
  });
  const { path: checkpointPath, wasCreated } = await writeCheckpoint(ctx.paths, built);
  crashPoint('after', 'checkpoint'); // test-only (sys/crash-point.ts)
  let checkpoint = built;
  if (!wasCreated) {
    const existing = await readCheckpoint(ctx.paths, task.ticketId, spec.attempt);
    if (existing?.ok) checkpoint = existing.value;
  }
  // 2. Stop the stalled agent; never launch a second agent beside one we could not stop.
  if (!(await stopStep(ctx, spec, 'stop_before_redispatch'))) return;
  // 3. Launch (or request) the replacement: a fresh agent, or the stalled agent's own session resumed.
  // After a restart the checkpoint as written says where the agent worked, if the start record does not.
  const where = spec.cwd ?? checkpoint.cwd;
  const out = await ctx.adapter.redispatch(
    launchRequest(
      ctx,
      { ...spec, ...(where ? { cwd: where } : {}) },
      checkpointPath,
      renderRecoveryPrompt(checkpoint, { checkpointPath }),
      checkpoint.recovery_task_id,
    ),
  );
  if (!out.ok) return fail(ctx, spec, `redispatch failed: ${out.detail}`, out.retryable);
  const recoveryId = spec.recoveryTaskId ?? checkpoint.recovery_task_id;
  await journal(ctx, {
    event: 'redispatch',
    ...idsOf(task),
    key: spec.key,
    redispatch_attempt: spec.attempt,
    max_redispatches: ctx.maxRedispatches,
    recovery_task_id: recoveryId,
    checkpoint_path: ctx.paths.relative(checkpointPath),
    ...(spec.mode === 'resume' ? { mode: 'resume' as const } : {}),
    remaining_tasks: checkpoint.remaining_work,
    adapter: out.adapter,
    detail: out.detail,
    ...(task.agent ? { agent: task.agent } : {}),
    ...(out.identity ? { pid: out.identity.pid, start_ticks: out.identity.startTicks, boot_id: out.identity.bootId } : out.pid ? { pid: out.pid } : {}),
    // A launched agent's output is its transcript when it streams JSON (claude -p --output-format stream-json).
    ...(out.pid && out.adapter === 'process' ? { output_path: ctx.paths.relative(agentFiles(ctx.paths, ctx.epicId, recoveryId).logFile) } : {}),
    ...(out.requestPath ? { request_path: out.requestPath, ...(out.answerBy ? { answer_by: out.answerBy } : {}) } : {}),
  });
}

async function escalateSteps(ctx: PerformerContext, spec: ActionSpecOf<'escalate'>): Promise<void> {
  // Stop burning tokens on a ticket a human now owns; a failure here does not hold the escalation.
  if (!hasStep(ctx, spec.key, 'agent_killed') && !spec.task.unansweredRequest) {
    const out = await ctx.adapter.cancel(cancelRequest(ctx, spec));
    if (out.ok) await journalKilled(ctx, spec, out, 'stop_before_escalation');
  }
  const r = await escalateTicket(ctx, spec);
  await writeEscalationNotice(ctx, spec, { frictionPath: ctx.paths.relative(r.frictionPath), tracker: r.tracker });
  await journal(ctx, {
    event: 'escalated_to_blocked',
    ...idsOf(spec.task),
    key: spec.key,
    attempt_count: spec.attempt,
    friction_path: ctx.paths.relative(r.frictionPath),
    tracker: r.tracker,
    ...(r.detail ? { tracker_detail: r.detail } : {}),
    ...(r.tracker === 'failed' ? { tracker_retryable: Boolean(r.isRetryable) } : {}),
  });
}

/** One nudge, by the adapter (its marker first); nothing is stopped. */
async function nudgeStep(ctx: PerformerContext, spec: ActionSpecOf<'nudge'>): Promise<void> {
  const route = spec.route ?? 'resume';
  const cwd = spec.cwd ?? spec.observation?.cwd;
  const out = await ctx.adapter.nudge({ ...cancelRequest(ctx, spec), message: renderNudge(spec.task), route, ...(cwd ? { cwd } : {}) });
  if (!out.ok) return fail(ctx, spec, `nudge failed: ${out.detail}`, out.retryable);
  await journal(ctx, {
    event: 'nudge_sent',
    ...idsOf(spec.task),
    key: spec.key,
    adapter: out.adapter,
    route,
    detail: out.detail,
    ...(out.requestPath ? { request_path: out.requestPath, ...(out.answerBy ? { answer_by: out.answerBy } : {}) } : {}),
  });
}

/** A reconcile request for the row's owner, whatever the adapter (a question, never an action on the agent). */
async function reconcileStep(ctx: PerformerContext, spec: ActionSpecOf<'reconcile'>): Promise<void> {
  const disagreement = spec.disagreement ?? 'agent_finished';
  const detail = spec.detail ?? `row ${spec.task.rowTaskId ?? spec.task.taskId} says "${spec.task.status}", the agent's own record disagrees`;
  const req = { ...cancelRequest(ctx, spec), requestFields: { disagreement, what_disagrees: detail, row_status: spec.task.status } };
  const out = await writeRequest(req, 'reconcile', { clock: ctx.clock, requestDeadlineMs: ctx.requestDeadlineMs }, ctx.adapter.name);
  if (!out.ok || !out.requestPath) return fail(ctx, spec, `reconcile request failed: ${out.detail}`, out.retryable);
  await journal(ctx, {
    event: 'reconcile_requested',
    ...idsOf(spec.task),
    key: spec.key,
    disagreement,
    detail,
    row_status: spec.task.status,
    request_path: out.requestPath,
    ...(out.answerBy ? { answer_by: out.answerBy } : {}),
  });
}

/** The steps of one action kind; each checks its own marker before it fires. */
export type Step<K extends ActionKind> = (ctx: PerformerContext, spec: ActionSpecOf<K>) => Promise<void>;

/**
 * Every kind's steps, one entry per kind: a kind added to ACTION_KINDS does not compile until its
 * steps are written here, and no kind falls through to another's (escalation least of all).
 */
export const STEPS: { readonly [K in ActionKind]: Step<K> } = {
  cancel: async (ctx, spec) => void (await stopStep(ctx, spec, 'cancel')),
  redispatch: redispatchSteps,
  escalate: escalateSteps,
  nudge: nudgeStep,
  reconcile: reconcileStep,
};

/** The steps of the spec's kind; a kind with none fails the action (not retryable), never runs another kind's steps. */
function stepsOf<K extends ActionKind>(spec: ActionSpecOf<K>): Step<K> {
  const step: Step<K> | undefined = Object.hasOwn(STEPS, spec.kind) ? STEPS[spec.kind as K] : undefined;
  if (step) return step;
  throw new ActionError('internal', `no steps for action kind "${String(spec.kind)}": nothing was done.`, {
    hint: 'This is a dispatch-watchdog bug; please report it with the dispatch log.',
  });
}

/** Run (or resume) the steps of a started action. Each step checks its marker first. */
export async function runSteps<K extends ActionKind>(ctx: PerformerContext, spec: ActionSpecOf<K>): Promise<void> {
  try {
    await stepsOf(spec)(ctx, spec);
  } catch (e) {
    const retryable = e instanceof ActionError ? e.isRetryable : true;
    await fail(ctx, spec, e instanceof ActionError ? e.describe() : `unexpected: ${(e as Error).message}`, retryable);
  }
}

/**
 * How long a check waits for an escalation before leaving it to finish in the background. The
 * tracker has its own budget (a hung Linear gives up after 30 s and is retried later); meanwhile
 * other tasks' deadlines still pass and must be judged (issue 8 item 7). Real time, not the
 * injected clock: it bounds a wait on the network.
 */
export const ESCALATION_FOREGROUND_MS = 2_000;

/** The executor the check calls for each intended action. */
export function createPerformer(ctx: PerformerContext, opts: { escalationForegroundMs?: number } = {}): ActionPerformer {
  let lastTrackerRetryMs = ctx.clock.nowMs();
  const background = new Set<Promise<void>>();
  const foregroundMs = opts.escalationForegroundMs ?? ESCALATION_FOREGROUND_MS;
  return {
    async drain() {
      while (background.size > 0) await Promise.all([...background]);
    },
    async afterCheck(nowMs: number) {
      if (ctx.history.trackerPending.size === 0 || nowMs - lastTrackerRetryMs < TRACKER_RETRY_INTERVAL_MS) return;
      lastTrackerRetryMs = nowMs;
      await retryFailedTrackers(ctx, { isRetryableOnly: true });
    },
    async perform(action: IntendedAction, observation: Observation) {
      if (ctx.history.actions.has(action.key)) return; // already started: recovery owns it
      const v = action.verdict;
      // The kind's own fields, as the write-ahead record spells them (the spec reads them back the same way after a crash).
      const fields: StartedFields = {
        ...(action.mode === 'resume' ? { mode: 'resume' as const, ...(v.transportCause ? { transport_cause: v.transportCause } : {}) } : {}),
        ...(action.route ? { route: action.route } : {}),
        ...(action.kind === 'reconcile' && v.disagreement ? { disagreement: v.disagreement.kind, detail: v.reason } : {}),
        ...((action.kind === 'redispatch' || action.kind === 'nudge') && observation.cwd ? { cwd: observation.cwd } : {}),
      };
      const spec: ActionSpec = specOf(
        action.kind,
        {
          key: action.key,
          task: action.task,
          attempt: action.attempt,
          recoveryTaskId: action.recoveryTaskId,
          stallReason: stallReasonOf(v),
          idleSeconds: Math.round((v.idleMs ?? 0) / 1000),
          observation,
        },
        fields,
      );
      const proc = action.task.expectedProcess;
      await journal(ctx, {
        event: 'action_started',
        ...idsOf(action.task),
        key: action.key,
        action: action.kind,
        adapter: ctx.adapter.name,
        redispatch_attempt: action.attempt,
        ...(action.recoveryTaskId ? { recovery_task_id: action.recoveryTaskId } : {}),
        ...(proc ? { pid: proc.pid, start_ticks: proc.startTicks, boot_id: proc.bootId } : action.task.pid ? { pid: action.task.pid } : {}),
        stall_reason: spec.stallReason,
        idle_seconds: spec.idleSeconds,
        ...(action.task.sessionId ? { session_id: action.task.sessionId } : {}),
        ...(action.task.rowTaskId ? { row_task_id: action.task.rowTaskId } : {}),
        ...fields,
      });
      if (action.kind !== 'escalate') return runSteps(ctx, spec);
      // The key is started, so no later check re-fires it while it runs; its outcome is journaled
      // when it returns, and the loop drains what is left before it stops.
      const running: Promise<void> = runSteps(ctx, spec)
        .catch((e: unknown) => void process.stderr.write(`dispatch-watchdog: escalation ${action.key} failed: ${(e as Error)?.message ?? String(e)}\n`))
        .finally(() => background.delete(running));
      background.add(running);
      const timeout = new AbortController();
      await Promise.race([running, sleep(foregroundMs, undefined, { signal: timeout.signal, ref: false }).catch(() => undefined)]);
      timeout.abort();
    },
  };
}
