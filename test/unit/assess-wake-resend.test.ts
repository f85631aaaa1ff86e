// Two readings of issue 38 at the verdict: a lost completion wake (a lead whose background
// subagents all answered, never woken) is `wake_lost` at its window, not deferred to a child's
// row; a subagent's resends pace its backoff (`api_resend`), bounded, never a blanket exemption.
import { describe, expect, it } from 'vitest';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY, type Policy } from '../../src/core/policy.js';
import type { PartialObservation } from '../../src/observe/parse/observation.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { makeTask, T0 } from '../helpers/builders.js';

const S = 1000;
const policy = (base: number): Policy => ({ ...DEFAULT_POLICY, baseTimeoutMs: base * S });
const judge = (parts: PartialObservation[], atS: number, base = 30, rowOfAgent?: Map<string, string>) =>
  assess(makeTask({ taskId: 'lead' }), mergeObservations(parts, CLAUDE_LENS), policy(base), T0 + atS * S, rowOfAgent ? { rowOfAgent } : {});

/** A lead whose turn ended at T0 + 2 s waiting on background subagent a1, which answered at T0 + 10 s. */
const lead = (answered: boolean): PartialObservation => ({
  source: 'transcript',
  lastProgressMs: T0 + 10 * S,
  recentCalls: [],
  waitingOnChildren: {
    agentIds: ['a1'],
    lastProgressMs: T0 + 10 * S,
    isBackground: true,
    ...(answered ? { finishedIds: ['a1'], finishedAtMs: T0 + 10 * S } : {}),
  },
});

describe('a lost completion wake', () => {
  it('is healthy within the window after the child answered, then stalled (wake_lost) naming it', () => {
    expect(judge([lead(true)], 40).kind).toBe('healthy');
    const v = judge([lead(true)], 41);
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'wake_lost' });
    expect(v.reason).toMatch(
      /^lost completion wake: background subagent a1 finished 31s ago \(its transcript ends with its final answer\), and no completion notification reached this agent in 31s \(window 30s\)/,
    );
  });

  it("is not deferred to the child's own row (finished: nothing would act on it), as a child still at work is", () => {
    const rows = new Map([['a1', 'sub']]);
    expect(judge([lead(true)], 41, 30, rows)).toMatchObject({ kind: 'stalled', stallReason: 'wake_lost' });
    expect(judge([lead(false)], 41, 30, rows)).toMatchObject({ kind: 'healthy' });
    expect(judge([lead(false)], 41)).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
  });
});

/** A subagent whose last request (T0 + 20 s) was a resend `gap` s after the one before, no response since. */
const resent = (gap: number, extra: Partial<PartialObservation> = {}): PartialObservation => ({
  source: 'transcript',
  lastProgressMs: T0 + 20 * S,
  recentCalls: [],
  apiResend: { sinceMs: T0 + 20 * S, gapMs: gap * S, count: 1 },
  ...extra,
});

describe("a subagent's resends (no retry record)", () => {
  it('widen the window to twice the last gap + 10 s while that is longer than the base, named api_resend, never rate_limit', () => {
    const v = judge([resent(14)], 20 + 38);
    expect(v).toMatchObject({ kind: 'healthy', effectiveTimeoutMs: 38_000, exemptions: ['api_resend'] });
    const late = judge([resent(14)], 20 + 38.001);
    expect(late).toMatchObject({ kind: 'stalled', stallReason: 'inactivity', transportCause: 'frozen_stream' });
  });

  it('leave the base window alone when the pace is faster than it (the frozen stream resent 10 s after it: flagged one window after the resend)', () => {
    expect(judge([resent(10)], 20 + 31)).toMatchObject({ kind: 'stalled', effectiveTimeoutMs: 30_000, exemptions: [] });
  });

  it('take a gap of at most 300 s for the pace, and yield to a retry record when there is one', () => {
    expect(judge([resent(900)], 20).effectiveTimeoutMs).toBe(610_000);
    const withRetry = judge([resent(14, { isApiRetrying: true, apiRetryDelayMs: 5_000 })], 20);
    expect(withRetry.exemptions).toEqual(['rate_limit']);
  });
});
