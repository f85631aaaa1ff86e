// `type:"assistant"`: the model's text and tool calls, and Claude Code's own terminal API error
// message (written as an assistant message when it gives up). Pure.
import { summarizeToolInput } from '../tool-input-summary.js';
import type { ApiFailureKind } from '../../../../observe/parse/observation.js';
import { ERROR_MAX_CHARS, excerpt, openCall, type TranscriptState } from '../transcript-state.js';
import { isRec, NO_MARKS, num, rowOf, str, type Rec, type RecordFamily } from './family.js';
import { applySendMessage } from './teammates.js';

/** Tools that stop a background shell or task, and the input field naming it. */
const KILL_TOOLS: Record<string, string[]> = { KillShell: ['shell_id'], KillBash: ['shell_id'], TaskStop: ['task_id', 'shell_id'] };

/** Claude Code's own error text, written as an assistant message when it gives up on the API. */
const API_FAILURES: [RegExp, ApiFailureKind][] = [
  [/prompt is too long|context (?:length|window)|too many tokens/i, 'context_exhausted'],
  [/overloaded|\b529\b/i, 'overloaded'],
  [/connection error|unable to connect|ECONNRESET|ECONNREFUSED|ETIMEDOUT|fetch failed|network/i, 'connection'],
  [/rate.?limit|usage limit|\b429\b/i, 'rate_limit'],
];

/** The API failure an assistant record reports, if it is Claude Code's terminal error message. */
function apiFailure(rec: Rec, message: Rec, text: string): TranscriptState['apiError'] | undefined {
  const isFlagged = rec.isApiErrorMessage === true;
  // 1.0.x wrote the same message without the flag, from the "<synthetic>" model.
  const isSynthetic =
    message.model === '<synthetic>' && /^(API Error|Prompt is too long|Connection error|Unable to connect|Request timed out)/i.test(text.trim());
  if (!isFlagged && !isSynthetic) return undefined;
  const status = num(rec.apiErrorStatus);
  const probe = `${text} ${str(rec.error) ?? ''} ${status ?? ''}`;
  const kind = API_FAILURES.find(([re]) => re.test(probe))?.[1] ?? 'api_error';
  return { status, kind, text: excerpt(text.trim(), ERROR_MAX_CHARS) };
}

/**
 * A rate-limit give-up after retries that named the plan's usage limit, still in force when it gave
 * up: that limit (a replacement would hit the same wall until it resets), said with its reset.
 */
function planLimitFailure(failure: NonNullable<TranscriptState['apiError']>, limit: TranscriptState['planLimit'], atMs: number | undefined) {
  const resetsAtMs = limit?.resetsAtMs;
  if (resetsAtMs === undefined || (atMs !== undefined && resetsAtMs <= atMs)) return failure;
  const window = limit?.type ? `${limit.type.replaceAll('_', ' ')} ` : '';
  return {
    ...failure,
    kind: 'usage_limit' as const,
    text: `${failure.text ?? 'rate limited'} (the plan's ${window}usage limit, resets at ${new Date(resetsAtMs).toISOString()})`,
  };
}

function applyAssistant(s: TranscriptState, rec: Rec, atMs: number | undefined): void {
  const message = isRec(rec.message) ? rec.message : {};
  if (atMs !== undefined) s.lastAssistantMs = Math.max(s.lastAssistantMs ?? atMs, atMs);
  s.requestSentMs = undefined;
  s.resend = undefined;
  const content = Array.isArray(message.content) ? message.content : [];
  const text = content.map((b) => (isRec(b) && b.type === 'text' ? (str(b.text) ?? '') : '')).join('\n');
  const failure = apiFailure(rec, message, text);
  s.apiError = failure && { ...(failure.kind === 'rate_limit' ? planLimitFailure(failure, s.planLimit, atMs) : failure), atMs };
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
