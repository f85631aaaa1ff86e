// replay's histogram of silent gaps: bucket edges include every candidate window, so "how many
// gaps would each window have to judge" is exact; text and SVG.
import { describe, expect, it } from 'vitest';
import { gapHistogram, renderGapHistogramSvg, renderGapHistogramText, silentGaps } from '../../src/core/gap-histogram.js';

const S = 1000;

describe('gap histogram', () => {
  const gaps = silentGaps([0, 0.5, 3, 10, 100, 400].map((s) => s * S).reverse());
  const h = gapHistogram(gaps, [90 * S, 120 * S, 90 * S]);

  it('counts the silences between records, the windows as bucket edges, gaps longer than each', () => {
    expect(gaps).toEqual([500, 2500, 7000, 90_000, 300_000]);
    expect(h.edgesMs).toContain(90_000);
    expect(h.windowsMs).toEqual([90_000, 120_000]);
    expect(h.longer).toEqual([1, 1]); // 90 s exactly is not longer than a 90 s window: a stall is strictly greater
    expect([h.total, h.short, h.longestMs]).toEqual([4, 1, 300_000]);
    expect(h.counts.reduce((a, b) => a + b, 0)).toBe(4);
  });

  it('as text: a bar per bucket up to the last gap or window, a line at each window', () => {
    expect(renderGapHistogramText(h, 60).join('\n')).toMatchInlineSnapshot(`
      "silent gaps between records: 4 of at least 1s (1 shorter not shown), longest 5m
         1s–5s  1 █████████████████████████████████████████████
        5s–10s  1 █████████████████████████████████████████████
       10s–30s  0
        30s–1m  0
      1m–1m30s  0
      ────────  ── window 1m30s: 1 gap longer ────
      1m30s–2m  1 █████████████████████████████████████████████
      ────────  ── window 2m: 1 gap longer ────
         2m–5m  0
        5m–10m  1 █████████████████████████████████████████████"
    `);
  });

  it('as SVG: a bucket per bar and a dashed line per window, each saying how many gaps are longer', () => {
    const svg = renderGapHistogramSvg(h, 'gaps');
    expect([...svg.matchAll(/class="bucket"/g)]).toHaveLength(8);
    expect(svg).toContain('window 1m30s: 1 longer');
    expect(svg).not.toMatch(/<script|href=/);
  });
});
