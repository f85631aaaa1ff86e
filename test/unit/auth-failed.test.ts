// The API refusing an agent's credentials (HTTP 401/403), measured on Claude Code 2.1.197 and
// 2.1.337 (test/realagent/usage-limit-login.test.ts): the give-up says "Failed to authenticate. API
// Error: 401 …" with `error: "authentication_failed"`, after two retries for a 401, at once for a
// 403. A replacement would be refused the same way: `auth_failed`, escalated at once, never the
// api_gave_up a redispatch would answer (up to the redispatch limit, each refused in a second).
import { describe, expect, it } from 'vitest';
import { parseTranscriptText, summarizeTranscript } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import { makeTask } from '../helpers/builders.js';
import { assistant, jsonl, ms, text, user } from '../helpers/claude-lines.js';

const refused = (status: number) =>
  assistant(2, [text(`Failed to authenticate. API Error: ${status} {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)], {
    error: 'authentication_failed',
    isApiErrorMessage: true,
    apiErrorStatus: status,
  });

describe("the API refusing the agent's credentials", () => {
  it.each([401, 403])('a %i give-up is auth_failed: stalled at once, saying so', (status) => {
    const part = summarizeTranscript(parseTranscriptText(jsonl(user(0, 'go'), refused(status))).state, { nowMs: ms(3) });
    expect(part.failed).toMatchObject({ kind: 'auth_failed', atMs: ms(2) });
    const v = assess(makeTask(), mergeObservations([part], CLAUDE_LENS), DEFAULT_POLICY, ms(3));
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'auth_failed' });
    expect(v.reason).toMatch(/^the API refused the agent's credentials: Failed to authenticate\. API Error: 40[13] /);
    expect(v.transportCause).toBeUndefined();
  });

  it('the kinds Claude Code names itself: refused credentials, no credits left, a context that cannot shrink', () => {
    const kindOf = (fields: Record<string, unknown>, words = 'API Error: something') =>
      summarizeTranscript(parseTranscriptText(jsonl(user(0, 'go'), assistant(2, [text(words)], { isApiErrorMessage: true, ...fields }))).state).failed?.kind;
    // Measured (2.1.197 and 2.1.337): a 400 whose body says the credit balance is too low.
    expect(kindOf({ error: 'billing_error', apiErrorStatus: 400, resendCannotCure: true }, 'Credit balance is too low')).toBe('usage_limit');
    expect(kindOf({ error: 'billing_error' })).toBe('usage_limit');
    // 2.1.337's own kinds, from its table of what cures each.
    expect(kindOf({ error: 'invalid_request', apiError: 'token_revoked' })).toBe('auth_failed');
    expect(kindOf({ error: 'account_on_hold' })).toBe('auth_failed');
    expect(kindOf({ error: 'invalid_request', apiError: 'autocompact_thrashing' }, 'Autocompact is thrashing: the context refilled to the limit')).toBe(
      'context_exhausted',
    );
    expect(kindOf({ error: 'invalid_request', apiError: 'tool_history_mismatch' }, 'API Error: 400 due to tool use concurrency issues.')).toBe('api_error');
  });

  it('any other API error stays api_gave_up', () => {
    const other = assistant(2, [text('API Error: 400 bad request')], { error: 'unknown', isApiErrorMessage: true, apiErrorStatus: 400 });
    const part = summarizeTranscript(parseTranscriptText(jsonl(user(0, 'go'), other)).state, { nowMs: ms(3) });
    expect(assess(makeTask(), mergeObservations([part], CLAUDE_LENS), DEFAULT_POLICY, ms(3))).toMatchObject({ stallReason: 'api_gave_up' });
  });
});
