// `replay`'s answer to "which --timeout?": how long the agents went silent between two records,
// as a histogram whose bucket edges include every candidate window, so the gaps each window
// would have to sit out (or flag) are counted exactly. Text and SVG. Pure.
import { esc, px, svgDocument } from './svg.js';

/** Gaps shorter than this are the agent streaming: counted, not drawn. @defaultValue 1000 */
export const MIN_GAP_MS = 1000;

/** The silences between consecutive moments (any order in, sorted first). */
export function silentGaps(timesMs: readonly number[]): number[] {
  const t = [...timesMs].sort((a, b) => a - b);
  const out: number[] = [];
  for (let i = 1; i < t.length; i++) out.push(t[i]! - t[i - 1]!);
  return out;
}

export interface GapHistogram {
  /** Bucket i holds gaps in [edges[i], edges[i+1]); the last is open-ended. */
  edgesMs: number[];
  counts: number[];
  windowsMs: number[];
  /** Gaps strictly longer than each window (what it would have to judge). */
  longer: number[];
  /** Gaps counted (at least MIN_GAP_MS). */
  total: number;
  /** Gaps under MIN_GAP_MS, not drawn. */
  short: number;
  longestMs: number;
}

const BASE_EDGES_S = [1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** Count gaps into buckets whose edges are a log-ish scale plus every window. */
export function gapHistogram(gapsMs: readonly number[], windowsMs: readonly number[]): GapHistogram {
  const windows = [...new Set(windowsMs)].sort((a, b) => a - b);
  const edges = [...new Set([...BASE_EDGES_S.map((s) => s * 1000), ...windows])].filter((e) => e >= MIN_GAP_MS).sort((a, b) => a - b);
  const counts = new Array(edges.length).fill(0);
  let short = 0;
  let longest = 0;
  for (const g of gapsMs) {
    if (g < MIN_GAP_MS) {
      short++;
      continue;
    }
    longest = Math.max(longest, g);
    let i = edges.length - 1;
    while (i > 0 && g < edges[i]!) i--;
    counts[i]++;
  }
  const kept = gapsMs.filter((g) => g >= MIN_GAP_MS);
  return {
    edgesMs: edges,
    counts,
    windowsMs: windows,
    longer: windows.map((w) => kept.filter((g) => g > w).length),
    total: kept.length,
    short,
    longestMs: longest,
  };
}

/** `1s`, `2m`, `1h30m`, `1.5s`. */
function dur(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${Number.isInteger(s) ? s : s.toFixed(1)}s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)}m${Math.round(s % 60)}s` : `${s / 60}m`;
  return s % 3600 ? `${Math.floor(s / 3600)}h${Math.round((s % 3600) / 60)}m` : `${s / 3600}h`;
}

/** How many buckets to draw: up to the last that holds a gap or starts at a window. */
function shown(h: GapHistogram): number {
  let last = 0;
  h.edgesMs.forEach((e, i) => {
    if (h.counts[i]! > 0 || h.windowsMs.includes(e)) last = i;
  });
  return last + 1;
}

const label = (h: GapHistogram, i: number) => (i === h.edgesMs.length - 1 ? `≥ ${dur(h.edgesMs[i]!)}` : `${dur(h.edgesMs[i]!)}–${dur(h.edgesMs[i + 1]!)}`);

/** The histogram as text lines, a window line at each candidate window, within `columns`. */
export function renderGapHistogramText(h: GapHistogram, columns = 100): string[] {
  const lines = [
    `silent gaps between records: ${h.total} of at least ${dur(MIN_GAP_MS)}${h.short ? ` (${h.short} shorter not shown)` : ''}, longest ${dur(h.longestMs)}`,
  ];
  if (h.total === 0) return lines;
  const labelW = Math.max(...h.edgesMs.map((_, i) => label(h, i).length));
  const countW = String(Math.max(...h.counts)).length;
  const barW = Math.max(10, Math.min(50, columns - labelW - countW - 6));
  const max = Math.max(...h.counts);
  h.edgesMs.slice(0, shown(h)).forEach((edge, i) => {
    const w = h.windowsMs.indexOf(edge);
    if (w >= 0)
      lines.push(`${'─'.repeat(labelW)}  ── window ${dur(edge)}: ${h.longer[w]} gap${h.longer[w] === 1 ? '' : 's'} longer ${'─'.repeat(4)}`.slice(0, columns));
    const n = h.counts[i]!;
    const bar = n === 0 ? '' : '█'.repeat(Math.max(1, Math.round((n / max) * barW)));
    lines.push(`${label(h, i).padStart(labelW)}  ${String(n).padStart(countW)} ${bar}`.trimEnd());
  });
  return lines;
}

/** Geometry of the SVG, exported so a test can find the bars. */
export const HISTOGRAM_SVG = { width: 760, height: 360, left: 60, right: 20, top: 40, bottom: 70, bar: '#4c78a8', window: '#d62728' } as const;

/** The histogram as an SVG document: a bar per bucket, a red dashed line per window. */
export function renderGapHistogramSvg(h: GapHistogram, title: string): string {
  const G = HISTOGRAM_SVG;
  const n = shown(h);
  const slot = (G.width - G.left - G.right) / n;
  const plotH = G.height - G.top - G.bottom;
  const max = Math.max(1, ...h.counts);
  const body: string[] = [`<text x="12" y="22" font-size="14" font-weight="bold">${esc(title)}</text>`];
  body.push(`<line x1="${G.left}" y1="${G.height - G.bottom}" x2="${G.width - G.right}" y2="${G.height - G.bottom}" stroke="#333333"/>`);
  h.counts.slice(0, n).forEach((c, i) => {
    const hgt = (c / max) * plotH;
    const x = G.left + i * slot;
    body.push(
      `<g class="bucket" data-from-ms="${h.edgesMs[i]}" data-count="${c}"><title>${esc(`${label(h, i)}: ${c} gap(s)`)}</title>` +
        `<rect x="${px(x + 3)}" y="${px(G.height - G.bottom - hgt)}" width="${px(slot - 6)}" height="${px(hgt)}" fill="${G.bar}"/>` +
        `<text x="${px(x + slot / 2)}" y="${px(G.height - G.bottom - hgt - 4)}" text-anchor="middle" font-size="11">${c}</text>` +
        `<text x="${px(x + slot / 2)}" y="${px(G.height - G.bottom + 16)}" text-anchor="middle" font-size="10" fill="#555555">${esc(label(h, i))}</text></g>`,
    );
  });
  h.windowsMs.forEach((w, k) => {
    const x = G.left + h.edgesMs.indexOf(w) * slot;
    body.push(
      `<g class="window" data-window-ms="${w}"><line x1="${px(x)}" y1="${G.top}" x2="${px(x)}" y2="${G.height - G.bottom}" stroke="${G.window}" stroke-width="2" stroke-dasharray="6 4"/>` +
        `<text x="${px(x + 4)}" y="${px(G.top + 12 + k * 14)}" fill="${G.window}" font-size="11">${esc(`window ${dur(w)}: ${h.longer[k]} longer`)}</text></g>`,
    );
  });
  body.push(
    `<text x="12" y="${G.height - 20}" fill="#333333">${esc(`${h.total} silent gaps of at least ${dur(MIN_GAP_MS)} between records${h.short ? `, ${h.short} shorter not shown` : ''}; longest ${dur(h.longestMs)}`)}</text>`,
  );
  return svgDocument(G.width, G.height, title, body);
}
