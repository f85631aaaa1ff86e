// What a person watching the loop sees: the wave as a table (verdict, idle / window, next
// deadline, exemption and why, requests), a heartbeat line, and change lines. Pure: the shell
// passes the check, the time and the terminal's width.
import type { ExemptionName } from '../contracts/vocabulary.js';
import type { WatchdogJson } from '../contracts/watchdog-json.js';
import { cut, fmtSecs, idleWindowCell } from './format.js';
import { safeText } from '../present/safe-text.js';

export { cut };

/** One check as the view needs it. */
export interface FrameInput {
  report: WatchdogJson;
  /** Task id → when it would be called stalled if nothing changes (in-flight tasks only). */
  deadlines: Pick<ReadonlyMap<string, number>, 'get'>;
  /** Task id → requests waiting for the orchestrator (requestsByTask). */
  requests: ReadonlyMap<string, readonly string[]>;
  /** The moment drawn: the check's, or a tick's between checks (idle times and countdowns move on). */
  nowMs: number;
  /** When the check ran (defaults to nowMs). */
  checkedAtMs?: number;
  /** Task instances escalated (the row may still say in progress until the orchestrator blocks it). */
  escalated?: ReadonlySet<string>;
}

/** Requests waiting for the orchestrator, by task id: `redispatch`, `cancel (unanswered)`. */
export function requestsByTask(report: WatchdogJson): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of report.requests ?? []) out.set(r.task_id, [...(out.get(r.task_id) ?? []), r.status === 'pending' ? r.kind : `${r.kind} (unanswered)`]);
  return out;
}

/** Why each exemption widens the window, in a few words. */
const EXEMPTION_WHY: { readonly [N in ExemptionName]: (lastTool: string | null) => string } = {
  // The shell exemptions name the call by its tool (the CLI's own word for its shell).
  bash_long_timeout: (tool) => `long ${tool ?? 'shell'} call (its own timeout)`,
  rate_limit: () => 'backing off a rate limit',
  api_resend: () => 'the API asked again at a backoff pace',
  ci_polling: (tool) => `${tool ?? 'shell'} polling CI`,
  open_tool_call: (tool) => `${tool ?? 'tool'} call still open`,
};

type Task = WatchdogJson['tasks'][number];

/** `bash_long_timeout: long <tool> call (its own timeout)`, or '-'. */
export function exemptionWhy(t: Pick<Task, 'exemptions' | 'last_tool'>): string {
  return t.exemptions.map((x) => `${x}: ${EXEMPTION_WHY[x](t.last_tool)}`).join('; ') || '-';
}

const hhmmss = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/** `10:12:00 (in 1m40s)`, or '-' for a task that cannot stall. */
export function deadlineCell(deadlineMs: number | undefined, nowMs: number): string {
  if (deadlineMs === undefined) return '-';
  const left = Math.round((deadlineMs - nowMs) / 1000);
  return left >= 0 ? `${hhmmss(deadlineMs)} (in ${fmtSecs(left)})` : `${hhmmss(deadlineMs)} (passed)`;
}

const verdictText = (t: Task, f: FrameInput) =>
  f.escalated?.has(t.task_id) && t.verdict !== 'terminal' && t.verdict !== 'blocked'
    ? 'ESCALATED'
    : t.verdict === 'stalled'
      ? 'STALLED'
      : t.verdict === 'terminal'
        ? `done (${t.status})`
        : t.verdict;

export const WATCH_HEADER = ['TASK', 'TICKET', 'VERDICT', 'IDLE / WINDOW', 'OF WINDOW', 'STALLS AT', 'REQUESTS', 'WHY'] as const;

/** Idle as of the frame's moment: a tick between checks adds the time since the check (in-flight tasks only). */
function idleNow(t: Task, f: FrameInput): number | null {
  if (t.idle_seconds === null) return null;
  const isRunning = t.verdict !== 'terminal' && t.verdict !== 'blocked';
  return isRunning ? t.idle_seconds + Math.max(0, Math.floor((f.nowMs - (f.checkedAtMs ?? f.nowMs)) / 1000)) : t.idle_seconds;
}

/** `███░░░░░░░`: idle against the window, 10 cells; full (and past) when the window is used up. */
export function idleBar(idleSeconds: number | null, windowSeconds: number, cells = 10): string {
  if (idleSeconds === null || !(windowSeconds > 0)) return '-';
  const filled = Math.min(cells, Math.round((idleSeconds / windowSeconds) * cells));
  return '█'.repeat(filled) + '░'.repeat(cells - filled);
}

/** The table's cells, one row per task. */
export function frameRows(f: FrameInput): string[][] {
  return f.report.tasks.map((t) =>
    [
      t.task_id,
      t.ticket_id,
      verdictText(t, f),
      idleWindowCell(idleNow(t, f), t.effective_timeout_seconds, t.verdict === 'stalled'),
      t.verdict === 'terminal' || t.verdict === 'blocked' ? '-' : idleBar(idleNow(t, f), t.effective_timeout_seconds),
      t.verdict === 'healthy' ? deadlineCell(f.deadlines.get(t.task_id), f.nowMs) : '-',
      f.requests.get(t.task_id)?.join(',') || '-',
      // Healthy: which exemption widens the window and why; anything else: the verdict's reason.
      t.verdict === 'healthy' ? exemptionWhy(t) : t.verdict === 'terminal' ? '-' : t.reason,
    ].map((cell) => safeText(cell)),
  ); // a row's status and an agent's last call come from files
}

/**
 * Lay out a table within `columns`: the last column is cut first (down to 12 characters), then
 * columns are dropped from `dropOrder`, then each line is cut. Returns lines and the start
 * offset of every kept column (so the shell can colour a cell).
 */
export function fitTable(
  header: readonly string[],
  rows: readonly string[][],
  columns: number,
  dropOrder: readonly number[],
): { lines: string[]; kept: number[]; offsets: number[] } {
  let kept = header.map((_, i) => i);
  const widthOf = (i: number) => Math.max(header[i]!.length, ...rows.map((r) => (r[i] ?? '').replace(/\s+/g, ' ').length));
  const total = (cols: number[], lastW: number) => cols.slice(0, -1).reduce((s, i) => s + widthOf(i) + 2, 0) + lastW;
  const last = () => kept[kept.length - 1]!;
  let lastW = widthOf(last());
  for (const drop of [undefined, ...dropOrder]) {
    if (drop !== undefined) {
      kept = kept.filter((i) => i !== drop);
      lastW = widthOf(last());
    }
    if (total(kept, lastW) <= columns) break;
    const room = columns - total(kept, 0);
    if (room >= Math.min(12, lastW)) {
      lastW = room;
      break;
    }
  }
  const offsets: number[] = [];
  let at = 0;
  for (const i of kept.slice(0, -1)) {
    offsets.push(at);
    at += widthOf(i) + 2;
  }
  offsets.push(at);
  const line = (cells: readonly string[]) =>
    cut(
      kept
        .map((i, k) => (k === kept.length - 1 ? cut(cells[i] ?? '', lastW) : cut(cells[i] ?? '', widthOf(i)).padEnd(widthOf(i))))
        .join('  ')
        .trimEnd(),
      columns,
      false,
    );
  return { lines: [line(header), ...rows.map(line)], kept, offsets };
}

/** Tasks per verdict as the table shows them, `2 healthy, 1 STALLED, 1 ESCALATED, 3 done`. */
export function countsLine(report: WatchdogJson, escalated?: ReadonlySet<string>): string {
  const counts = new Map<string, number>();
  for (const t of report.tasks) {
    const k = escalated?.has(t.task_id) && t.verdict !== 'terminal' && t.verdict !== 'blocked' ? 'ESCALATED' : t.verdict;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n} ${k === 'terminal' ? 'done' : k === 'stalled' ? 'STALLED' : k}`).join(', ') || 'no tasks';
}

/** The earliest deadline of a healthy task: `t2 (P-2) at 10:12:00 (in 1m40s)`. */
export function nextDeadline(f: FrameInput): string | undefined {
  let best: Task | undefined;
  let bestMs = Infinity;
  for (const t of f.report.tasks) {
    const d = f.deadlines.get(t.task_id);
    if (t.verdict === 'healthy' && d !== undefined && d < bestMs) [best, bestMs] = [t, d];
  }
  return best ? `${best.task_id} (${best.ticket_id}) at ${deadlineCell(bestMs, f.nowMs)}` : undefined;
}

/** The line a non-terminal output prints every few minutes, so silence never means "dead". */
export function heartbeatLine(f: FrameInput): string {
  const pending = [...f.requests.values()].reduce((s, k) => s + k.length, 0);
  const next = nextDeadline(f);
  return (
    `${hhmmss(f.nowMs)} still watching epic ${f.report.epic_id}: ${countsLine(f.report, f.escalated)}` +
    (next ? `; next possible stall ${next}` : '') +
    (pending ? `; ${pending} request(s) waiting for the orchestrator` : '')
  );
}

/** What changed since the previous check that the log's events do not say: completions and exemptions. */
/**
 * What changeLines compares a check with: each task's id, verdict and exemptions at the check
 * before (not its reason or idle time, which change every check).
 */
export type TaskMark = Pick<WatchdogJson['tasks'][number], 'task_id' | 'verdict' | 'exemptions'>;

/**
 * The marks of `tasks`, written over `into` (its objects reused): the live view keeps them from
 * one check to the next instead of the whole report, whose reasons and entries would otherwise
 * outlive the check and be promoted to V8's old generation (at 10,000 agents, megabytes a check).
 */
export function taskMarks(tasks: readonly WatchdogJson['tasks'][number][], into: TaskMark[] = []): TaskMark[] {
  into.length = tasks.length;
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i]!;
    const m = into[i];
    if (m) {
      m.task_id = t.task_id;
      m.verdict = t.verdict;
      m.exemptions = t.exemptions;
    } else into[i] = { task_id: t.task_id, verdict: t.verdict, exemptions: t.exemptions };
  }
  return into;
}

export function changeLines(prev: readonly TaskMark[] | undefined, f: FrameInput): string[] {
  // Asked after every check, of every task: the same index first (a steady wave's order), a map only when it differs.
  let before: Map<string, TaskMark> | undefined;
  const previousOf = (t: WatchdogJson['tasks'][number], i: number) => {
    const same = prev?.[i];
    if (!prev || same?.task_id === t.task_id) return same;
    return (before ??= new Map(prev.map((x) => [x.task_id, x]))).get(t.task_id);
  };
  const lines: string[] = [];
  const at = hhmmss(f.nowMs);
  for (let i = 0; i < f.report.tasks.length; i++) {
    const t = f.report.tasks[i]!;
    const p = previousOf(t, i);
    const isEnded = t.verdict === 'terminal' || t.verdict === 'blocked';
    if (isEnded && p && p.verdict !== t.verdict)
      lines.push(`${at} ${t.task_id} (${t.ticket_id}) ${t.verdict === 'terminal' ? `finished: ${t.status}` : 'is blocked'}`);
    if (isEnded || p?.exemptions === t.exemptions || (t.exemptions.length === 0 && (p === undefined || p.exemptions.length === 0))) continue;
    const was = p?.exemptions.join(',') ?? '';
    const now = t.exemptions.join(',');
    if (was === now) continue;
    const who = `${t.task_id} (${t.ticket_id})`;
    lines.push(
      now
        ? `${at} ${who} exempt, window ${fmtSecs(t.effective_timeout_seconds)}: ${exemptionWhy(t)}`
        : `${at} ${who} no longer exempt, window ${fmtSecs(t.effective_timeout_seconds)}`,
    );
  }
  return lines.map((l) => safeText(l));
}
