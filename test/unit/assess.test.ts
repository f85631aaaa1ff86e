import { describe, expect, it } from 'vitest';
import { assess, type Verdict } from '../../src/core/assess.js';
import { DEFAULT_POLICY, type Policy } from '../../src/core/policy.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import type { Task } from '../../src/contracts/state-file.js';
import { classifyStatus } from '../../src/contracts/state-file.js';
import { makeObs, makeTask, T0 } from '../helpers/builders.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const S = 1000;
const policy = (baseSeconds: number): Policy => ({ ...DEFAULT_POLICY, baseTimeoutMs: baseSeconds * S });
/** Assess a task from its row alone, as of T0 + `atSeconds`. */
const fromRow = (task: Partial<Task>, atSeconds: number, baseSeconds = 120): Verdict => {
  const t = makeTask({ ...task, statusClass: classifyStatus(task.status ?? 'in_progress') });
  return assess(t, mergeObservations([observeRow(t)]), policy(baseSeconds), T0 + atSeconds * S);
};

describe('assess: the stall window', () => {
  it.each([
    ['idle exactly the timeout is healthy', { lastActivityMs: T0 }, 120_000, 120, 'healthy'],
    ['one millisecond more is stalled', { lastActivityMs: T0 }, 120_001, 120, 'stalled'],
    [
      'a base of 300 s keeps a 130 s Bash call at 300 s (healthy at 300 s)',
      { lastActivityMs: T0, lastToolName: 'Bash', lastToolTimeoutMs: 130_000 },
      300_000,
      300,
      'healthy',
    ],
    ['... and stalled just after 300 s', { lastActivityMs: T0, lastToolName: 'Bash', lastToolTimeoutMs: 130_000 }, 300_001, 300, 'stalled'],
    [
      'base 120 s with a 600000 ms Bash call gives 660 s (healthy at 660 s)',
      { lastActivityMs: T0, lastToolName: 'Bash', lastToolTimeoutMs: 600_000 },
      660_000,
      120,
      'healthy',
    ],
    ['... and stalled just after 660 s', { lastActivityMs: T0, lastToolName: 'Bash', lastToolTimeoutMs: 600_000 }, 660_001, 120, 'stalled'],
    [
      'a Bash timeout of exactly 120000 ms is not an exemption',
      { lastActivityMs: T0, lastToolName: 'Bash', lastToolTimeoutMs: 120_000 },
      120_001,
      120,
      'stalled',
    ],
    [
      'a long timeout on a tool other than Bash is not an exemption',
      { lastActivityMs: T0, lastToolName: 'Read', lastToolTimeoutMs: 600_000 },
      120_001,
      120,
      'stalled',
    ],
    [
      '"Rate limit hit, retrying" doubles the window (healthy at 240 s)',
      { lastActivityMs: T0, lastOutput: 'Rate limit hit, retrying' },
      240_000,
      120,
      'healthy',
    ],
    ['... and stalled just after 240 s', { lastActivityMs: T0, lastOutput: 'Rate limit hit, retrying' }, 240_001, 120, 'stalled'],
    [
      '`gh run watch` gives at least 600 s',
      { lastActivityMs: T0, lastToolName: 'Bash', lastToolCommand: 'gh run watch 12345 --exit-status' },
      600_000,
      120,
      'healthy',
    ],
    ['... and stalls after 600 s', { lastActivityMs: T0, lastToolName: 'Bash', lastToolCommand: 'gh run watch 12345 --exit-status' }, 600_001, 120, 'stalled'],
    ['a never-active task stalls from its dispatched_at', { dispatchedAtMs: T0 }, 120_001, 120, 'stalled'],
    ['a never-active task is healthy until then', { dispatchedAtMs: T0 }, 120_000, 120, 'healthy'],
  ] as const)('%s', (_name, task, atMs, base, expected) => {
    const t = makeTask({ ...task, statusClass: 'in_flight' });
    const v = assess(t, mergeObservations([observeRow(t)]), policy(base), T0 + atMs);
    expect(v.kind).toBe(expected);
  });

  it('records the effective window and every exemption that applied, by name', () => {
    const v = fromRow({ lastActivityMs: T0, lastToolName: 'Bash', lastToolTimeoutMs: 600_000, lastToolCommand: 'gh run watch 1', lastOutput: 'retrying' }, 10);
    expect(v.effectiveTimeoutMs).toBe(660_000);
    expect(v.exemptions).toEqual(['bash_long_timeout', 'rate_limit', 'ci_polling']);
    expect(v.hasShellTimeoutExemption).toBe(true);
  });

  it('the Bash exemption that does not widen the window is listed but not flagged', () => {
    const v = fromRow({ lastActivityMs: T0, lastToolName: 'Bash', lastToolTimeoutMs: 130_000 }, 10, 300);
    expect(v.effectiveTimeoutMs).toBe(300_000);
    expect(v.exemptions).toEqual(['bash_long_timeout']);
    expect(v.hasShellTimeoutExemption).toBe(false);
  });

  it('a task with no activity falls back to the wave dispatch time (normalised into dispatchedAtMs)', () => {
    const v = fromRow({ dispatchedAtMs: T0 }, 200);
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'never_started', idleMs: 200_000, lastProgressMs: T0 });
  });

  it('reports the deadline at which a healthy task would stall', () => {
    expect(fromRow({ lastActivityMs: T0 + 5 * S }, 10).deadlineMs).toBe(T0 + 125 * S);
  });
});

describe('assess: precedence', () => {
  it('a timestamp 10 minutes in the future is inconsistent, never stalled', () => {
    const v = fromRow({ lastActivityMs: T0 + 600 * S }, 0);
    expect(v.kind).toBe('inconsistent');
    expect(v.reason).toBe('last activity is 600s in the future (clock skew or a bad timestamp)');
  });

  it('a timestamp 4 minutes ahead is tolerated (clock skew under 5 minutes)', () => {
    expect(fromRow({ lastActivityMs: T0 + 240 * S }, 0).kind).toBe('healthy');
  });

  it('a task with no evidence and no dispatch time is unknown', () => {
    const v = fromRow({ dispatchedAtMs: undefined }, 10_000);
    expect(v.kind).toBe('unknown');
    expect(v.reason).toBe('no activity evidence and no dispatched_at');
  });

  it.each(['completed', 'merged', 'failed', 'cancelled', 'timeout'])('terminal status %s is not evaluated', (status) => {
    const v = fromRow({ status, lastActivityMs: T0 }, 100_000);
    expect(v.kind).toBe('terminal');
    expect(v.idleMs).toBeUndefined();
  });

  it('blocked is blocked, however long it has been silent', () => {
    expect(fromRow({ status: 'blocked', lastActivityMs: T0 }, 100_000).kind).toBe('blocked');
  });

  it('an unrecognised status is unknown and says which', () => {
    const v = fromRow({ status: 'paused', lastActivityMs: T0 }, 100_000);
    expect(v.kind).toBe('unknown');
    expect(v.reason).toBe(
      'status "paused" is not one the watchdog knows (expected in_progress, running, dispatched, blocked or a terminal status): this agent is NOT watched',
    );
  });

  it.each([
    ['in-progress', 'in_progress'],
    ['In Progress', 'in_progress'],
    ['runing', 'running'],
    ['complete', 'completed'],
    ['blokced', 'blocked'],
  ])('a near-miss status %j asks "did you mean %s?"', (status, guess) => {
    const v = fromRow({ status, lastActivityMs: T0 }, 1000);
    expect(v.kind).toBe('unknown');
    expect(v.reason).toContain(`(did you mean "${guess}"? expected`);
  });

  it('a stall never reads as idle equal to its window: whole seconds keep the decimals that differ', () => {
    const at = (idleMs: number) => fromRow({ lastActivityMs: T0 }, idleMs / 1000, 20).reason;
    expect(at(20_400)).toBe('no progress for 20.4s (window 20s)');
    expect(at(20_001)).toBe('no progress for 20.001s (window 20s)');
    expect(at(21_600)).toBe('no progress for 22s (window 20s)');
  });

  it('finished evidence while the row says in progress is inconsistent', () => {
    const v = assess(makeTask(), makeObs({ finished: { kind: 'result' }, lastProgressMs: T0 }), policy(120), T0 + 1_000_000);
    expect(v.kind).toBe('inconsistent');
  });

  it("a Stop hook's definite finish wins over the transcript's inferred one, whatever the order: the end is seen at once (issue 17 item 6)", () => {
    const t = makeTask();
    const transcript = { source: 'transcript' as const, lastProgressMs: T0, finished: { kind: 'final_answer', atMs: T0, isInferred: true } };
    const hooks = { source: 'hooks' as const, lastProgressMs: T0 + 200, finished: { kind: 'Stop', atMs: T0 + 200 } };
    for (const parts of [
      [observeRow(t), transcript, hooks],
      [observeRow(t), hooks, transcript],
    ]) {
      const obs = mergeObservations(parts);
      expect(obs.finished).toEqual({ kind: 'Stop', atMs: T0 + 200 });
      expect(assess(t, obs, policy(120), T0 + 1_000).kind).toBe('inconsistent');
    }
    // The inferred finish alone still waits out the window.
    expect(assess(t, mergeObservations([observeRow(t), transcript]), policy(120), T0 + 1_000).kind).toBe('healthy');
  });

  it('waiting on a permission prompt is waiting_human, not stalled', () => {
    const v = assess(makeTask(), makeObs({ lastProgressMs: T0, waitingHuman: { kind: 'permission_prompt' } }), policy(120), T0 + 1_000_000);
    expect(v.kind).toBe('waiting_human');
  });

  it('an agent the human interrupted waits for the human while its process lives (or is not known); gone, it stalls', () => {
    const obs = (isProcessAlive?: boolean) =>
      makeObs({ lastProgressMs: T0, waitingHuman: { kind: 'interrupted', sinceMs: T0 + 2_000 }, ...(isProcessAlive === undefined ? {} : { isProcessAlive }) });
    expect(assess(makeTask(), obs(), policy(120), T0 + 3_600_000).kind).toBe('waiting_human');
    expect(assess(makeTask(), obs(true), policy(120), T0 + 3_600_000).kind).toBe('waiting_human');
    expect(assess(makeTask(), obs(false), policy(120), T0 + 120_001)).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
    expect(assess(makeTask({ hasExited: true }), obs(), policy(120), T0 + 120_001).kind).toBe('stalled');
    // A question still open with the process gone is not the interruption rule's to decide.
    expect(
      assess(makeTask(), makeObs({ lastProgressMs: T0, waitingHuman: { kind: 'ask_user_question' }, isProcessAlive: false }), policy(120), T0 + 120_001).kind,
    ).toBe('waiting_human');
  });

  it('a team lead waiting on teammates that still work is never stalled for silence (their transcripts are not read)', () => {
    const obs = makeObs({ lastProgressMs: T0, waitingOnTeam: { members: ['scaffolder@canvas-build'] } });
    const v = assess(makeTask(), obs, policy(120), T0 + 3_600_000);
    expect(v).toMatchObject({ kind: 'healthy', idleMs: 3_600_000 });
    expect(v.deadlineMs).toBeUndefined();
    expect(v.reason).toContain('waiting on teammate scaffolder@canvas-build');
    // Before the window it is the ordinary healthy verdict, which names the wait.
    expect(assess(makeTask(), obs, policy(120), T0 + 60_000).reason).toContain('waiting on teammate scaffolder@canvas-build');
    // A lead whose process is gone cannot be woken by its team (in-process teammates die with it): it stalls.
    expect(assess(makeTask(), makeObs({ ...obs, isProcessAlive: false }), policy(120), T0 + 120_001)).toMatchObject({
      kind: 'stalled',
      stallReason: 'inactivity',
    });
    expect(assess(makeTask({ hasExited: true }), obs, policy(120), T0 + 120_001).kind).toBe('stalled');
    // A give-up still wins: the lead's own record says it failed.
    expect(assess(makeTask(), makeObs({ ...obs, failed: { kind: 'overloaded', atMs: T0 } }), policy(120), T0 + 1).kind).toBe('stalled');
  });

  it('an open tool call never stalls before its own timeout plus 60 s', () => {
    const obs = makeObs({ lastProgressMs: T0, lastTool: { name: 'Bash', timeoutMs: 300_000, isOpen: true, startedAtMs: T0 } });
    expect(assess(makeTask(), obs, policy(120), T0 + 360_000).kind).toBe('healthy');
    const late = assess(makeTask(), obs, policy(120), T0 + 360_001);
    expect(late).toMatchObject({ kind: 'stalled', stallReason: 'open_tool_overrun' });
    expect(late.exemptions).toEqual(['bash_long_timeout', 'open_tool_call']);
  });

  // The seed's rule (issue 33 item 7): only a Bash timeout over 120 s widens the window. Claude
  // Code's default 120 s gave 180 s here, and a session cut mid-call was flagged a minute late.
  it("an open Bash call with no long timeout of its own gets max(base, its limit + 5 s) (the seed's rule, never under Claude Code's own timeout and the moment it takes to write the result)", () => {
    const obs = makeObs({ lastProgressMs: T0, lastTool: { name: 'Bash', isOpen: true, defaultTimeoutMs: 120_000, kind: 'shell' } });
    // At the seed's default 120 s: 125 s, not 120 s + 60 s.
    expect(assess(makeTask(), obs, policy(120), T0 + 125_001)).toMatchObject({
      kind: 'stalled',
      effectiveTimeoutMs: 125_000,
      exemptions: ['bash_long_timeout'],
    });
    // Under a 60 s base: Claude Code's 120 s default + 5 s, flagged the moment it has passed.
    expect(assess(makeTask(), obs, policy(60), T0 + 125_000).kind).toBe('healthy');
    expect(assess(makeTask(), obs, policy(60), T0 + 125_001)).toMatchObject({
      kind: 'stalled',
      effectiveTimeoutMs: 125_000,
      exemptions: ['bash_long_timeout'],
      hasShellTimeoutExemption: true,
    });
    // So does one with a timeout of its own up to 120 s: its own + 5 s.
    const short = makeObs({ lastProgressMs: T0, lastTool: { name: 'Bash', isOpen: true, timeoutMs: 90_000, defaultTimeoutMs: 120_000, kind: 'shell' } });
    expect(assess(makeTask(), short, policy(60), T0 + 95_001)).toMatchObject({ kind: 'stalled', effectiveTimeoutMs: 95_000 });
    // With its process known alive the call keeps its limit + grace: past it, most likely a permission prompt.
    const alive = makeObs({ lastProgressMs: T0, isProcessAlive: true, lastTool: { name: 'Bash', isOpen: true, defaultTimeoutMs: 120_000, kind: 'shell' } });
    expect(assess(makeTask({ pid: 42 }), alive, policy(60), T0 + 180_000).kind).toBe('healthy');
    expect(assess(makeTask({ pid: 42 }), alive, policy(60), T0 + 180_001).kind).toBe('waiting_human');
  });

  it('API retry records give the rate-limit exemption without any text', () => {
    const v = assess(makeTask(), makeObs({ lastProgressMs: T0, isApiRetrying: true }), policy(120), T0 + 200_000);
    expect(v).toMatchObject({ kind: 'healthy', exemptions: ['rate_limit'], effectiveTimeoutMs: 240_000 });
  });

  it('the same call with the same input 4 times in a row is looping', () => {
    const call = { name: 'Read', inputSummary: 'src/a.ts', isOpen: false };
    const v = assess(makeTask(), makeObs({ lastProgressMs: T0, recentCalls: [call, call, call, call] }), policy(120), T0 + 1000);
    expect(v.kind).toBe('looping');
    expect(v.reason).toBe('same Read call repeated 4 times in a row');
    expect(assess(makeTask(), makeObs({ lastProgressMs: T0, recentCalls: [call, call, call] }), policy(120), T0 + 1000).kind).toBe('healthy');
  });

  it('asking again how background work is going (TaskList, TaskOutput, BashOutput…) is waiting, not a loop', () => {
    for (const name of ['TaskList', 'TaskGet', 'TaskOutput', 'BashOutput']) {
      const call = { name, inputSummary: '{}', isOpen: false };
      expect(assess(makeTask(), makeObs({ lastProgressMs: T0, recentCalls: [call, call, call, call, call] }), policy(120), T0 + 1000).kind, name).toBe(
        'healthy',
      );
    }
  });

  it('the same error 3 times is looping', () => {
    const calls = ['a', 'b', 'c'].map((f) => ({ name: 'Bash', inputSummary: f, isOpen: false, error: 'ENOENT: no such file' }));
    expect(assess(makeTask(), makeObs({ lastProgressMs: T0, recentCalls: calls }), policy(120), T0 + 1000).kind).toBe('looping');
  });

  it('a missing transcript with no other evidence is starting within the window (never "unknown"), then never_started naming where we looked', () => {
    const obs = makeObs({ missing: [{ source: 'transcript', reason: 'not found at /x.jsonl' }] });
    const early = assess(makeTask(), obs, policy(120), T0 + 18_000);
    expect(early).toMatchObject({
      kind: 'healthy',
      reason: 'starting: dispatched 18s ago, no record yet (window 120s; transcript: not found at /x.jsonl)',
      deadlineMs: T0 + 120_000,
    });
    expect(assess(makeTask(), obs, policy(120), T0 + 120_000).kind).toBe('healthy');
    const v = assess(makeTask(), obs, policy(120), T0 + 1_000_000);
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'never_started', idleMs: 1_000_000 });
    expect(v.reason).toBe('never started: no activity in 1000s since dispatch (window 120s); looked in: transcript: not found at /x.jsonl');
  });

  it('is deterministic: the same inputs give the same verdict', () => {
    const t = makeTask({ lastActivityMs: T0 });
    const o = mergeObservations([observeRow(t)]);
    expect(assess(t, o, policy(120), T0 + 500_000)).toEqual(assess(t, o, policy(120), T0 + 500_000));
  });

  it('a replacement we launched whose process exited is done when its output says it finished', () => {
    const t = makeTask({ isOwnReplacement: true, hasExited: true, status: 'exited' });
    const v = assess(t, makeObs({ lastProgressMs: T0, finished: { kind: 'turn ended' } }), policy(120), T0 + 5000);
    expect(v).toMatchObject({ kind: 'terminal', reason: 'the agent finished (turn ended) and its process exited' });
    // Still exiting: its own finish is the end, not a contradiction with a row (it has none).
    const alive = assess(
      { ...t, hasExited: false, status: 'in_progress' },
      makeObs({ lastProgressMs: T0, finished: { kind: 'result success' } }),
      policy(120),
      T0 + 5000,
    );
    expect(alive).toMatchObject({ kind: 'terminal', reason: 'the agent finished (result success)' });
  });

  it('... and stalls like any silent agent when it died mid-task', () => {
    const t = makeTask({ isOwnReplacement: true, hasExited: true, status: 'exited' });
    const obs = makeObs({ lastProgressMs: T0, lastTool: { name: 'Bash', isOpen: true, timeoutMs: 10_000 } });
    expect(assess(t, obs, policy(120), T0 + 60_000).kind).toBe('healthy');
    const v = assess(t, obs, policy(120), T0 + 120_001);
    expect(v.kind).toBe('stalled');
    expect(v.reason).toBe('Bash call open 120.001s, past its own timeout plus grace (window 120s); its process exited without finishing');
  });
});

describe('assess: exemptions follow the open call when a source can tell (issue 10 cause 1)', () => {
  const row = { lastActivityMs: T0 + 300 * S, lastToolName: 'Bash', lastToolTimeoutMs: 600_000, lastToolCommand: 'make all' };
  const closedBash = { name: 'Bash', command: 'make all', timeoutMs: 600_000, startedAtMs: T0, isOpen: false, isOpenKnown: true };

  it('the row alone keeps the seed rule: its last Bash timeout widens the window', () => {
    expect(fromRow(row, 300 + 121).kind).toBe('healthy');
  });

  it('a transcript that saw the call return beats the row, even when the row is written later', () => {
    const t = makeTask({ ...row, statusClass: 'in_flight' });
    const obs = mergeObservations([observeRow(t), { source: 'transcript', lastProgressMs: T0 + 300 * S, lastTool: closedBash, isOutputTracked: true }]);
    const v = assess(t, obs, DEFAULT_POLICY, T0 + 420 * S + 1);
    expect(v).toMatchObject({ kind: 'stalled', exemptions: [], effectiveTimeoutMs: 120_000 });
  });

  it('with a transcript, the row\'s "retrying" text is not backoff; API retry records are', () => {
    const t = makeTask({ lastActivityMs: T0, lastOutput: 'Rate limit hit, retrying', statusClass: 'in_flight' });
    const tracked = mergeObservations([observeRow(t), { source: 'transcript', lastProgressMs: T0, isOutputTracked: true }]);
    expect(assess(t, tracked, DEFAULT_POLICY, T0 + 121 * S).kind).toBe('stalled');
    const retrying = mergeObservations([observeRow(t), { source: 'transcript', lastProgressMs: T0, isOutputTracked: true, isApiRetrying: true }]);
    expect(assess(t, retrying, DEFAULT_POLICY, T0 + 121 * S)).toMatchObject({ kind: 'healthy', exemptions: ['rate_limit'] });
  });
});

describe('reason words (issue 33 item 8)', () => {
  it('a question is "ask user question", not "ask user_question"', () => {
    const v = assess(
      makeTask(),
      makeObs({ lastProgressMs: T0, waitingHuman: { kind: 'ask_user_question', sinceMs: T0, detail: 'Which name?' } }),
      DEFAULT_POLICY,
      T0 + 10 * S,
    );
    expect(v.kind).toBe('waiting_human');
    expect(v.reason).toBe('waiting for a human: ask user question (Which name?)');
  });
});

describe("assess: a run's end read from the row's pid alone", () => {
  const rowPidEnd = { atMs: T0, detail: "its process 77 (the row's pid) is gone and no Claude Code process runs its session", isRowPidOnly: true };

  it('is refuted by progress stamped after it (the pid was a wrapper that exited while its agent works on): judged on its evidence', () => {
    const v = assess(makeTask(), makeObs({ sources: ['transcript', 'process'], runEnded: rowPidEnd, lastProgressMs: T0 + 30 * S }), policy(120), T0 + 40 * S);
    expect(v).toMatchObject({ kind: 'healthy', idleMs: 10 * S });
    // Its silence is still a stall, a window after that progress.
    const late = assess(
      makeTask(),
      makeObs({ sources: ['transcript', 'process'], runEnded: rowPidEnd, lastProgressMs: T0 + 30 * S }),
      policy(120),
      T0 + 151 * S,
    );
    expect(late).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
  });

  it('holds when the last progress is from before it (within the slack of two clocks), and an end a hook or the registry saw is never refuted', () => {
    const dead = assess(makeTask(), makeObs({ sources: ['transcript', 'process'], runEnded: rowPidEnd, lastProgressMs: T0 + 2 * S }), policy(120), T0 + 40 * S);
    expect(dead).toMatchObject({ kind: 'stalled', stallReason: 'run_ended' });
    const hookEnd = { atMs: T0, detail: 'SessionEnd (reason other)' };
    const ended = assess(makeTask(), makeObs({ sources: ['transcript', 'hooks'], runEnded: hookEnd, lastProgressMs: T0 + 30 * S }), policy(120), T0 + 40 * S);
    expect(ended).toMatchObject({ kind: 'stalled', stallReason: 'run_ended' });
  });
});
