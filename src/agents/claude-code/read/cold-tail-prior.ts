// What the cold reads of one observer learned about the size of a tail that vouches (issue 37): a
// 16 KB tail of a 2.1.332 transcript holds two or three messages, too few, so nearly every cold
// read reads its file twice, the short tail and then one sized in records (tail-context.ts
// sizedTailBytes), parsing the short tail's records twice. Once most of the recent cold reads
// needed a sized tail, the next ones start at such a size. Only a start: a read that finds it too
// short reads on as before (the wide tail, the read-back), and one ask in PROBE_EVERY gets no
// guess (its read, if cold, starts short), so a fleet whose short tails vouch again (older agents)
// is soon read short again. Pure.

/** The recent cold reads weighed. */
const WINDOW = 16;
/** Cold reads weighed before any guess. */
const MIN_OUTCOMES = 8;
/** The share of them that must have needed a sized tail. */
const SIZED_SHARE = 0.75;
/** One ask in this many gets no guess: its cold read starts short and keeps the window current. */
export const PROBE_EVERY = 16;

export class ColdTailPrior {
  /** 0: the short tail vouched; else the size in records the file was read again at. */
  private outcomes: number[] = [];
  /** What the outcomes say a cold read should start at (worked out once per outcome, not per ask). */
  private guess: number | undefined;
  private asked = 0;

  /** A cold read that started short: `sizedBytes` is the size it was read again at (0: the short tail vouched). */
  note(sizedBytes: number): void {
    this.outcomes.push(sizedBytes);
    if (this.outcomes.length > WINDOW) this.outcomes.shift();
    const sized = this.outcomes.filter((b) => b > 0).sort((a, b) => a - b);
    this.guess =
      this.outcomes.length >= MIN_OUTCOMES && sized.length >= this.outcomes.length * SIZED_SHARE ? sized[Math.ceil(sized.length * SIZED_SHARE) - 1] : undefined;
  }

  /**
   * The size the next cold read should start at (bytes from the end), or undefined for the short
   * tail: too few outcomes yet, most short tails vouched, or this read probes. The upper quartile
   * of the sizes asked for, so that most starts need no second read.
   */
  start(): number | undefined {
    if (this.guess === undefined || ++this.asked % PROBE_EVERY === 0) return undefined;
    return this.guess;
  }
}
