// The demo's live display: on a TTY, a table redrawn in place with the latest events under it;
// otherwise plain appended lines (each event, and a status line whenever a task's verdict or
// exemptions change), so a log or CI run reads top to bottom.
import type { Output } from '../deps.js';
import { renderTable } from '../core/format.js';

/** One row of the live table. */
export interface LiveRow {
  taskId: string;
  agent: string;
  process: string;
  verdict: string;
  idleWindow: string;
  exemptions: string;
  lastTool: string;
}

export type FeedSource = 'orchestrator' | 'watchdog';

export interface LiveViewOptions {
  isTty: boolean;
  /** Terminal width; TTY lines are cut to it so a redraw never wraps. @defaultValue 120 */
  columns?: number;
  /** Shown in the header. */
  title: string;
  /** Events kept under the TTY table. @defaultValue 12 */
  feedLines?: number;
}

/** The verdict shown before the watchdog's first check of a task. */
export const NOT_CHECKED = '(not checked yet)';

const HEADER = ['TASK', 'AGENT', 'PROCESS', 'VERDICT', 'IDLE / WINDOW', 'EXEMPTIONS', 'LAST TOOL'];

/** `+6.4s`: time since the demo started. */
export const elapsed = (ms: number) => `+${(Math.max(0, ms) / 1000).toFixed(1)}s`;

export class LiveView {
  private readonly feed: string[] = [];
  private readonly pending: { atMs: number; line: string }[] = [];
  private rows: LiveRow[] = [];
  private elapsedMs = 0;
  private drawnLines = 0;
  private readonly lastState = new Map<string, string>();

  constructor(
    private readonly out: Output,
    private readonly opts: LiveViewOptions,
  ) {}

  /** A line for the event feed, `atMs` after the start; shown in time order at the next update. */
  note(atMs: number, who: FeedSource, text: string): void {
    this.pending.push({ atMs, line: `${elapsed(atMs).padStart(7)}  ${who.padEnd(12)}  ${text}` });
  }

  /** New table contents; a TTY redraws, plain output prints the new events and what changed. */
  update(elapsedMs: number, rows: LiveRow[]): void {
    this.elapsedMs = elapsedMs;
    this.rows = rows;
    // Notes from the orchestrator and lines read from the log arrive out of order within a refresh.
    const fresh = this.pending.splice(0).sort((a, b) => a.atMs - b.atMs).map((p) => p.line);
    this.feed.push(...fresh);
    if (this.opts.isTty) return this.redraw();
    for (const line of fresh) this.out.out(line + '\n');
    for (const r of rows) {
      if (r.verdict === NOT_CHECKED) continue;
      const state = `${r.verdict}|${r.exemptions}`;
      if (this.lastState.get(r.taskId) === state) continue;
      this.lastState.set(r.taskId, state);
      const exempt = r.exemptions === '-' ? '' : `  exemptions ${r.exemptions}`;
      this.out.out(`${elapsed(elapsedMs).padStart(7)}  ${'status'.padEnd(12)}  ${r.taskId}: ${r.verdict}, idle/window ${r.idleWindow}${exempt}, last tool ${r.lastTool}\n`);
    }
  }

  /** The last frame (TTY) or the final table (plain). */
  finish(elapsedMs: number, rows: LiveRow[]): void {
    this.update(elapsedMs, rows);
    if (this.opts.isTty) return;
    this.out.out('\n' + this.table());
  }

  private table(): string {
    return renderTable(HEADER, this.rows.map((r) => [r.taskId, r.agent, r.process, r.verdict, r.idleWindow, r.exemptions, r.lastTool]));
  }

  private redraw(): void {
    const width = Math.max(40, (this.opts.columns || 120) - 1);
    const keep = this.opts.feedLines ?? 12;
    const lines = [
      `${this.opts.title}  ${elapsed(this.elapsedMs)}`,
      '',
      ...this.table().trimEnd().split('\n'),
      '',
      'events',
      ...this.feed.slice(-keep),
    ].map((l) => (l.length > width ? l.slice(0, width - 1) + '…' : l));
    // Move to the start of the previous frame and clear to the end of the screen.
    const up = this.drawnLines > 0 ? `\x1b[${this.drawnLines}F\x1b[J` : '';
    this.out.out(up + lines.join('\n') + '\n');
    this.drawnLines = lines.length;
  }
}
