// The timeline as a self-contained SVG file (no scripts, fonts or links): a person opens it in a
// browser or attaches it to a ticket. Each mark carries its log line as a tooltip. Pure.
import { TIMELINE_MARK_KINDS, type TimelineMarkKind } from '../contracts/vocabulary.js';
import { esc, px, svgDocument } from './svg.js';
import { TIMELINE_GLYPHS } from './timeline-text.js';
import { offsetLabel, summaryLine, tickStepMs, type Timeline } from './timeline.js';

/** Fill colour of each kind (tests look for these pixels in a real browser's rendering). */
export const TIMELINE_COLORS: { readonly [K in TimelineMarkKind | 'activity' | 'life']: string } = {
  activity: '#2ca02c',
  life: '#c8c8c8',
  stall: '#d62728',
  redispatch: '#ff7f0e',
  cancel: '#7f7f7f',
  escalated: '#9467bd',
  waiting_human: '#1f77b4',
  looping: '#bcbd22',
  inconsistent: '#e377c2',
  unknown: '#8c564b',
  answered: '#17becf',
  unanswered: '#b00020',
};

/** Geometry, exported so a test can find where a lane and a moment are drawn. */
export const TIMELINE_SVG = { width: 1000, laneH: 26, top: 56, right: 190, labelPerChar: 7.4 } as const;

/** The shape of one mark centred on (x, y). */
function markShape(kind: TimelineMarkKind, x: number, y: number): string {
  const c = TIMELINE_COLORS[kind];
  const r = 7;
  switch (kind) {
    case 'stall':
      return `<path d="M${px(x - r)} ${px(y - r)}L${px(x + r)} ${px(y + r)}M${px(x + r)} ${px(y - r)}L${px(x - r)} ${px(y + r)}" stroke="${c}" stroke-width="4" stroke-linecap="round"/>`;
    case 'redispatch':
      return `<circle cx="${px(x)}" cy="${px(y)}" r="${r - 1}" fill="none" stroke="${c}" stroke-width="3"/><path d="M${px(x + r - 1)} ${px(y - 5)}l0 6l-5 -2z" fill="${c}"/>`;
    case 'escalated': {
      const pts = Array.from({ length: 8 }, (_, i) => {
        const a = Math.PI / 8 + (i * Math.PI) / 4;
        return `${px(x + (r + 1) * Math.cos(a))},${px(y + (r + 1) * Math.sin(a))}`;
      }).join(' ');
      return `<polygon points="${pts}" fill="${c}"/><rect x="${px(x - 4)}" y="${px(y - 1.5)}" width="8" height="3" fill="#ffffff"/>`;
    }
    case 'waiting_human':
      return `<circle cx="${px(x)}" cy="${px(y)}" r="${r}" fill="${c}"/><text x="${px(x)}" y="${px(y + 4)}" text-anchor="middle" fill="#ffffff" font-weight="bold">?</text>`;
    case 'looping':
      return `<circle cx="${px(x - 3.5)}" cy="${px(y)}" r="3.5" fill="none" stroke="${c}" stroke-width="2.5"/><circle cx="${px(x + 3.5)}" cy="${px(y)}" r="3.5" fill="none" stroke="${c}" stroke-width="2.5"/>`;
    case 'cancel':
      return `<rect x="${px(x - 6)}" y="${px(y - 6)}" width="12" height="12" fill="${c}"/>`;
    case 'inconsistent':
      return `<polygon points="${px(x)},${px(y - r)} ${px(x + r)},${px(y)} ${px(x)},${px(y + r)} ${px(x - r)},${px(y)}" fill="${c}"/>`;
    case 'unknown':
      return `<circle cx="${px(x)}" cy="${px(y)}" r="${r - 1}" fill="none" stroke="${c}" stroke-width="2" stroke-dasharray="3 2"/>`;
    case 'answered':
      return `<path d="M${px(x - 6)} ${px(y)}l4 5l8 -10" fill="none" stroke="${c}" stroke-width="3"/>`;
    case 'unanswered':
      return `<polygon points="${px(x)},${px(y - r)} ${px(x + r)},${px(y + r)} ${px(x - r)},${px(y + r)}" fill="${c}"/>`;
  }
}

/** The timeline as an SVG document. */
export function renderTimelineSvg(tl: Timeline): string {
  const G = TIMELINE_SVG;
  const left = 16 + G.labelPerChar * Math.min(18, Math.max(4, ...tl.lanes.map((l) => l.taskId.length)));
  const chartW = G.width - left - G.right;
  const span = tl.endMs - tl.startMs;
  const xOf = (ms: number) => left + (Math.min(Math.max(ms, tl.startMs), tl.endMs) - tl.startMs) * (chartW / span);
  const yOf = (i: number) => G.top + i * G.laneH + G.laneH / 2;
  const body: string[] = [];
  const title = `epic ${tl.epicId}: ${new Date(tl.startMs).toISOString()} – ${new Date(tl.endMs).toISOString()} (${offsetLabel(span)})`;
  body.push(`<text x="12" y="20" font-size="14" font-weight="bold">${esc(title)}</text>`);
  const step = tickStepMs(span, Math.floor(chartW / 70));
  const bottom = G.top + tl.lanes.length * G.laneH + (tl.massStallsMs.length ? G.laneH : 0);
  for (let ms = 0; ms <= span; ms += step) {
    const x = xOf(tl.startMs + ms);
    body.push(
      `<line class="tick" x1="${px(x)}" y1="${G.top - 6}" x2="${px(x)}" y2="${px(bottom)}" stroke="#eeeeee"/><text x="${px(x)}" y="${G.top - 10}" text-anchor="middle" fill="#555555">${esc(offsetLabel(ms))}</text>`,
    );
  }
  tl.lanes.forEach((l, i) => {
    const y = yOf(i);
    const out: string[] = [`<g class="lane" data-task="${esc(l.taskId)}" data-ticket="${esc(l.ticketId)}">`];
    out.push(`<text class="label" x="12" y="${px(y + 4)}">${esc(l.taskId)}</text>`);
    out.push(
      `<line class="life" x1="${px(xOf(l.startMs))}" y1="${px(y)}" x2="${px(xOf(l.endMs ?? tl.endMs))}" y2="${px(y)}" stroke="${TIMELINE_COLORS.life}" stroke-width="2"/>`,
    );
    // Activity: a bar per run of progress less than 3 px apart.
    let runStart: number | undefined;
    let runEnd = 0;
    const flush = () => {
      if (runStart === undefined) return;
      out.push(
        `<rect class="activity" x="${px(runStart - 1)}" y="${px(y - 6)}" width="${px(Math.max(3, runEnd - runStart + 2))}" height="12" fill="${TIMELINE_COLORS.activity}"/>`,
      );
    };
    for (const ms of l.activityMs) {
      const x = xOf(ms);
      if (runStart !== undefined && x - runEnd <= 3) runEnd = x;
      else {
        flush();
        runStart = runEnd = x;
      }
    }
    flush();
    // In time order; a mark that would cover the one before it moves right, so both show.
    let lastX = -Infinity;
    for (const m of [...l.marks].sort((a, b) => a.atMs - b.atMs)) {
      const x = Math.max(xOf(m.atMs), lastX + 16);
      lastX = x;
      out.push(
        `<g class="mark" data-kind="${m.kind}" data-at="${new Date(m.atMs).toISOString()}" data-x="${px(x)}"><title>${esc(`${new Date(m.atMs).toISOString().slice(11, 19)} ${l.taskId}: ${m.text}`)}</title>${markShape(m.kind, x, y)}</g>`,
      );
    }
    out.push(`<text class="outcome" x="${px(G.width - G.right + 12)}" y="${px(y + 4)}" fill="#333333">${esc(l.outcome)}</text>`, '</g>');
    body.push(out.join(''));
  });
  if (tl.massStallsMs.length) {
    const y = yOf(tl.lanes.length);
    body.push(`<text x="12" y="${px(y + 4)}" fill="#555555">breaker</text>`);
    for (const ms of tl.massStallsMs)
      body.push(
        `<g class="mark" data-kind="mass_stall"><title>circuit breaker: mass stall</title><rect x="${px(xOf(ms) - 2)}" y="${px(y - 8)}" width="4" height="16" fill="${TIMELINE_COLORS.stall}"/></g>`,
      );
  }
  // Legend: the kinds this picture uses.
  const used = new Set(tl.lanes.flatMap((l) => l.marks.map((m) => m.kind)));
  let x = 16;
  const ly = bottom + 26;
  const legend: string[] = [
    `<rect x="${x - 4}" y="${ly - 6}" width="10" height="12" fill="${TIMELINE_COLORS.activity}"/><text x="${x + 12}" y="${ly + 4}">activity</text>`,
  ];
  x += 80;
  for (const k of TIMELINE_MARK_KINDS.filter((k) => used.has(k))) {
    const text = TIMELINE_GLYPHS[k].legend;
    legend.push(`${markShape(k, x, ly)}<text x="${px(x + 12)}" y="${px(ly + 4)}">${esc(text)}</text>`);
    x += 28 + text.length * 6.8;
  }
  body.push(`<g class="legend">${legend.join('')}</g>`);
  body.push(`<text class="summary" x="12" y="${px(ly + 28)}" fill="#333333">${esc(summaryLine(tl.summary))}</text>`);
  return svgDocument(G.width, ly + 44, title, body);
}
