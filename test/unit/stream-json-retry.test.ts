// stream-json `system/api_retry` (issue 17 item 1): the only retry evidence 2.1.197 writes. Lines
// as a real `claude -p --output-format stream-json` run wrote them (429 with retry-after 1, then 529s);
// undated before 2.1.337, which stamps them `written_at`.
import { describe, expect, it } from 'vitest';
import { parseTranscriptText, summarizeTranscript } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { makeTask, T0 } from '../helpers/builders.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const init = { type: 'system', subtype: 'init', session_id: 's1', cwd: '/w', tools: [], model: 'claude' };
const retry = (attempt: number, delay: number, status = 429) => ({
  type: 'system',
  subtype: 'api_retry',
  attempt,
  max_retries: 10,
  retry_delay_ms: delay,
  error_status: status,
  error: status === 429 ? 'rate_limit' : 'overloaded',
  session_id: 's1',
  uuid: `u${attempt}`,
});
const gaveUp = {
  type: 'assistant',
  message: { id: 'x', model: '<synthetic>', role: 'assistant', type: 'message', content: [{ type: 'text', text: 'API Error: 529 Overloaded.' }] },
  parent_tool_use_id: null,
  session_id: 's1',
  error: 'server_error',
};
const text = (...recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join('\n') + '\n';
/** The stream-json file as one source, its records dated by the file's mtime. */
const observe = (recs: unknown[], mtimeMs: number) =>
  summarizeTranscript(parseTranscriptText(text(...recs), 'stream.jsonl').state, { mtimeMs, nowMs: mtimeMs });

describe('stream-json api_retry', () => {
  it('is backoff, with the announced wait, and the agent at work (dated by the mtime)', () => {
    const part = observe([init, retry(1, 40_000), retry(2, 40_000)], T0);
    expect(part).toMatchObject({ isApiRetrying: true, apiRetryDelayMs: 40_000, outputGrewAtMs: T0 });
    const v = assess(makeTask(), mergeObservations([part]), DEFAULT_POLICY, T0 + 200_000);
    expect(v).toMatchObject({ kind: 'healthy', exemptions: ['rate_limit'], effectiveTimeoutMs: 240_000 });
  });

  it('ends when the API answers', () => {
    const answered = {
      type: 'assistant',
      message: { id: 'm1', model: 'claude', role: 'assistant', type: 'message', content: [{ type: 'text', text: 'Done.' }] },
      session_id: 's1',
    };
    expect(observe([init, retry(1, 1000), answered], T0).isApiRetrying).toBeUndefined();
  });

  it('a give-up is failed at once; a retry after it (the run resumed) clears it', () => {
    expect(observe([init, retry(1, 600, 529), gaveUp], T0).failed).toMatchObject({ kind: 'overloaded' });
    expect(observe([init, retry(1, 600, 529), gaveUp, init, retry(1, 700, 529)], T0).failed).toBeUndefined();
  });
});

describe('a retry storm longer than the window after the last dated record', () => {
  // The agent answered at T0 (an assistant record with its own timestamp), then the next request
  // was retried eight times, 35 s apart: the newest retry was written 25 s before the judged
  // moment, 280 s after the last dated record (the rate-limit window is 240 s).
  const at = (s: number) => new Date(T0 + s * 1000).toISOString();
  const answered = {
    type: 'assistant',
    timestamp: at(0),
    message: { id: 'm1', model: 'claude', role: 'assistant', type: 'message', content: [{ type: 'text', text: 'Working.' }] },
    session_id: 's1',
  };
  const storm = (dated: boolean) => Array.from({ length: 8 }, (_, i) => ({ ...retry(i + 1, 30_000), ...(dated ? { written_at: at(10 + i * 35) } : {}) }));
  const lastRetryMs = T0 + (10 + 7 * 35) * 1000;
  const judge = (recs: unknown[], mtimeMs: number) => {
    const part = summarizeTranscript(parseTranscriptText(text(...recs), 'stream.jsonl').state, { mtimeMs, nowMs: T0 + 280_000 });
    return { part, verdict: assess(makeTask(), mergeObservations([part]), DEFAULT_POLICY, T0 + 280_000) };
  };

  it('undated retries (before 2.1.337): the newest, the last line written, is dated by the file mtime', () => {
    const { part, verdict } = judge([answered, ...storm(false)], lastRetryMs);
    expect(part.lastProgressMs).toBe(lastRetryMs);
    expect(verdict).toMatchObject({ kind: 'healthy', exemptions: ['rate_limit'] });
  });

  it("a harness line written after them: the mtime is its time, not the agent's, and the silence counts from the last dated record", () => {
    const hook = { type: 'system', subtype: 'hook_started', hook_event: 'Notification', session_id: 's1' };
    const { part, verdict } = judge([answered, ...storm(false), hook], lastRetryMs + 5_000);
    expect(part.lastProgressMs).toBe(T0);
    expect(verdict.kind).toBe('stalled');
  });

  it('2.1.337 stamps them (`written_at`): each retry is dated by its own record, whatever the mtime', () => {
    const hook = { type: 'system', subtype: 'hook_started', hook_event: 'Notification', session_id: 's1', written_at: at(270) };
    expect(judge([answered, ...storm(true)], lastRetryMs).part.lastProgressMs).toBe(lastRetryMs);
    // A dated harness line after them is session activity, as in a transcript.
    const { part, verdict } = judge([answered, ...storm(true), hook], T0 + 270_000);
    expect(part.lastProgressMs).toBe(T0 + 270_000);
    expect(verdict).toMatchObject({ kind: 'healthy', exemptions: ['rate_limit'] });
    // The same records without their dates: the mtime dates nothing (the newest is the harness's).
    const undated = judge([answered, ...storm(false), { ...hook, written_at: undefined }], T0 + 270_000);
    expect(undated.part.lastProgressMs).toBe(T0);
  });
});

describe('a delivered task-notification after a give-up', () => {
  it('clears the give-up: the woken agent must answer within its window', () => {
    const at = (s: number) => new Date(T0 + s * 1000).toISOString();
    const giveUp = {
      type: 'assistant',
      timestamp: at(0),
      sessionId: 's1',
      isApiErrorMessage: true,
      apiErrorStatus: 529,
      error: 'server_error',
      message: { id: 'e', model: '<synthetic>', role: 'assistant', content: [{ type: 'text', text: 'API Error: 529 Overloaded.' }] },
    };
    const woken = {
      type: 'user',
      timestamp: at(30),
      sessionId: 's1',
      message: {
        role: 'user',
        content: '<task-notification>\n<task-id>a0123456789abcdef</task-id>\n<status>completed</status>\n<summary>done</summary>\n</task-notification>',
      },
    };
    const state = parseTranscriptText(text(giveUp, woken), 'session.jsonl').state;
    expect(summarizeTranscript(parseTranscriptText(text(giveUp), 'session.jsonl').state).failed).toBeDefined();
    expect(summarizeTranscript(state).failed).toBeUndefined();
  });
});
