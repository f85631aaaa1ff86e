import type { EventBody } from '../../contracts/events.js';
import type { Task } from '../../contracts/state-file.js';
import { foldEvent } from '../../core/history.js';
import type { CancelRequest, RedispatchRequest } from '../agents/adapter.js';
import { renderResumePrompt } from '../../core/controls.js';
import { harnessOf } from '../../agents/harnesses.js';
import type { ActionSpec, ActionSpecOf, PerformerContext } from './spec.js';

export async function journal(ctx: PerformerContext, body: EventBody): Promise<void> {
  foldEvent(ctx.history, await ctx.log.append(body), ctx.epicId);
}

export const idsOf = (t: Task) => ({ ticket_id: t.ticketId, task_id: t.taskId, agent_id: t.agentId ?? t.taskId });

/** True once an event of this name was logged with this key (never log a step twice). */
export function hasStep(ctx: PerformerContext, key: string, event: string): boolean {
  return ctx.history.actions.get(key)?.steps.has(event) ?? false;
}

export async function fail(ctx: PerformerContext, spec: Pick<ActionSpec, 'task' | 'key' | 'kind'>, error: string, retryable: boolean): Promise<void> {
  await journal(ctx, { event: 'action_failed', ...idsOf(spec.task), key: spec.key, action: spec.kind, error, retryable });
}

/**
 * Why, for the people reading a request (and a teammate's shutdown message): an agent that gave
 * up on the API failed, it did not go quiet, and its idle time says nothing.
 */
export function requestReason(spec: Pick<ActionSpec, 'stallReason' | 'idleSeconds' | 'task'>): string {
  if (spec.stallReason === 'context_exhausted') return 'failed: context_exhausted, the agent ran out of context ("Prompt is too long")';
  if (spec.stallReason === 'api_gave_up') return 'failed: api_gave_up, the agent gave up on an API error';
  if (spec.stallReason === 'runtime_killed') {
    const cli = harnessOf(spec.task)?.wording.displayName ?? 'its agent CLI';
    return `failed: runtime_killed, ${cli}'s own stall watchdog killed the agent`;
  }
  if (spec.stallReason === 'run_ended') return 'failed: run_ended, the run that ran the agent ended before it finished';
  if (spec.stallReason === 'usage_limit') return 'failed: usage_limit, the agent hit its usage limit (a replacement would hit the same wall until it resets)';
  if (spec.stallReason === 'auth_failed')
    return "failed: auth_failed, the API refused the agent's credentials (a replacement would be refused the same way until they are fixed)";
  return `stalled: ${spec.stallReason}, idle ${spec.idleSeconds}s`;
}

export function cancelRequest(ctx: PerformerContext, spec: ActionSpec): CancelRequest {
  const t = spec.task;
  // A nudge or a reconcile is about a row and an agent that disagree, not about a stall.
  const reason =
    spec.kind === 'nudge'
      ? 'its turn ended while its row is still in progress'
      : spec.kind === 'reconcile'
        ? `the row and the agent disagree: ${spec.detail ?? spec.disagreement ?? ''}`
        : requestReason(spec);
  return {
    epicId: ctx.epicId,
    key: spec.key,
    task: t,
    paths: ctx.paths,
    expectedProcess: t.expectedProcess,
    reason,
  };
}

/** Stop the agent (a step of every action); false when it could not be done. */
export async function stopStep(
  ctx: PerformerContext,
  spec: ActionSpec,
  step: 'cancel' | 'stop_before_redispatch' | 'stop_before_escalation',
): Promise<boolean> {
  if (hasStep(ctx, spec.key, 'agent_killed')) return true;
  // A replacement the orchestrator never started (its request went unanswered) has no agent to stop.
  if (spec.task.unansweredRequest) return true;
  const out = await ctx.adapter.cancel(cancelRequest(ctx, spec));
  if (!out.ok) {
    await fail(ctx, spec, `${step === 'cancel' ? 'cancel' : 'stopping the stalled agent'} failed: ${out.detail}`, out.retryable);
    return false;
  }
  // A cancel's request is the orchestrator's to answer; the stop before a redispatch is part of the redispatch request.
  const request = step === 'cancel' && out.requestPath ? { request_path: out.requestPath, ...(out.answerBy ? { answer_by: out.answerBy } : {}) } : {};
  await journalKilled(ctx, spec, out, step, request);
  return true;
}

/** The `agent_killed` step marker of a stop that succeeded (with the request an orchestrator answers, if any). */
export async function journalKilled(
  ctx: PerformerContext,
  spec: ActionSpec,
  out: { adapter: string; wasForced?: boolean; detail: string },
  step: 'cancel' | 'stop_before_redispatch' | 'stop_before_escalation',
  request: { request_path?: string; answer_by?: string } = {},
): Promise<void> {
  await journal(ctx, {
    event: 'agent_killed',
    ...idsOf(spec.task),
    key: spec.key,
    adapter: out.adapter,
    was_forced: out.wasForced,
    detail: out.detail,
    step,
    ...request,
  });
}

/** The adapter's redispatch request; for a resume, the resume prompt with the fresh one as fallback. */
export function launchRequest(
  ctx: PerformerContext,
  spec: ActionSpecOf<'redispatch'>,
  checkpointPath: string,
  freshPrompt: string,
  checkpointRecoveryId: string,
): RedispatchRequest {
  const cwd = spec.cwd ?? spec.observation?.cwd;
  const base = {
    ...cancelRequest(ctx, spec),
    attempt: spec.attempt,
    recoveryTaskId: spec.recoveryTaskId ?? checkpointRecoveryId,
    checkpointPath,
    ...(cwd ? { cwd } : {}),
  };
  if (spec.mode !== 'resume') return { ...base, prompt: freshPrompt };
  const prompt = renderResumePrompt({
    ticketId: spec.task.ticketId,
    cause: spec.transportCause,
    checkpointPath,
    agentName: harnessOf(spec.task)?.wording.displayName,
  });
  return { ...base, prompt, mode: 'resume', fallbackPrompt: freshPrompt, ...(spec.transportCause ? { transportCause: spec.transportCause } : {}) };
}
