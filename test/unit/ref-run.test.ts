// A ticket's line references as start-up gathers them (journal/ref-run.ts): a summary's text and
// the numbers the fold appends after it read back in the order they were added, and write the
// text a summary keeps, whichever way they were joined.
import { describe, expect, it } from 'vitest';
import { refsFromText, refsToText, type LineRef } from '../../src/contracts/history-summary.js';
import { RefRun } from '../../src/journal/ref-run.js';

const refs = (from: number, n: number): LineRef[] => Array.from({ length: n }, (_, i) => [from + i, 1000 * (from + i), 10 + i]);

function runOf(text: LineRef[], added: LineRef[]): RefRun {
  const run = new RefRun(refsToText(text));
  for (const [c, o, l] of added) run.add(c, o, l);
  return run;
}

describe('RefRun', () => {
  it('reads back a summary text and the references added after it, in order, as refs and as text', () => {
    for (const [t, a] of [
      [0, 0],
      [2, 0],
      [0, 3],
      [2, 3],
    ] as const) {
      const want = [...refs(0, t), ...refs(10, a)];
      const run = runOf(refs(0, t), refs(10, a));
      expect(run.toRefs()).toEqual(want);
      expect(run.toText()).toBe(refsToText(want));
      expect(refsFromText(run.toText())).toEqual(want);
    }
  });

  it('appends another run after its own references, whatever each holds', () => {
    const shapes: [LineRef[], LineRef[]][] = [
      [[], []],
      [refs(0, 2), []],
      [[], refs(5, 2)],
      [refs(0, 2), refs(5, 2)],
    ];
    for (const [t1, a1] of shapes)
      for (const [t2, a2] of shapes) {
        const mine = runOf(t1, a1);
        mine.addRun(
          runOf(
            t2.map(([c, o, l]) => [c + 100, o, l]),
            a2.map(([c, o, l]) => [c + 100, o, l]),
          ),
        );
        const want = [...t1, ...a1, ...t2.map(([c, o, l]): LineRef => [c + 100, o, l]), ...a2.map(([c, o, l]): LineRef => [c + 100, o, l])];
        expect(mine.toRefs()).toEqual(want);
        expect(mine.toText()).toBe(refsToText(want));
      }
  });
});
