// The seed's Bash rule for a shell call's own limit (issue 33 item 7, docs/verdicts.md): a call
// with a timeout over 120 s of its own gets that timeout + 60 s; one with a shorter limit T (its
// own, or Claude Code's 120 s default) gets max(window, T + 5 s): the seed's base window whenever
// that is at least T + 5 s, never less than the limit (a build still inside Claude Code's own
// timeout is never stalled under a short window), and 5 s more for Claude Code to end the call and
// write its result (measured 0.45 to 0.9 s after T: a window of exactly T races that write). Judged
// from transcript lines through the check's parse and merge; a crash during the call is flagged at
// the effective window + 1 ms, and `bash_timeout_exemption` holds exactly when that window exceeds W.
import { describe, expect, it } from 'vitest';
import { parseTranscriptText } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { observeTranscript } from '../../src/agents/claude-code/parse/observe-transcript.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY, type Policy } from '../../src/core/policy.js';
import type { PartialObservation } from '../../src/observe/parse/observation.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { makeTask } from '../helpers/builders.js';
import { assistant, jsonl, ms, toolResult, toolUse, user } from '../helpers/claude-lines.js';

const S = 1000;
const policy = (w: number): Policy => ({ ...DEFAULT_POLICY, baseTimeoutMs: w * S });
/** A session whose Bash call (with `timeout` ms of its own, or none) opened at 1 s and is still open. */
const openBash = (timeout?: number) =>
  jsonl(user(0, 'build it'), assistant(1, [toolUse('toolu_b', 'Bash', { command: 'npm run build', ...(timeout === undefined ? {} : { timeout }) })]));
const obsOf = (text: string, extra: PartialObservation[] = []) =>
  mergeObservations([observeTranscript(parseTranscriptText(text).state), ...extra], CLAUDE_LENS);
const task = makeTask({ dispatchedAtMs: ms(0) });
const judge = (text: string, w: number, atSeconds: number, extra: PartialObservation[] = []) =>
  assess(task, obsOf(text, extra), policy(w), ms(1) + atSeconds * S);

// [base window W, the call's own timeout (undefined: Claude Code's 120 s default), effective window, bash_timeout_exemption]
// A limit T of 120 s or less gives max(W, T + 5 s): the 5 s is the moment Claude Code takes to end
// the call and write its result (measured 0.45 to 0.9 s after T on a loaded machine).
const TABLE: [number, number | undefined, number, boolean][] = [
  [30, undefined, 125, true],
  [30, 60_000, 65, true],
  [30, 300_000, 360, true],
  [120, undefined, 125, true],
  [120, 60_000, 120, false],
  [120, 300_000, 360, true],
  [600, undefined, 600, false],
  [600, 60_000, 600, false],
  [600, 300_000, 600, false],
];

describe("the seed's Bash rule, on transcript lines", () => {
  it.each(TABLE)('W = %i s, timeout %s ms: a crash during the call is flagged at %i s + 1 ms (bash_timeout_exemption %s)', (w, t, windowS, isExempt) => {
    const text = openBash(t);
    const at = judge(text, w, windowS);
    expect(at, at.reason).toMatchObject({ kind: 'healthy', effectiveTimeoutMs: windowS * S, hasShellTimeoutExemption: isExempt });
    const late = assess(task, obsOf(text), policy(w), ms(1) + windowS * S + 1);
    expect(late, late.reason).toMatchObject({ kind: 'stalled', effectiveTimeoutMs: windowS * S, hasShellTimeoutExemption: isExempt });
    // Well within the ≤ 1 s the issue allows.
    expect(judge(text, w, windowS + 1)).toMatchObject({ kind: 'stalled' });
  });

  it.each(TABLE)('W = %i s, timeout %s ms: a build at its limit − 5 s, and at its limit, is healthy', (w, t) => {
    const limitS = (t ?? 120_000) / S;
    const v = judge(openBash(t), w, limitS - 5);
    expect(v, v.reason).toMatchObject({ kind: 'healthy', lastTool: 'Bash', isLastToolOpen: true });
    expect(judge(openBash(t), w, limitS + 0.9).kind).toBe('healthy');
  });

  it("equals the onex skill's window whenever W is at least the limit + 5 s, and is 5 s over it at its default 120 s (not 60 s)", () => {
    expect(judge(openBash(60_000), 120, 120.001)).toMatchObject({
      kind: 'stalled',
      effectiveTimeoutMs: 120_000,
      exemptions: [],
      hasShellTimeoutExemption: false,
    });
    expect(judge(openBash(), 125, 125.001)).toMatchObject({ kind: 'stalled', effectiveTimeoutMs: 125_000, hasShellTimeoutExemption: false });
    expect(judge(openBash(), 120, 125.001)).toMatchObject({ kind: 'stalled', effectiveTimeoutMs: 125_000, exemptions: ['bash_long_timeout'] });
  });

  it('a call Claude Code ended at its limit, its result written 0.9 s later (as measured), is never stalled in between', () => {
    const open = openBash(3_000);
    expect(judge(open, 1, 3.9)).toMatchObject({ kind: 'healthy', effectiveTimeoutMs: 8_000 });
    const ended = open + jsonl(user(4.9, [toolResult('toolu_b', 'Command timed out after 3s', true)]));
    expect(judge(ended, 1, 3.95)).toMatchObject({ kind: 'healthy' });
  });

  it('a call that returned widens nothing: the base window', () => {
    const text = openBash() + jsonl(user(2, [toolResult('toolu_b', 'built')]));
    expect(judge(text, 30, 31.001)).toMatchObject({ kind: 'stalled', effectiveTimeoutMs: 30_000, hasShellTimeoutExemption: false });
  });

  it('with the agent process known alive, a default-timeout call keeps its limit + grace (past it, most likely a permission prompt: waiting_human, never a stall in between)', () => {
    const alive: PartialObservation[] = [{ source: 'row', isProcessAlive: true }];
    const withPid = makeTask({ dispatchedAtMs: ms(0), pid: 42 });
    expect(assess(withPid, obsOf(openBash(), alive), policy(30), ms(1) + 150 * S)).toMatchObject({ kind: 'healthy', effectiveTimeoutMs: 180_000 });
    expect(assess(withPid, obsOf(openBash(), alive), policy(30), ms(1) + 180 * S + 1)).toMatchObject({ kind: 'waiting_human' });
    // Gone, the onex skill's rule: flagged at the call's limit (+ 5 s).
    const gone: PartialObservation[] = [{ source: 'row', isProcessAlive: false }];
    expect(assess(withPid, obsOf(openBash(), gone), policy(30), ms(1) + 125 * S + 1)).toMatchObject({ kind: 'stalled', effectiveTimeoutMs: 125_000 });
  });

  it("a row alone (it cannot say whether the call returned) keeps the seed's row rule: only a timeout over 120 s widens", () => {
    const row = makeTask({ dispatchedAtMs: ms(0), lastActivityMs: ms(1), lastToolName: 'Bash', lastToolTimeoutMs: 60_000 });
    const obs = mergeObservations([observeRow(row)], CLAUDE_LENS);
    expect(assess(row, obs, policy(30), ms(1) + 30 * S + 1)).toMatchObject({ kind: 'stalled', effectiveTimeoutMs: 30_000, hasShellTimeoutExemption: false });
  });
});
