// The timeline for a terminal: one line per lane, one column per slice of time, Unicode glyphs,
// ANSI colour unless told not to, laid out within the terminal's width. Pure.
import { TIMELINE_MARK_KINDS, type TimelineMarkKind } from '../contracts/vocabulary.js';
import { cut } from './format.js';
import { offsetLabel, summaryLine, tickStepMs, type Timeline, type TimelineLane } from './timeline.js';

type CellKind = TimelineMarkKind | 'activity' | 'silent';

/** Each glyph, its colour and its legend; `width` 2 for a glyph a terminal draws two columns wide. */
export const TIMELINE_GLYPHS: { readonly [K in CellKind]: { glyph: string; sgr: string; legend: string; width?: 2 } } = {
  activity: { glyph: '▇', sgr: '32', legend: 'activity' },
  silent: { glyph: '·', sgr: '2', legend: 'silent' },
  stall: { glyph: '✗', sgr: '31;1', legend: 'stall' },
  redispatch: { glyph: '↻', sgr: '33;1', legend: 'redispatch' },
  cancel: { glyph: '■', sgr: '31', legend: 'stopped' },
  escalated: { glyph: '⛔', sgr: '35;1', legend: 'escalated', width: 2 },
  waiting_human: { glyph: '?', sgr: '34;1', legend: 'waiting on a human' },
  looping: { glyph: '∞', sgr: '33', legend: 'looping' },
  inconsistent: { glyph: '≠', sgr: '35', legend: 'inconsistent' },
  unknown: { glyph: '◌', sgr: '35', legend: 'cannot judge' },
  answered: { glyph: '✓', sgr: '36', legend: 'request answered' },
  unanswered: { glyph: '!', sgr: '31;1', legend: 'request unanswered' },
};

export interface TimelineTextOptions {
  /** Terminal width. @defaultValue 100 */
  columns?: number;
  hasColor: boolean;
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The span with its date(s): `2026-04-02 10:00:00–10:03:30`, or both dates when it crosses midnight UTC. */
const dated = (startMs: number, endMs: number) => `${day(startMs)} ${clock(startMs)}–${day(endMs) === day(startMs) ? '' : `${day(endMs)} `}${clock(endMs)}`;

/** A lane's cells: undefined outside its life, '' behind a wide glyph. */
export function laneCells(l: TimelineLane, t0: number, cellMs: number, width: number, endMs: number): (CellKind | '' | undefined)[] {
  const cells: (CellKind | '' | undefined)[] = new Array(width).fill(undefined);
  const at = (ms: number) => Math.min(width - 1, Math.max(0, Math.floor((ms - t0) / cellMs)));
  for (let i = at(l.startMs); i <= at(l.endMs ?? endMs); i++) cells[i] = 'silent';
  for (const ms of l.activityMs) cells[at(ms)] = 'activity';
  const isMark = (c: CellKind | '' | undefined) => c !== undefined && c !== 'silent' && c !== 'activity';
  const rank = (c: CellKind | '' | undefined) => (isMark(c) ? TIMELINE_MARK_KINDS.indexOf(c as TimelineMarkKind) : Infinity);
  // In time order; two marks in one slice: the later one moves right (up to 3 columns), so both
  // show; with no room left, the more important one stays.
  for (const m of [...l.marks].sort((a, b) => a.atMs - b.atMs)) {
    const wide = TIMELINE_GLYPHS[m.kind].width === 2;
    const first = Math.min(at(m.atMs), width - (wide ? 2 : 1));
    const fits = (i: number) => !isMark(cells[i]) && !(wide && (i + 1 >= width || isMark(cells[i + 1])));
    let i = first;
    while (i < Math.min(width, first + 4) && !fits(i)) i++;
    if (i >= Math.min(width, first + 4)) {
      i = first;
      if (rank(cells[i]) < rank(m.kind) || (wide && rank(cells[i + 1]) < rank(m.kind))) continue;
    }
    if (cells[i] === '' && i > 0) cells[i - 1] = 'silent'; // overwriting the tail of a wide glyph
    if (cells[i + 1] === '' && !wide) cells[i + 1] = 'silent';
    cells[i] = m.kind;
    if (wide) cells[i + 1] = '';
  }
  return cells;
}

/** The timeline as terminal lines (no trailing newline on each). */
export function renderTimelineText(tl: Timeline, o: TimelineTextOptions): string[] {
  const columns = Math.max(40, o.columns ?? 100);
  const paint = (s: string, sgr: string) => (o.hasColor ? `\x1b[${sgr}m${s}\x1b[0m` : s);
  const labelW = Math.min(18, Math.max(4, ...tl.lanes.map((l) => l.taskId.length)));
  const outcomeW = Math.min(28, Math.max(0, ...tl.lanes.map((l) => l.outcome.length)));
  // The outcome column goes before the chart gets narrower than 24 columns.
  const showOutcome = columns - labelW - 2 - (outcomeW + 2) >= 24;
  const width = Math.max(10, columns - labelW - 2 - (showOutcome ? outcomeW + 2 : 0));
  const span = tl.endMs - tl.startMs;
  const cellMs = Math.max(1, Math.ceil(span / width));
  const lines: string[] = [];
  // The header says when (dates included); what does not fit of the rest is left off whole, not cut.
  let header = `epic ${tl.epicId}  ${dated(tl.startMs, tl.endMs)} UTC (${offsetLabel(span)})`;
  for (const more of [`1 column = ${cellMs < 1000 ? `${cellMs}ms` : offsetLabel(cellMs)}`, `${tl.lanes.length} lane(s)`]) {
    if (header.length + 2 + more.length > columns) break;
    header += `  ${more}`;
  }
  lines.push(cut(header, columns, false));
  // Axis: a label at each tick that fits without touching the one before.
  const step = tickStepMs(span, Math.floor(width / 8));
  const axis = new Array(width + 8).fill(' ');
  let free = 0;
  for (let ms = 0; ms <= span; ms += step) {
    const i = Math.floor(ms / cellMs);
    const text = offsetLabel(ms);
    if (i < free || i + text.length > width + 6) continue;
    for (let k = 0; k < text.length; k++) axis[i + k] = text[k];
    free = i + text.length + 1;
  }
  lines.push(`${' '.repeat(labelW + 1)} ${axis.join('').trimEnd()}`);
  const used = new Set<CellKind>();
  for (const l of tl.lanes) {
    const cells = laneCells(l, tl.startMs, cellMs, width, tl.endMs);
    let chart = '';
    for (const c of cells) {
      if (c === '') continue;
      if (c === undefined) {
        chart += ' ';
        continue;
      }
      used.add(c);
      chart += paint(TIMELINE_GLYPHS[c].glyph, TIMELINE_GLYPHS[c].sgr);
    }
    const outcome = showOutcome ? `  ${cut(l.outcome, outcomeW)}` : '';
    lines.push(`${cut(l.taskId, labelW).padEnd(labelW)} │${chart}${outcome}`.trimEnd());
  }
  if (tl.massStallsMs.length > 0) {
    const row = new Array(width).fill(' ');
    for (const ms of tl.massStallsMs) row[Math.min(width - 1, Math.floor((ms - tl.startMs) / cellMs))] = paint('≋', '31');
    lines.push(`${cut('breaker', labelW).padEnd(labelW)} │${row.join('').trimEnd()}`);
  }
  // Legend: what this picture uses, wrapped to the width.
  const items = (['activity', 'silent', ...TIMELINE_MARK_KINDS] as CellKind[])
    .filter((k) => used.has(k))
    .map((k) => [paint(TIMELINE_GLYPHS[k].glyph, TIMELINE_GLYPHS[k].sgr), TIMELINE_GLYPHS[k].legend, TIMELINE_GLYPHS[k].width ?? 1] as const);
  if (tl.massStallsMs.length > 0) items.push([paint('≋', '31'), 'circuit breaker (mass stall)', 1]);
  let line = '';
  let lineW = 0;
  for (const [glyph, legend, w] of items) {
    const itemW = w + 1 + legend.length;
    if (lineW > 0 && lineW + 2 + itemW > columns) {
      lines.push(line);
      line = '';
      lineW = 0;
    }
    line += `${lineW > 0 ? '  ' : ''}${glyph} ${legend}`;
    lineW += (lineW > 0 ? 2 : 0) + itemW;
  }
  if (line) lines.push(line);
  lines.push(...wrap(summaryLine(tl.summary), columns));
  return lines;
}

/** Words wrapped to `columns` (continuation lines start with `indent`); a word longer than a line is cut. */
export function wrap(text: string, columns: number, indent = ''): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > columns) {
      out.push(line.length > columns ? cut(line, columns) : line);
      line = indent + word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line.length > columns ? cut(line, columns) : line);
  return out;
}
