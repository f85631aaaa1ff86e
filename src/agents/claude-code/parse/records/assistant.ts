// `type:"assistant"`: the model's text and tool calls, and Claude Code's own terminal API error
// message (written as an assistant message when it gives up). Pure.
import { FAILURE_BY_API_ERROR, FAILURE_BY_ERROR, namesPlanLimit } from '../give-up-kind.js';
import { summarizeToolInput } from '../tool-input-summary.js';
import type { ApiFailureKind } from '../../../../observe/parse/observation.js';
import { ERROR_MAX_CHARS, excerpt, openCall, type TranscriptState } from '../transcript-state.js';
import { epochSecondsMs, isRec, NO_MARKS, num, type Rec, type RecordFamily, rowOf, str } from './family.js';
import { applySendMessage } from './teammates.js';

/** Tools that stop a background shell or task, and the input field naming it. */
const KILL_TOOLS: Record<string, string[]> = { KillShell: ['shell_id'], KillBash: ['shell_id'], TaskStop: ['task_id', 'shell_id'] };

/** Claude Code's own error text, written as an assistant message when it gives up on the API. */
const API_FAILURES: [RegExp, ApiFailureKind][] = [
  // 1.0.x and records without the fields above: "Failed to authenticate. API Error: 401 …", "Credit balance is too low".
  [/authentication_failed|failed to authenticate|invalid x-api-key|oauth token (?:has )?expired/i, 'auth_failed'],
  [/credit balance is too low/i, 'usage_limit'],
  [/prompt is too long|context (?:length|window)|too many tokens/i, 'context_exhausted'],
  [/overloaded|\b529\b/i, 'overloaded'],
  [/connection error|unable to connect|ECONNRESET|ECONNREFUSED|ETIMEDOUT|fetch failed|network/i, 'connection'],
  [/rate.?limit|usage limit|\b429\b/i, 'rate_limit'],
];

/**
 * Claude Code's terminal API error message: its own record (`isApiErrorMessage`; in a `claude -p`
 * stream-json output `is_api_error_message`, 2.1.33x), or a message of the "<synthetic>" model that
 * says it (1.0.x) or carries an `error` (2.1.197's stream-json output). In a stream-json output a
 * record with a `parent_tool_use_id` is a subagent's: its give-up is its lead's tool result, not the lead's.
 */
function isGiveUpRecord(rec: Rec, message: Rec, text: string): boolean {
  if (rec.parent_tool_use_id !== undefined && rec.parent_tool_use_id !== null) return false;
  if (rec.isApiErrorMessage === true || rec.is_api_error_message === true) return true;
  return (
    message.model === '<synthetic>' &&
    (typeof rec.error === 'string' || /^(API Error|Prompt is too long|Connection error|Unable to connect|Request timed out)/i.test(text.trim()))
  );
}

/** The API failure an assistant record reports, if it is Claude Code's terminal error message. */
function apiFailure(rec: Rec, message: Rec, text: string): TranscriptState['apiError'] | undefined {
  if (!isGiveUpRecord(rec, message, text)) return undefined;
  const status = num(rec.apiErrorStatus) ?? num(rec.api_error_status);
  const probe = `${text} ${str(rec.error) ?? ''} ${status ?? ''}`;
  const named = rowOf(FAILURE_BY_API_ERROR, rec.apiError ?? rec.api_error) ?? rowOf(FAILURE_BY_ERROR, rec.error);
  const kind = named ?? API_FAILURES.find(([re]) => re.test(probe))?.[1] ?? 'api_error';
  return { status, kind, text: excerpt(text.trim(), ERROR_MAX_CHARS) };
}

/**
 * The plan's usage limit a give-up record names itself: with a claude.ai login Claude Code gives up
 * at once, without retries (measured on 2.1.197, 2.1.332 and 2.1.337), and 2.1.33x says so in
 * fields (`apiError: "usage_limit_reached"`, `quotaLimits` / `apiErrorParams.rate_limit_info`: the
 * window and its reset, epoch seconds), every version in words. Undefined when it names none.
 */
function namedPlanLimit(rec: Rec, text: string): TranscriptState['planLimit'] | undefined {
  const params = isRec(rec.apiErrorParams) ? rec.apiErrorParams : isRec(rec.api_error_params) ? rec.api_error_params : {};
  const info = isRec(rec.quotaLimits) ? rec.quotaLimits : isRec(params.rate_limit_info) ? params.rate_limit_info : undefined;
  const isNamed = (rec.apiError ?? rec.api_error) === 'usage_limit_reached' || (info !== undefined && info.status === 'rejected') || namesPlanLimit(text);
  if (!isNamed) return undefined;
  return { type: str(info?.rateLimitType), resetsAtMs: epochSecondsMs(info?.resetsAt) };
}

/**
 * A give-up on the plan's usage limit, still in force when it gave up (a replacement would hit the
 * same wall until it resets), said with its window and reset when known: named by the record
 * itself, or by the retries before a rate-limit give-up.
 */
function planLimitFailure(failure: NonNullable<TranscriptState['apiError']>, limit: TranscriptState['planLimit'], atMs: number | undefined) {
  const resetsAtMs = limit?.resetsAtMs;
  if (limit === undefined || (atMs !== undefined && resetsAtMs !== undefined && resetsAtMs <= atMs)) return failure;
  const window = limit.type ? `${limit.type.replaceAll('_', ' ')} ` : '';
  const when = resetsAtMs === undefined ? '' : `, resets at ${new Date(resetsAtMs).toISOString()}`;
  return { ...failure, kind: 'usage_limit' as const, text: `${failure.text ?? 'rate limited'} (the plan's ${window}usage limit${when})`, resetsAtMs };
}

function applyAssistant(s: TranscriptState, rec: Rec, atMs: number | undefined): void {
  const message = isRec(rec.message) ? rec.message : {};
  if (atMs !== undefined) s.lastAssistantMs = Math.max(s.lastAssistantMs ?? atMs, atMs);
  s.requestSentMs = undefined;
  s.resend = undefined;
  const content = Array.isArray(message.content) ? message.content : [];
  const text = content.map((b) => (isRec(b) && b.type === 'text' ? (str(b.text) ?? '') : '')).join('\n');
  const failure = apiFailure(rec, message, text);
  // Named by the record itself, or (a rate-limit give-up) by the retries before it; a retry's limit without a reset is no wall.
  const limit = failure && (namedPlanLimit(rec, text) ?? (failure.kind === 'rate_limit' && s.planLimit?.resetsAtMs !== undefined ? s.planLimit : undefined));
  s.apiError = failure && { ...planLimitFailure(failure, limit, atMs), atMs };
  if (s.planLimit) s.planLimit = undefined;
  const tail = s.tail;
  const messageId = str(message.id);
  if (tail && messageId !== undefined) {
    if (messageId !== tail.lastMessageId) {
      tail.messages = (tail.messages ?? 0) + 1;
      tail.lastMessageId = messageId;
    }
    if (tail.firstMessageId === undefined) tail.firstMessageId = messageId;
    else if (messageId !== tail.firstMessageId && !tail.isFresh) {
      tail.isFresh = true;
      // Nothing may be open when a new message begins; a call the tail rebuilt from progress lines still is.
      if (s.open.length > 0) tail.isSpoiled = true;
    }
  }
  for (const block of content) {
    if (!isRec(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '') {
      s.lastOutput = excerpt(block.text);
      // A text the message's own stop_reason says a tool call follows (2.1.197+ writes it on every
      // block of the message) is no final answer: the session died before writing that call.
      s.finalTextMs = message.stop_reason === 'tool_use' ? undefined : (atMs ?? s.finalTextMs ?? 0);
    } else if (block.type === 'tool_use' && typeof block.name === 'string') {
      s.finalTextMs = undefined;
      const facts = summarizeToolInput(block.name, block.input);
      const input = isRec(block.input) ? block.input : {};
      const killsTaskId = rowOf(KILL_TOOLS, block.name)
        ?.map((k) => str(input[k]))
        .find((x) => x !== undefined);
      if (block.name === 'TeamCreate') s.isTeamKnown = true;
      if (block.name === 'SendMessage') applySendMessage(s, input, atMs);
      const isNew = openCall(s, {
        name: block.name,
        ...facts,
        startedAtMs: atMs,
        isOpen: true,
        toolUseId: str(block.id),
        ...(killsTaskId ? { killsTaskId } : {}),
      });
      if (tail?.isFresh && isNew) tail.callsSinceFresh++;
    }
  }
}

export const ASSISTANT: RecordFamily = {
  isSession: true,
  isHarnessNote: false,
  actor: () => 'agent',
  marks: () => NO_MARKS,
  apply: (s, rec, { atMs }) => applyAssistant(s, rec, atMs),
};
