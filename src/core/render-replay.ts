// `replay` output: the verdict timeline and summary as text, or as NDJSON lines
// (contracts/replay.ts). Pure.
import type { ReplayLine } from '../contracts/replay.js';
import { msToIso } from '../contracts/time.js';
import { renderTable } from './format.js';
import type { ReplayResult, VerdictChange } from './replay-types.js';

const secs = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms / 1000));
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

function where(c: VerdictChange): string {
  if (c.line === undefined) return 'window ran out';
  return c.childFile ? `${c.childFile.split(/[/\\]/).at(-1)}:${c.line}` : `line ${c.line}`;
}

function outcomeText(c: VerdictChange): string {
  switch (c.outcome) {
    case 'false_alarm':
      return `  <- FALSE ALARM: the agent went on at ${clock(c.resumedAtMs!)}`;
    case 'human_resumed':
      return `  <- a human prompt came next (${clock(c.resumedAtMs!)})`;
    case 'interrupted':
      return `  <- interrupted by the user (${clock(c.resumedAtMs!)})`;
    case 'end_of_transcript':
      return '  <- nothing after it in the file';
    default:
      return '';
  }
}

/** The timeline and summary of one replay, as aligned text. */
export function renderReplayText(r: ReplayResult): string {
  const s = r.summary;
  const span = s.firstMs === undefined ? 'no timed records' : `${msToIso(s.firstMs)} .. ${msToIso(s.lastMs!)}`;
  const head = `${r.file}  (${s.records} records, ${span}${r.children.length ? `, ${r.children.length} subagent transcript${r.children.length === 1 ? '' : 's'}` : ''})  base window ${secs(r.baseTimeoutMs)}s\n`;
  const rows = r.changes.map((c) => [
    clock(c.atMs),
    c.verdict.kind === 'stalled' ? 'STALLED' : c.verdict.kind,
    `${secs(c.verdict.effectiveTimeoutMs)}s`,
    c.verdict.exemptions.join(',') || '-',
    where(c),
    c.verdict.reason + outcomeText(c),
  ]);
  const table = renderTable(['TIME', 'VERDICT', 'WINDOW', 'EXEMPTIONS', 'AT', 'REASON'], rows);
  const bad = r.badLines.length ? `  ${r.badLines.length} line(s) not JSON, skipped: ${r.badLines.slice(0, 5).join(', ')}\n` : '';
  const sum = `  stalls flagged: ${s.stalls}; false alarms (the agent went on): ${s.falseAlarms}; a human stepped in: ${s.humanResumed}; at the end of the file: ${s.atEnd}\n`;
  return head + table.replace(/^/gm, '  ') + bad + sum;
}

/** One row per base window: how each would have done over the same transcripts. */
export function renderReplayComparison(results: readonly ReplayResult[]): string {
  const byWindow = new Map<number, ReplayResult[]>();
  for (const r of results) byWindow.set(r.baseTimeoutMs, [...(byWindow.get(r.baseTimeoutMs) ?? []), r]);
  const rows = [...byWindow.entries()].map(([ms, rs]) => {
    const sum = (f: (r: ReplayResult) => number) => String(rs.reduce((n, r) => n + f(r), 0));
    return [`${secs(ms)}s`, sum((r) => r.summary.stalls), sum((r) => r.summary.falseAlarms), sum((r) => r.summary.humanResumed), sum((r) => r.summary.atEnd)];
  });
  return renderTable(['WINDOW', 'STALLS', 'FALSE ALARMS', 'HUMAN STEPPED IN', 'AT END'], rows);
}

/** NDJSON lines of one replay: each verdict change, then the summary. */
export function replayJsonLines(r: ReplayResult): ReplayLine[] {
  const common = { file: r.file, timeout_seconds: r.baseTimeoutMs / 1000 };
  const changes: ReplayLine[] = r.changes.map((c) => ({
    type: 'change',
    ...common,
    at: msToIso(c.atMs),
    verdict: c.verdict.kind,
    reason: c.verdict.reason,
    window_seconds: c.verdict.effectiveTimeoutMs / 1000,
    exemptions: [...c.verdict.exemptions],
    idle_seconds: secs(c.verdict.idleMs),
    stall_reason: c.verdict.stallReason ?? null,
    line: c.line ?? null,
    child_file: c.childFile ?? null,
    outcome: c.outcome ?? null,
  }));
  const s = r.summary;
  return [
    ...changes,
    {
      type: 'summary',
      ...common,
      first_record: s.firstMs === undefined ? null : msToIso(s.firstMs),
      last_record: s.lastMs === undefined ? null : msToIso(s.lastMs),
      records: s.records,
      stalls: s.stalls,
      false_alarms: s.falseAlarms,
      human_resumed: s.humanResumed,
      at_end: s.atEnd,
      children: [...r.children],
    },
  ];
}
