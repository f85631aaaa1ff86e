// What a Claude Code observer's cold reads learn of the tail that vouches (cold-tail-prior.ts): a
// guess only once most recent short tails needed a size in records, gone again once they vouch.
import { describe, expect, it } from 'vitest';
import { ColdTailPrior, PROBE_EVERY } from '../../src/agents/claude-code/read/cold-tail-prior.js';

const KB = 1024;

describe('the size a cold read starts at', () => {
  it('is no guess before eight cold reads, nor while most short tails vouched', () => {
    const p = new ColdTailPrior();
    for (let i = 0; i < 7; i++) p.note(40 * KB);
    expect(p.start()).toBeUndefined();
    const q = new ColdTailPrior();
    for (let i = 0; i < 8; i++) q.note(i < 5 ? 40 * KB : 0);
    expect(q.start()).toBeUndefined();
  });

  it('is the upper quartile of the sizes asked for once three in four needed one, and no guess at every probe', () => {
    const p = new ColdTailPrior();
    for (const kb of [30, 40, 50, 60, 70, 80, 0, 90]) p.note(kb * KB);
    const starts = Array.from({ length: 2 * PROBE_EVERY }, () => p.start());
    expect(starts.filter((s) => s === undefined)).toHaveLength(2);
    // Sized: 30…90 KB (7); the upper quartile: the 6th of 7.
    expect(new Set(starts.filter((s) => s !== undefined))).toEqual(new Set([80 * KB]));
  });

  it('goes back to the short tail once the recent short tails vouch again (older agents)', () => {
    const p = new ColdTailPrior();
    for (let i = 0; i < 16; i++) p.note(48 * KB);
    expect(p.start()).toBe(48 * KB);
    for (let i = 0; i < 5; i++) p.note(0);
    expect(p.start()).toBeUndefined();
  });
});
