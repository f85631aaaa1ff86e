// A give-up ends when the agent resumes (issue 19 item 4): later progress in any hook or
// transcript source clears a give-up another source still reports; nothing else does.
import { describe, expect, it } from 'vitest';
import type { PartialObservation } from '../../src/observe/parse/observation.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { makeTask, T0 } from '../helpers/builders.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const gaveUp: PartialObservation = { source: 'hooks', lastProgressMs: T0, failed: { kind: 'overloaded', atMs: T0, detail: 'StopFailure: overloaded' } };

describe('a give-up and later progress', () => {
  it('the transcript at work after a StopFailure clears it: judged on its progress', () => {
    const obs = mergeObservations([gaveUp, { source: 'transcript', lastProgressMs: T0 + 30_000 }]);
    expect(obs.failed).toBeUndefined();
    expect(assess(makeTask(), obs, DEFAULT_POLICY, T0 + 40_000).kind).toBe('healthy');
  });

  it('the give-up stands when nothing came after it (the give-up record itself is not progress)', () => {
    const obs = mergeObservations([gaveUp, { source: 'transcript', lastProgressMs: T0 - 200, failed: { kind: 'overloaded', atMs: T0 - 200 } }]);
    expect(assess(makeTask(), obs, DEFAULT_POLICY, T0 + 1000)).toMatchObject({ kind: 'stalled', stallReason: 'api_gave_up' });
    const within = mergeObservations([gaveUp, { source: 'transcript', lastProgressMs: T0 + 800 }]);
    expect(within.failed).toBeDefined();
  });

  it("neither the row's activity stamp nor the process's bytes clear it", () => {
    const obs = mergeObservations([
      gaveUp,
      { source: 'row', lastProgressMs: T0 + 60_000 },
      { source: 'process', outputGrewAtMs: T0 + 60_000, isProcessAlive: true },
    ]);
    expect(obs.failed).toBeDefined();
  });
});

describe('the rate_limit window and the announced wait', () => {
  it('is at least the wait the retry record announces plus grace (a long retry-after)', () => {
    const obs = mergeObservations([{ source: 'transcript', lastProgressMs: T0, isApiRetrying: true, apiRetryDelayMs: 600_000 }]);
    const v = assess(makeTask(), obs, DEFAULT_POLICY, T0 + 600_000);
    expect(v).toMatchObject({ kind: 'healthy', effectiveTimeoutMs: 660_000, exemptions: ['rate_limit'] });
    const short = mergeObservations([{ source: 'transcript', lastProgressMs: T0, isApiRetrying: true, apiRetryDelayMs: 2_000 }]);
    expect(assess(makeTask(), short, DEFAULT_POLICY, T0).effectiveTimeoutMs).toBe(240_000);
  });
});
