// Process liveness folded into evidence (issue 19 item 1): pure fold, `ss` parsing, and the verdicts it gives.
import { describe, expect, it } from 'vitest';
import { foldProcessSample, hasReceived, processPart, type ProcessSample } from '../../src/observe/parse/process-evidence.js';
import { parseSsOutput } from '../../src/observe/read/process-sample.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { makeTask, T0 } from '../helpers/builders.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const sample = (bytes: Record<string, number> | undefined, over: Partial<ProcessSample> = {}): ProcessSample => ({
  pid: 42,
  startTicks: 100,
  apiBytesReceived: bytes,
  ...over,
});

describe('foldProcessSample', () => {
  it('takes the first sample as a baseline: nothing proven to grow', () => {
    expect(foldProcessSample(undefined, sample({ c: 500 }), T0).grewAtMs).toBeUndefined();
  });

  it('dates growth at the sample that saw more bytes, and keeps it while the bytes stay flat', () => {
    const a = foldProcessSample(undefined, sample({ c: 500 }), T0);
    const b = foldProcessSample(a, sample({ c: 633 }), T0 + 2000);
    expect(b.grewAtMs).toBe(T0 + 2000);
    const c = foldProcessSample(b, sample({ c: 633 }), T0 + 60_000);
    expect(c.grewAtMs).toBe(T0 + 2000);
  });

  it('counts a new connection that received bytes (a resent request), never a closed one', () => {
    expect(hasReceived({ a: 10 }, { a: 10, b: 5 })).toBe(true);
    expect(hasReceived({ a: 10, b: 5 }, { a: 10 })).toBe(false);
    expect(hasReceived({ a: 10 }, { b: 0 })).toBe(false);
  });

  it('starts over when the pid belongs to another process (another start time)', () => {
    const a = foldProcessSample(undefined, sample({ c: 1 }), T0);
    const b = foldProcessSample(a, sample({ c: 2 }), T0 + 1000);
    const reused = foldProcessSample(b, sample({ c: 9 }, { startTicks: 999 }), T0 + 2000);
    expect(reused.grewAtMs).toBeUndefined();
  });

  it('without API bytes (no ss) proves nothing, whatever CPU and read bytes do', () => {
    const a = foldProcessSample(undefined, sample(undefined, { cpuTicks: 1, readBytes: 100 }), T0);
    const b = foldProcessSample(a, sample(undefined, { cpuTicks: 50, readBytes: 90_000 }), T0 + 1000);
    expect(processPart(b)).toEqual({ source: 'process', isProcessAlive: true });
  });
});

describe('parseSsOutput', () => {
  const text = [
    'ESTAB 0      0      127.0.0.1:52496 127.0.0.1:36593 users:(("claude",pid=21643,fd=20))',
    '\t cubic wscale:7,7 rto:201 bytes_sent:2048 bytes_acked:2049 bytes_received:1598 segs_out:9',
    'ESTAB 0      0      127.0.0.1:52497 127.0.0.1:4318 users:(("claude",pid=21643,fd=21))',
    '\t cubic bytes_received:777',
    'ESTAB 0      0      [::1]:40000 [::1]:36593 users:(("claude",pid=21643,fd=22))',
    '\t cubic rto:201 bytes_sent:10',
    'ESTAB 0      0      127.0.0.1:33962 127.0.0.1:443 users:(("node",pid=7,fd=3),("node",pid=8,fd=3))',
    '\t cubic bytes_received:638',
  ].join('\n');

  it("keeps each pid's connections to its API port, bytes received by connection (none yet: 0)", () => {
    const ports = new Map([
      [21643, 36593],
      [7, 443],
    ]);
    const got = parseSsOutput(text, (pid) => ports.get(pid));
    expect(Object.fromEntries(got)).toEqual({
      21643: { '127.0.0.1:52496>127.0.0.1:36593': 1598, '[::1]:40000>[::1]:36593': 0 },
      7: { '127.0.0.1:33962>127.0.0.1:443': 638 },
    });
  });
});

describe('assess with process evidence', () => {
  const task = makeTask({ pid: 42, lastActivityMs: T0 });
  const at = (grewAtMs: number | undefined) =>
    mergeObservations([observeRow(task), processPart({ pid: 42, startTicks: 1, sampledAtMs: T0, ...(grewAtMs !== undefined ? { grewAtMs } : {}) })]);

  it("a stream still delivering bytes is output growth: healthy past the transcript's window", () => {
    const v = assess(task, at(T0 + 200_000), DEFAULT_POLICY, T0 + 240_000);
    expect(v.kind).toBe('healthy');
    expect(v.sources).toContain('process');
  });

  it('a frozen stream stalls one window after the last bytes, never later', () => {
    const obs = at(T0 + 30_000);
    expect(assess(task, obs, DEFAULT_POLICY, T0 + 150_000).kind).toBe('healthy');
    const v = assess(task, obs, DEFAULT_POLICY, T0 + 150_001);
    expect(v.kind).toBe('stalled');
    expect(v.deadlineMs).toBe(T0 + 150_000);
  });

  it("a live process alone (no bytes) changes nothing: stalled at the row's deadline", () => {
    expect(assess(task, at(undefined), DEFAULT_POLICY, T0 + 120_001).kind).toBe('stalled');
  });
});
