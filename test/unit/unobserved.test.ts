// Time the watchdog did not see pass (a paused machine, a clock stepped forward) is no agent's
// silence: the CI run of stop 26 paused about 9 s and a steady agent was called stalled for it.
import { describe, expect, it } from 'vitest';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { MAX_UNOBSERVED_SPANS, MIN_UNOBSERVED_MS, noteLateWake, unobservedSince, UNOBSERVED_KEEP_MS, type UnobservedSpan } from '../../src/core/unobserved.js';
import { judgeStartTime } from '../../src/act/agents/verify-target.js';
import { widenBootTimes } from '../../src/sys/proc-identity.js';
import { makeObs, makeTask, T0 } from '../helpers/builders.js';
import { answerByMs } from '../../src/core/requests.js';
import type { RequestRecord } from '../../src/core/history.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const S = 1000;

describe('noteLateWake', () => {
  it('records a wake late by the threshold or more, not timer jitter', () => {
    const spans: UnobservedSpan[] = [];
    noteLateWake(spans, T0, MIN_UNOBSERVED_MS - 1);
    noteLateWake(spans, T0 + S, MIN_UNOBSERVED_MS);
    expect(spans).toEqual([{ atMs: T0 + S, ms: MIN_UNOBSERVED_MS }]);
  });

  it('forgets spans a day old and keeps at most the newest few hundred', () => {
    const spans: UnobservedSpan[] = [];
    noteLateWake(spans, T0, 5 * S);
    noteLateWake(spans, T0 + UNOBSERVED_KEEP_MS + S, 5 * S);
    expect(spans).toEqual([{ atMs: T0 + UNOBSERVED_KEEP_MS + S, ms: 5 * S }]);
    for (let i = 0; i < MAX_UNOBSERVED_SPANS + 10; i++) noteLateWake(spans, T0 + UNOBSERVED_KEEP_MS + (i + 2) * S, 3 * S);
    expect(spans).toHaveLength(MAX_UNOBSERVED_SPANS);
    expect(spans.at(-1)!.atMs).toBe(T0 + UNOBSERVED_KEEP_MS + (MAX_UNOBSERVED_SPANS + 11) * S);
  });
});

describe('unobservedSince', () => {
  const spans = [{ atMs: T0 + 20 * S, ms: 9 * S }];
  it('counts a span whole when the silence began before the check that woke late', () => {
    expect(unobservedSince(spans, T0, T0 + 30 * S)).toBe(9 * S);
  });
  it('counts it only as far back as the silence reaches (where the pause fell is not known)', () => {
    expect(unobservedSince(spans, T0 + 16 * S, T0 + 30 * S)).toBe(4 * S);
  });
  it('does not count a span before the silence began, or one not yet reached', () => {
    expect(unobservedSince(spans, T0 + 20 * S, T0 + 30 * S)).toBe(0);
    expect(unobservedSince(spans, T0, T0 + 19 * S)).toBe(0);
    expect(unobservedSince(undefined, T0, T0 + 30 * S)).toBe(0);
  });
});

describe('assess with time the watchdog did not see pass', () => {
  const policy = { ...DEFAULT_POLICY, baseTimeoutMs: 4 * S };
  const task = makeTask({ lastActivityMs: T0, statusClass: 'in_flight' });
  const obs = mergeObservations([observeRow(task)]);

  it('a steady agent silent 9 s across a 9 s pause is healthy, and says why', () => {
    const v = assess(task, obs, policy, T0 + 9.5 * S, { unobserved: [{ atMs: T0 + 9.4 * S, ms: 9 * S }] });
    expect(v.kind).toBe('healthy');
    expect(v.reason).toContain('9s of it the watchdog did not see pass');
    expect(v.deadlineMs).toBe(T0 + 13 * S);
    // The same silence without the pause is a stall: the span is what decides.
    expect(assess(task, obs, policy, T0 + 9.5 * S).kind).toBe('stalled');
  });

  it('silence observed beyond the window is a stall still, pause or not', () => {
    const v = assess(task, obs, policy, T0 + 14 * S, { unobserved: [{ atMs: T0 + 9.4 * S, ms: 9 * S }] });
    expect(v).toMatchObject({ kind: 'stalled', idleMs: 14 * S });
    expect(v.reason).toContain('so 5s of silence is judged');
  });

  it('a row that never started is not called so across a pause', () => {
    const fresh = makeTask({ dispatchedAtMs: T0, statusClass: 'in_flight' });
    const o = makeObs({ missing: [{ source: 'transcript', reason: 'not found' }] });
    expect(assess(fresh, o, policy, T0 + 10 * S).kind).toBe('stalled');
    expect(assess(fresh, o, policy, T0 + 10 * S, { unobserved: [{ atMs: T0 + 10 * S, ms: 8 * S }] }).kind).toBe('healthy');
  });
});

describe('an inferred finish across a pause', () => {
  it('holds only after a whole window of watched silence: an own replacement is not called done for time nobody saw pass', () => {
    const policy = { ...DEFAULT_POLICY, baseTimeoutMs: 4 * S };
    const t = makeTask({ isOwnReplacement: true });
    const obs = makeObs({ lastProgressMs: T0, finished: { kind: 'final_answer', atMs: T0, isInferred: true } });
    expect(assess(t, obs, policy, T0 + 5 * S).kind).toBe('terminal');
    expect(assess(t, obs, policy, T0 + 5 * S, { unobserved: [{ atMs: T0 + 5 * S, ms: 3 * S }] }).kind).toBe('healthy');
  });
});

describe('a start time read across a stepped clock', () => {
  const dispatchedAtMs = T0;
  it('an agent started at dispatch is not taken for a stranger after the clock stepped 9.7 s forward', () => {
    // Before the step its start read T0 + 0.1 s; after, T0 + 9.8 s (the CI run: "started ... after the task was dispatched").
    const seen = widenBootTimes(widenBootTimes(undefined, 1000), 1009.7);
    expect(seen).toEqual({ minS: 1000, maxS: 1009.7 });
    const range = { earliestMs: T0 + 100, latestMs: T0 + 9800 };
    expect(judgeStartTime(4242, range, dispatchedAtMs, false)).toBeUndefined();
  });
  it('a process started after the dispatch under every reading is someone else', () => {
    expect(judgeStartTime(4242, { earliestMs: T0 + 6 * S, latestMs: T0 + 15 * S }, dispatchedAtMs, false)).toMatchObject({ kind: 'other' });
    expect(judgeStartTime(4242, { earliestMs: T0 + 6 * S, latestMs: T0 + 6 * S }, dispatchedAtMs, true)).toMatchObject({ kind: 'unknown' });
  });
  it('a process long older than the dispatch under every reading is not the agent', () => {
    expect(judgeStartTime(4242, { earliestMs: T0 - 700 * S, latestMs: T0 - 61 * S }, dispatchedAtMs, false)?.detail).toContain('long before');
    expect(judgeStartTime(4242, { earliestMs: T0 - 700 * S, latestMs: T0 - 59 * S }, dispatchedAtMs, false)).toBeUndefined();
  });
});

describe('a request across a pause', () => {
  it('goes unanswered only once its answer_by plus the time nobody saw pass since it was written is behind', () => {
    const r = { createdAtMs: T0, answerByMs: T0 + 120 * S } as RequestRecord;
    expect(answerByMs(r, T0 + 200 * S)).toBe(T0 + 120 * S);
    expect(answerByMs(r, T0 + 200 * S, [{ atMs: T0 + 100 * S, ms: 50 * S }])).toBe(T0 + 170 * S);
    // A pause before the request was written moves nothing.
    expect(answerByMs(r, T0 + 200 * S, [{ atMs: T0 - S, ms: 50 * S }])).toBe(T0 + 120 * S);
  });
});

describe('the pause meter', () => {
  /** Hold the event loop for `ms` (nothing else runs meanwhile), with `cpu` advanced as the process ran. */
  const hold = (ms: number, onTick?: (elapsed: number) => void) => {
    const from = performance.now();
    for (let t = from; t < from + ms; t = performance.now()) onTick?.(t - from);
  };

  it('reads how long the process did not run: the event loop stood still and no CPU time passed (SIGSTOP, a paused VM)', async () => {
    const { startPauseMeter } = await import('../../src/sys/pause-meter.js');
    const cpu = 1_000; // frozen: the process used none in the gap
    const meter = startPauseMeter(50, () => cpu);
    try {
      await new Promise((r) => setTimeout(r, 120)); // a sample or two first
      meter.read();
      hold(600);
      expect(meter.read()).toBeGreaterThanOrEqual(500);
      expect(meter.read()).toBe(0); // a reading starts the next one
    } finally {
      meter.stop();
    }
  });

  it("does not read its own long work as a pause: the process ran, and so did the agents (the 10,000-agent detection bench's 2.4-6 s)", async () => {
    const { startPauseMeter } = await import('../../src/sys/pause-meter.js');
    // The process's CPU time as a share of the wall clock (1: it ran the whole time, however long
    // this test itself was kept off the CPU by a loaded machine; 0.5: it ran half the time).
    let share = 1;
    let fromWall = performance.now();
    let fromCpu = 0;
    const cpuMs = () => fromCpu + (performance.now() - fromWall) * share;
    const runAt = (s: number) => {
      fromCpu = cpuMs();
      fromWall = performance.now();
      share = s;
    };
    const meter = startPauseMeter(50, cpuMs);
    try {
      await new Promise((r) => setTimeout(r, 120));
      meter.read();
      // A synchronous stretch of 600 ms that used the CPU the whole time.
      hold(600);
      expect(meter.read()).toBe(0);
      // Half of it running, half not (a starved process): the half it did not run counts.
      runAt(0.5);
      hold(1_200);
      expect(meter.read()).toBeGreaterThanOrEqual(500);
    } finally {
      meter.stop();
    }
  });
});
