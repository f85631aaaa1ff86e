// The live view of `dispatch-watchdog --epic-id ID` for a person: on a terminal, the wave as a
// table redrawn in place after every check with the latest events under it; otherwise plain
// lines (each event, what changed, and a heartbeat every few minutes). --json and --once do not use it.
import type { DispatchEvent } from './contracts/events.js';
import type { Output, Terminal } from './deps.js';
import { cut, renderEvent } from './core/format.js';
import { summarizeWave, summaryLine } from './core/timeline.js';
import { wrap } from './core/timeline-text.js';
import {
  WATCH_HEADER,
  changeLines,
  requestsByTask,
  countsLine,
  fitTable,
  frameRows,
  heartbeatLine,
  nextDeadline,
  taskMarks,
  type FrameInput,
  type TaskMark,
} from './core/watch-frame.js';
import type { CheckResult } from './check.js';
import type { Verdict } from './core/assess.js';

export interface WatchViewOptions {
  epicId: string;
  terminal: Terminal;
  /** Plain output: a heartbeat line after this long without one. @defaultValue 300000 */
  heartbeatMs?: number;
  /** Events kept under the table. @defaultValue 10 */
  feedLines?: number;
}

export interface WatchView {
  /** A line the log just wrote. */
  event(e: DispatchEvent): void;
  /** A line from outside the log for the feed (the demo's orchestrator), `HH:MM:SS who: text`. */
  note(line: string, atMs: number): void;
  /** A check finished (ok or not); resolves once it is drawn. */
  result(r: CheckResult): Promise<void>;
  /** Something else was written to the terminal: start the next frame below it. */
  interrupt(): void;
  /** Wait until every update is written. */
  flush(): Promise<void>;
  /** Redraw as of `nowMs` between checks: idle times and countdowns tick (a terminal only). */
  tick(nowMs: number): void;
  /** The loop ended: a short summary of what this run saw. */
  finish(reason: string): void;
}

const PAINT: Record<string, string> = {
  ESCALATED: '35;1',
  STALLED: '31;1',
  healthy: '32',
  blocked: '33',
  waiting_human: '33',
  looping: '33',
  inconsistent: '35',
  unknown: '35',
};

/** Each task's deadline, by task id, built when first asked (a log view asks only at its heartbeat; a terminal's, every draw). */
function deadlinesOf(verdicts: readonly Verdict[]): FrameInput['deadlines'] {
  let byId: Map<string, number> | undefined;
  return {
    get(taskId) {
      if (!byId) {
        byId = new Map();
        for (const v of verdicts) if (v.deadlineMs !== undefined) byId.set(v.taskId, v.deadlineMs);
      }
      return byId.get(taskId);
    },
  };
}

export function createWatchView(out: Output, o: WatchViewOptions): WatchView {
  const heartbeatMs = o.heartbeatMs ?? 300_000;
  const feed: string[] = [];
  let frame: FrameInput | undefined;
  /** Plain output: each task's verdict and exemptions at the last check, for the change lines. */
  let prev: TaskMark[] | undefined;
  let lastPlainMs: number | undefined;
  let drawn = 0;
  let queue = Promise.resolve();

  const paint = (text: string, code: string | undefined) => (o.terminal.hasColor && code ? `\x1b[${code}m${text}\x1b[0m` : text);

  function redraw() {
    const columns = Math.max(40, (o.terminal.columns() ?? 100) - 1);
    const lines: string[] = [];
    if (frame) {
      const r = frame.report;
      const next = nextDeadline(frame);
      lines.push(
        `dispatch-watchdog  epic ${r.epic_id}  checked ${r.check_timestamp.slice(11, 19)}  action ${r.watchdog.action}  base window ${r.watchdog.timeout_seconds}s`.slice(
          0,
          columns,
        ),
        `${countsLine(r, frame.escalated)}${next ? `  next possible stall: ${next}` : ''}`.slice(0, columns),
        '',
      );
      // Narrow terminals lose the bar, requests, ticket and deadline columns before the rows get cut.
      const rows = frameRows(frame);
      const t = fitTable(WATCH_HEADER, rows, columns, [4, 6, 1, 5]);
      const v = t.kept.indexOf(2);
      t.lines.forEach((line, i) => {
        if (i === 0 || v < 0) return lines.push(i === 0 ? paint(line, '1') : line);
        const at = t.offsets[v]!;
        const word = rows[i - 1]![2]!.startsWith('done') ? 'terminal' : rows[i - 1]![2]!;
        const cell = line.slice(at).split('  ')[0]!;
        lines.push(line.slice(0, at) + paint(cell, PAINT[word]) + line.slice(at + cell.length));
      });
    } else {
      lines.push(`dispatch-watchdog  epic ${o.epicId}: first check…`);
    }
    // Events wrap (their end is often the point: "-> redispatch"), at most 3 lines each.
    const wrapped = feed.slice(-(o.feedLines ?? 10)).flatMap((l) => {
      const parts = wrap(l, columns, '    ');
      return parts.length > 3 ? [...parts.slice(0, 2), cut(parts.slice(2).join(' '), columns)] : parts;
    });
    lines.push('', paint('events', '1'), ...wrapped.slice(-(o.feedLines ?? 10) * 2));
    // Back to the start of the previous frame, clear to the end of the screen, draw.
    out.out((drawn > 0 ? `\x1b[${drawn}F\x1b[J` : '') + lines.join('\n') + '\n');
    drawn = lines.length;
  }

  function plain(line: string, nowMs: number) {
    out.out(line + '\n');
    lastPlainMs = nowMs;
  }

  const seen: DispatchEvent[] = [];
  const escalated = new Set<string>();
  let isFinished = false;
  return {
    event(e) {
      seen.push(e);
      if (e.event === 'escalated_to_blocked') escalated.add(e.task_id);
      if (frame) frame = { ...frame, escalated };
      const line = renderEvent(e);
      if (!o.terminal.isTty) return plain(line, Date.parse(e.timestamp_utc));
      feed.push(line);
      // The last line (watchdog_stopped) comes after the summary: a frame below it would repeat the table.
      if (frame && !isFinished) redraw();
    },
    note(line, atMs) {
      if (!o.terminal.isTty) return plain(line, atMs);
      feed.push(line);
      if (frame && !isFinished) redraw();
    },
    result(r) {
      if (!r.ok) return queue;
      return (queue = queue.then(async () => {
        const checked: FrameInput = {
          report: r.report,
          deadlines: deadlinesOf(r.verdicts),
          requests: requestsByTask(r.report),
          nowMs: r.nowMs,
          checkedAtMs: r.nowMs,
          escalated,
        };
        if (o.terminal.isTty) {
          // Kept for the redraws between checks (idle times and countdowns tick).
          frame = checked;
          redraw();
        } else {
          // Plain lines keep nothing of the check but its marks: a report kept until the next
          // check outlives a young-generation collection, and V8 promotes it (see taskMarks).
          for (const line of changeLines(prev, checked)) plain(line, r.nowMs);
          if (lastPlainMs === undefined || prev === undefined || r.nowMs - lastPlainMs >= heartbeatMs) plain(heartbeatLine(checked), r.nowMs);
          prev = taskMarks(r.report.tasks, prev);
        }
      }));
    },
    interrupt() {
      drawn = 0;
    },
    flush: () => queue,
    tick(nowMs) {
      if (!o.terminal.isTty || !frame || isFinished || nowMs <= frame.nowMs) return;
      frame = { ...frame, nowMs };
      redraw();
    },
    finish(reason) {
      const text = `${reason === 'wave_complete' ? 'wave complete' : `stopped (${reason})`}: ${summaryLine(summarizeWave(seen))}`;
      for (const line of wrap(text, Math.max(40, (o.terminal.columns() ?? 100) - 1), '  ')) out.out(line + '\n');
      drawn = 0;
      isFinished = true;
    },
  };
}
