// "Did you mean …": the known name closest to a word someone typed. Pure.

/** Edit distance (Levenshtein). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The known name closest to `word` (at most 2 edits, or a prefix), if any. */
export function didYouMean(word: string, names: readonly string[]): string | undefined {
  const scored = names
    .map((n) => ({ n, d: n.startsWith(word) && word.length >= 2 ? 0.5 : distance(word.toLowerCase(), n.toLowerCase()) }))
    .sort((a, b) => a.d - b.d);
  const best = scored[0];
  return best && best.d <= Math.min(2, Math.max(1, Math.floor(word.length / 3))) ? best.n : undefined;
}
