// A Claude Code give-up on the plan's usage limit (2.1.332 and 2.1.337, measured: test/realagent/api-request-retry.test.ts
// scripts a 429 with Anthropic's unified rate-limit headers): each `system/api_error` retry names
// the limit (`error.rateLimits`: its window and when it resets), and the give-up after the last
// retry is a usage_limit failure (escalated, never redispatched into the same wall), not a
// passing rate limit. A plain 429 (`rateLimits: null`) stays a rate-limit give-up. With a claude.ai
// login Claude Code gives up at once, no retries, and the give-up record names the limit itself
// (measured on all three versions: test/realagent/usage-limit-login.test.ts): 2.1.33x in fields,
// 2.1.197 in words only.
import { describe, expect, it } from 'vitest';
import { parseTranscriptText, summarizeTranscript } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import type { PartialObservation } from '../../src/observe/parse/observation.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { makeTask } from '../helpers/builders.js';
import { assistant, jsonl, ms, notification, system, text, user } from '../helpers/claude-lines.js';

/** A retry as 2.1.337 writes it; `rateLimits` as its error carries it (null for a plain 429). */
const retry = (s: number, attempt: number, rateLimits: Record<string, unknown> | null) =>
  system(s, 'api_error', {
    level: 'error',
    retryAttempt: attempt,
    maxRetries: 10,
    retryInMs: 510,
    error: { status: 429, formatted: '429 rate limited', rateLimits, noResponse: null },
    source: 'request_retry',
  });
/** The give-up: Claude Code's own assistant message after its last retry (2.1.337's fields). */
const gaveUp = (s: number) =>
  assistant(s, [text('API Error: Request rejected (429) · rate limited')], {
    isApiErrorMessage: true,
    apiErrorIsTransient: false,
    error: 'rate_limit',
    apiErrorStatus: 429,
    apiErrorType: 'rate_limit_error',
  });

const FIVE_HOURS = (s: number) => ({ rateLimitType: 'five_hour', resetsAt: Math.round(ms(s) / 1000) });

function judge(lines: string[], nowS: number) {
  const part = summarizeTranscript(parseTranscriptText(jsonl(...lines)).state, { nowMs: ms(nowS) });
  return { part, verdict: assess(makeTask(), mergeObservations([part], CLAUDE_LENS), DEFAULT_POLICY, ms(nowS)) };
}

describe("a give-up on the plan's usage limit", () => {
  it('is usage_limit at once, saying the window and when it resets', () => {
    const { part, verdict } = judge([user(0, 'go'), retry(1, 1, FIVE_HOURS(3600)), retry(2, 2, FIVE_HOURS(3600)), gaveUp(5)], 6);
    expect(part.failed).toMatchObject({ kind: 'usage_limit', atMs: ms(5) });
    expect(verdict).toMatchObject({ kind: 'stalled', stallReason: 'usage_limit' });
    expect(verdict.reason).toBe(
      `the agent hit its usage limit: API Error: Request rejected (429) · rate limited (the plan's five hour usage limit, resets at ${new Date(ms(3600)).toISOString()})`,
    );
  });

  it('a plain 429 (no plan limit named) stays a rate-limit give-up', () => {
    const { part, verdict } = judge([user(0, 'go'), retry(1, 1, null), retry(2, 2, null), gaveUp(5)], 6);
    expect(part.failed?.kind).toBe('rate_limit');
    expect(verdict).toMatchObject({ kind: 'stalled', stallReason: 'api_gave_up' });
  });

  it('a limit that had reset when it gave up, or a last retry that named none, is a rate limit', () => {
    expect(judge([user(0, 'go'), retry(1, 1, FIVE_HOURS(3)), gaveUp(5)], 6).part.failed?.kind).toBe('rate_limit');
    expect(judge([user(0, 'go'), retry(1, 1, FIVE_HOURS(3600)), retry(2, 2, null), gaveUp(5)], 6).part.failed?.kind).toBe('rate_limit');
  });

  it('is forgotten once the API answers: a later give-up is judged on its own retries', () => {
    // A give-up with no retry before it (a request the API refused outright) names no limit.
    const lines = [user(0, 'go'), retry(1, 1, FIVE_HOURS(3600)), assistant(3, [text('working')]), user(4, 'more'), gaveUp(8)];
    expect(judge(lines, 9).part.failed?.kind).toBe('rate_limit');
  });
});

/** The give-up of a claude.ai login at its 5-hour window, as 2.1.337 writes it (no retry before it). */
const loginGaveUp = (s: number, resetsAtS: number, extra: Record<string, unknown> = {}) => {
  const info = { status: 'rejected', resetsAt: Math.round(ms(resetsAtS) / 1000), rateLimitType: 'five_hour', isUsingOverage: false };
  return assistant(s, [text("You've hit your 5-hour limit · resets 1:43am (UTC)")], {
    apiError: 'usage_limit_reached',
    apiErrorParams: { rate_limit_info: info, plan_limit_line: "You've hit your 5-hour limit · resets 1:43am (UTC)" },
    quotaLimits: { ...info, unifiedRateLimitFallbackAvailable: false },
    error: 'rate_limit',
    isApiErrorMessage: true,
    apiErrorStatus: 429,
    apiErrorType: 'rate_limit_error',
    ...extra,
  });
};

describe("a give-up record that names the plan's limit itself (a claude.ai login)", () => {
  it('2.1.33x: usage_limit from its fields, with the window and the reset, no retry needed', () => {
    const { part, verdict } = judge([user(0, 'go'), loginGaveUp(2, 3600)], 3);
    expect(part.failed).toMatchObject({ kind: 'usage_limit', atMs: ms(2) });
    expect(verdict).toMatchObject({ kind: 'stalled', stallReason: 'usage_limit' });
    expect(verdict.reason).toBe(
      `the agent hit its usage limit: You've hit your 5-hour limit · resets 1:43am (UTC) (the plan's five hour usage limit, resets at ${new Date(ms(3600)).toISOString()})`,
    );
  });

  it('2.1.197: usage_limit from its words alone', () => {
    for (const words of [
      "You've hit your session limit · resets 1:43am (UTC)",
      'You’ve hit your weekly limit · resets Dec 9',
      'Claude AI usage limit reached|1796694189',
    ]) {
      const giveUp = assistant(2, [text(words)], { error: 'rate_limit', isApiErrorMessage: true, apiErrorStatus: 429, version: '2.1.197' });
      const { part, verdict } = judge([user(0, 'go'), giveUp], 3);
      expect(part.failed, words).toMatchObject({ kind: 'usage_limit' });
      expect(verdict.reason).toBe(`the agent hit its usage limit: ${words} (the plan's usage limit)`);
    }
  });

  it('a limit the record says had reset, or a 429 that names none, is a rate limit', () => {
    expect(judge([user(0, 'go'), loginGaveUp(5, 3)], 6).part.failed?.kind).toBe('rate_limit');
    const plain = assistant(2, [text('API Error: Request rejected (429) · rate limited')], {
      error: 'rate_limit',
      isApiErrorMessage: true,
      apiErrorStatus: 429,
    });
    expect(judge([user(0, 'go'), plain], 3).part.failed?.kind).toBe('rate_limit');
  });

  it("a `claude -p` stream-json output: the run's own give-up counts, a subagent's (parent_tool_use_id) is not the lead's", () => {
    const streamed = (extra: Record<string, unknown>) =>
      JSON.stringify({
        type: 'assistant',
        message: { model: '<synthetic>', role: 'assistant', content: [text("You've hit your 5-hour limit · resets 1:43am (UTC)")] },
        session_id: 'sess-1',
        timestamp: new Date(ms(2)).toISOString(),
        error: 'rate_limit',
        is_api_error_message: true,
        api_error_status: 429,
        api_error: 'usage_limit_reached',
        api_error_params: { rate_limit_info: { status: 'rejected', resetsAt: Math.round(ms(3600) / 1000), rateLimitType: 'five_hour' } },
        ...extra,
      });
    expect(judge([user(0, 'go'), streamed({ parent_tool_use_id: null })], 3).part.failed).toMatchObject({ kind: 'usage_limit' });
    expect(judge([user(0, 'go'), streamed({ parent_tool_use_id: 'toolu_1', agent_id: 'a1' })], 3).part.failed).toBeUndefined();
  });
});

describe('one give-up seen by the transcript and by the StopFailure hook', () => {
  const transcript = () => summarizeTranscript(parseTranscriptText(jsonl(user(0, 'go'), loginGaveUp(2, 3600))).state, { nowMs: ms(3) });
  const hook = (s: number): PartialObservation => ({
    source: 'hooks',
    lastProgressMs: ms(s),
    failed: { kind: 'rate_limit', atMs: ms(s), detail: 'StopFailure: rate_limit' },
  });

  it('is told by the transcript, which names the limit and its reset, though the hook fired after it', () => {
    for (const parts of [
      [transcript(), hook(2.08)],
      [hook(2.08), transcript()],
    ]) {
      const obs = mergeObservations(parts, CLAUDE_LENS);
      expect(obs.failed).toMatchObject({ kind: 'usage_limit', atMs: ms(2) });
      expect(assess(makeTask(), obs, DEFAULT_POLICY, ms(3))).toMatchObject({ kind: 'stalled', stallReason: 'usage_limit' });
    }
  });

  it('a hook failure seconds later is a give-up of its own: the newer is told', () => {
    expect(mergeObservations([transcript(), hook(5)], CLAUDE_LENS).failed).toMatchObject({ kind: 'rate_limit', atMs: ms(5) });
  });
});

describe('a usage limit and the turn a notification wakes', () => {
  // A lead at the limit, woken by its subagent's failure (delivered as a prompt): Claude Code refuses
  // the woken turn without a request or a record, and a `-p` run then ends (measured on 2.1.337).
  const woken = (s: number) => user(s, notification('a1', 'failed'), { origin: { kind: 'task-notification' } });

  it('does not end the give-up while the limit holds: the row stays usage_limit, not a run that ended', () => {
    const { part, verdict } = judge([user(0, 'go'), loginGaveUp(2, 3600), woken(2.03)], 10);
    expect(part.failed).toMatchObject({ kind: 'usage_limit', atMs: ms(2) });
    expect(verdict).toMatchObject({ kind: 'stalled', stallReason: 'usage_limit' });
  });

  it('ends it once the limit has reset, and a rate-limit give-up at once, as any give-up', () => {
    expect(judge([user(0, 'go'), loginGaveUp(2, 60), woken(61)], 62).part.failed).toBeUndefined();
    const plain = assistant(2, [text('API Error: Request rejected (429)')], { error: 'rate_limit', isApiErrorMessage: true, apiErrorStatus: 429 });
    expect(judge([user(0, 'go'), plain, woken(3)], 4).part.failed).toBeUndefined();
  });

  it('the model answering the woken turn ends it (the limit lifted)', () => {
    expect(judge([user(0, 'go'), loginGaveUp(2, 3600), woken(3), assistant(4, [text('Reading the failure.')])], 5).part.failed).toBeUndefined();
  });
});

describe('a hostile reset time', () => {
  it('is no reset (no date can hold it), never a throw: the limit named, its reset unsaid', () => {
    for (const resetsAt of [1e20, -5, 0, 'soon']) {
      const rec = assistant(2, [text("You've hit your 5-hour limit")], {
        isApiErrorMessage: true,
        error: 'rate_limit',
        apiError: 'usage_limit_reached',
        quotaLimits: { status: 'rejected', resetsAt, rateLimitType: 'five_hour' },
      });
      const { part } = judge([user(0, 'go'), rec], 3);
      expect(part.failed, String(resetsAt)).toMatchObject({ kind: 'usage_limit', detail: "You've hit your 5-hour limit (the plan's five hour usage limit)" });
      const retried = judge([user(0, 'go'), retry(1, 1, { rateLimitType: 'five_hour', resetsAt }), gaveUp(2)], 3);
      expect(retried.part.failed?.kind, String(resetsAt)).toBe('rate_limit');
    }
  });
});
