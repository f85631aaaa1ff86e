// Escalation in Linear (DESIGN §9): move the issue to the team's "Blocked" state and add one
// comment carrying the idempotency key. Safe to re-run after a crash: an issue already in the
// state is not updated, and an existing comment with the key is not posted again.
import { toLinear } from '../../present/sinks.js';
import { LinearClient, type Issue, type WorkflowState } from '@linear/sdk';
import { DEFAULTS } from '../../contracts/defaults.js';
import { ActionError } from '../../contracts/errors.js';
import { withCommentKey } from './linear-comment.js';
import { endpointOf, LOOKUP_STEP, redact, toActionError } from './linear-errors.js';
import { findKeyedComment, readCommentsPage } from './linear-find-comment.js';
import { withLinearRetry, type LinearRetryOptions } from './linear-retry.js';

/** Input of escalateInLinear; retry options (sleep, retries, signal...) come from LinearRetryOptions. */
export interface EscalateInLinearOptions extends LinearRetryOptions {
  /** Never written anywhere: messages are redacted. */
  apiKey: string;
  /** @defaultValue "https://api.linear.app/graphql" (http is accepted only for localhost) */
  apiUrl?: string;
  /** The Linear issue identifier, e.g. "ENG-123". */
  ticketId: string;
  /** Matched case-insensitively against the team's workflow states. @defaultValue "Blocked" */
  blockedStateName?: string;
  /** Markdown; the key footer is appended unless the body already carries the key. A function is given the state's name as Linear spells it. */
  commentBody: string | ((linearStateName: string) => string);
  /** `<epic>:<task_id>:escalate`; a comment carrying it means "already commented". */
  idempotencyKey: string;
  /** Deadline of each HTTP request, in ms. @defaultValue 10000 */
  requestTimeoutMs?: number;
  /** Deadline of the whole escalation, every request and retry included: a hung Linear never holds the loop longer. @defaultValue 30000 */
  totalBudgetMs?: number;
}

/** Per-request deadline. */
export const LINEAR_REQUEST_TIMEOUT_MS = 10_000;
/** Whole-escalation deadline (the tracker step is retried later when it runs out). */
export const LINEAR_TOTAL_BUDGET_MS = 30_000;

/** What escalateInLinear did; failures throw ActionError instead. */
export interface EscalationResult {
  ok: true;
  tracker: 'updated' | 'already_blocked';
  /** False when a comment carrying the key already existed. */
  commented: boolean;
  issueId: string;
  stateId: string;
  commentId?: string;
}

/** Move `ticketId` to the Blocked state and comment once; throws ActionError (tracker_*) on failure. */
export async function escalateInLinear(given: EscalateInLinearOptions): Promise<EscalationResult> {
  // One budget for everything (requests, backoff, rate-limit waits), and the caller's signal (SIGTERM) on top.
  const budget = AbortSignal.timeout(given.totalBudgetMs ?? LINEAR_TOTAL_BUDGET_MS);
  const o: EscalateInLinearOptions = { ...given, signal: given.signal ? AbortSignal.any([given.signal, budget]) : budget };
  const apiUrl = o.apiUrl ?? DEFAULTS.linear.api_url;
  const stateName = o.blockedStateName ?? DEFAULTS.linear.blocked_state;
  const t = o.ticketId;
  const fail = (code: 'tracker_auth' | 'tracker_input' | 'tracker_unavailable', step: string, what: string, hint: string, isRetryable = false) =>
    new ActionError(code, redact(`Linear escalation of ${t} failed at "${step}": ${what}`, o.apiKey), { hint, isRetryable });
  if (!o.apiKey.trim()) throw fail('tracker_auth', 'connect', 'the API key is empty.', 'Set LINEAR_API_KEY, or unset it to skip the tracker.');
  const clientOptions = (signal: AbortSignal) => ({ apiKey: o.apiKey, apiUrl, signal });
  try {
    new LinearClient(clientOptions(AbortSignal.abort()));
  } catch (e) {
    const why = redact(e instanceof Error ? e.message : String(e), o.apiKey);
    throw fail('tracker_input', 'connect', `cannot use ${endpointOf(apiUrl)} (${why}).`, 'Set linear.api_url to an https URL (http only for localhost).');
  }

  // One client per attempt: its signal covers that request only (the SDK spreads it into every fetch).
  const step = async <T>(name: string, fn: (c: LinearClient, attempt: number) => Promise<T>): Promise<T> => {
    let attempts = 0;
    try {
      return await withLinearRetry((attempt) => {
        attempts++;
        const deadline = AbortSignal.timeout(o.requestTimeoutMs ?? LINEAR_REQUEST_TIMEOUT_MS);
        return fn(new LinearClient(clientOptions(o.signal ? AbortSignal.any([o.signal, deadline]) : deadline)), attempt);
      }, o);
    } catch (e) {
      throw toActionError(e, { ticketId: t, step: name, apiKey: o.apiKey, apiUrl, attempts, nowMs: (o.nowMs ?? Date.now)(), signal: o.signal });
    }
  };

  const issue: Issue = await step(LOOKUP_STEP, (c) => c.issue(t));
  const teamId = issue.teamId;
  const teamKey = issue.identifier?.replace(/-\d+$/, '') || teamId;
  if (!teamId) throw fail('tracker_input', LOOKUP_STEP, `issue ${t} has no team in Linear's answer.`, 'Not retried; check the issue in Linear.');

  const states = await step('find the workflow state', (c) =>
    c.workflowStates({ filter: { team: { id: { eq: teamId } }, name: { eqIgnoreCase: stateName } }, first: 5 }),
  );
  const target: WorkflowState | undefined = states.nodes.find((s) => s.name === stateName) ?? states.nodes[0];
  if (!target) {
    const names = await step('list the workflow states', (c) => c.workflowStates({ filter: { team: { id: { eq: teamId } } }, first: 50 })).then(
      (r) => r.nodes.map((s) => `"${s.name}"`).join(', '),
      () => undefined,
    );
    throw fail(
      'tracker_input',
      'find the workflow state',
      `team ${teamKey} has no workflow state named "${stateName}" (matched case-insensitively)${names ? `; its states are ${names}` : ''}.`,
      `Add a "${stateName}" state to the team's workflow in Linear, or set linear.blocked_state in the watchdog config to the name of an existing state.`,
    );
  }

  let tracker: EscalationResult['tracker'] = 'already_blocked';
  if (issue.stateId !== target.id) {
    const updated = await step(`move the issue to ${target.name}`, (c) => c.updateIssue(issue.id, { stateId: target.id }));
    if (!updated.success)
      throw fail(
        'tracker_unavailable',
        `move the issue to ${target.name}`,
        'Linear answered success=false.',
        'Safe to retry: the escalation is idempotent.',
        true,
      );
    tracker = 'updated';
  }

  const key = o.idempotencyKey;
  const existing = await findKeyedComment((vars) => step('read the comments', (c) => readCommentsPage(c, vars)), issue.id, key);
  if (existing) return { ok: true, tracker, commented: false, issueId: issue.id, stateId: target.id, commentId: existing };

  const text = typeof o.commentBody === 'function' ? o.commentBody(target.name) : o.commentBody;
  // Controls, bidi characters and secrets escaped where the comment leaves (present/sinks.ts toLinear).
  const body = withCommentKey(toLinear(redact(text, o.apiKey)), key);
  const created = await step('add the comment', async (c, attempt) => {
    // A retry may follow a create whose reply was lost: look for our comment before posting again.
    const earlier = attempt > 1 ? await findKeyedComment((vars) => readCommentsPage(c, vars), issue.id, key) : undefined;
    if (earlier) return { success: true, commentId: earlier };
    const payload = await c.createComment({ issueId: issue.id, body });
    return { success: payload.success, commentId: payload.commentId };
  });
  if (!created.success)
    throw fail('tracker_unavailable', 'add the comment', 'Linear answered success=false.', 'Safe to retry: the escalation is idempotent.', true);
  return { ok: true, tracker, commented: true, issueId: issue.id, stateId: target.id, commentId: created.commentId };
}
