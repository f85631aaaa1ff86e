// The Interrupt hook (Claude Code 2.1.335+) beside the other sources: an interrupted main session
// waits for a human, never stalls, while its process lives; the transcript's new turn ends the
// wait; a cancelled call's late Post hook, the row's stamp or the process's bytes do not.
import { describe, expect, it } from 'vitest';
import type { PartialObservation } from '../../src/observe/parse/observation.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { makeTask, T0 } from '../helpers/builders.js';

const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);
const HOUR = 3_600_000;

/** The hooks' view of a main session stopped at T0 + 5 s: its last event before it at T0. */
const stopped: PartialObservation = {
  source: 'hooks',
  lastProgressMs: T0,
  waitingHuman: { kind: 'interrupted', sinceMs: T0 + 5_000, detail: 'Interrupt hook: the turn was stopped by a person; idle until a new prompt' },
};
/** The transcript's view of the same stop (`[Request interrupted by user for tool use]`, written just before the hook ran). */
const transcriptStopped: PartialObservation = {
  source: 'transcript',
  lastProgressMs: T0,
  waitingHuman: { kind: 'interrupted', sinceMs: T0 + 4_900, detail: 'Esc: "[Request interrupted by user]", idle until a new prompt' },
};

describe('an interrupted main session (the Interrupt hook)', () => {
  it('waits for a human an hour later with hooks alone, or with the transcript saying the same', () => {
    for (const parts of [[stopped], [stopped, transcriptStopped]]) {
      const v = assess(makeTask(), mergeObservations(parts), DEFAULT_POLICY, T0 + HOUR);
      expect(v.kind).toBe('waiting_human');
      expect(v.reason).toContain('Interrupt hook: the turn was stopped by a person');
    }
  });

  it("the transcript's new turn after it ends the wait: judged on that turn's progress", () => {
    const resumed = mergeObservations([stopped, { source: 'transcript', lastProgressMs: T0 + 60_000 }]);
    expect(resumed.waitingHuman).toBeUndefined();
    expect(assess(makeTask(), resumed, DEFAULT_POLICY, T0 + 70_000).kind).toBe('healthy');
    // That turn's silence then counts as any other's.
    expect(assess(makeTask(), resumed, DEFAULT_POLICY, T0 + 60_000 + HOUR).kind).toBe('stalled');
  });

  it("the interruption's own records (within a second of it) are not a new turn", () => {
    expect(mergeObservations([stopped, { source: 'transcript', lastProgressMs: T0 + 5_900 }]).waitingHuman?.kind).toBe('interrupted');
  });

  it("neither the row's activity stamp, the process's bytes nor a late hook clear it", () => {
    const obs = mergeObservations([
      { ...stopped, lastProgressMs: T0 + 9_000 },
      { source: 'row', lastProgressMs: T0 + 60_000 },
      { source: 'process', outputGrewAtMs: T0 + 60_000, isProcessAlive: true },
    ]);
    expect(assess(makeTask(), obs, DEFAULT_POLICY, T0 + HOUR).kind).toBe('waiting_human');
  });

  it("the transcript's own interruption is not cleared by the hooks' later events (a cancelled call's async Post may land late)", () => {
    const obs = mergeObservations([transcriptStopped, { source: 'hooks', lastProgressMs: T0 + 30_000 }]);
    expect(obs.waitingHuman?.kind).toBe('interrupted');
  });

  it('waits for no one once the process is gone: judged as a silent agent', () => {
    const gone = mergeObservations([stopped, { source: 'process', isProcessAlive: false }]);
    expect(assess(makeTask(), gone, DEFAULT_POLICY, T0 + HOUR).kind).toBe('stalled');
  });
});
