// The live table's rows: the orchestrator's agents (pid, exit) joined with the watchdog's last
// check (verdict, idle, window, exemptions) and the replacements its log says it launched. Pure.
import type { EventOf } from '../contracts/events.js';
import type { WatchdogJson } from '../contracts/watchdog-json.js';
import { NOT_CHECKED, type LiveRow } from './live-view.js';
import type { AgentRun } from './orchestrator.js';

/** A replacement the watchdog launched, and whether its process is still there. */
export interface ReplacementState {
  event: EventOf<'redispatch'>;
  isAlive: boolean;
}

type TaskEntry = WatchdogJson['tasks'][number];

function judged(entry: TaskEntry | undefined): Pick<LiveRow, 'verdict' | 'idleWindow' | 'exemptions' | 'lastTool'> {
  if (!entry) return { verdict: NOT_CHECKED, idleWindow: '-', exemptions: '-', lastTool: '-' };
  const verdict = entry.verdict === 'terminal' ? entry.status : entry.verdict === 'stalled' ? 'STALLED' : entry.verdict;
  return {
    verdict,
    idleWindow: entry.idle_seconds === null ? '-' : `${entry.idle_seconds}s / ${entry.effective_timeout_seconds}s`,
    exemptions: entry.exemptions.join(',') || '-',
    lastTool: entry.last_tool ?? '-',
  };
}

function processOf(run: AgentRun): string {
  const e = run.exit;
  const state = !e ? 'running' : e.code === 0 ? 'exit 0' : e.signal ? `killed (${e.signal})` : `exit ${e.code}`;
  return `pid ${run.pid} ${state}`;
}

/** Rows in dispatch order, each replacement right under the task it replaced. */
export function liveRows(runs: readonly AgentRun[], doc: WatchdogJson | undefined, replacements: readonly ReplacementState[]): LiveRow[] {
  const entry = (id: string) => doc?.tasks.find((t) => t.task_id === id);
  const rows: LiveRow[] = [];
  const place = (taskId: string) => {
    for (const r of replacements.filter((x) => x.event.task_id === taskId)) {
      const id = r.event.recovery_task_id;
      rows.push({ taskId: id, agent: `replacement of ${taskId}`, process: `pid ${r.event.pid ?? '?'} ${r.isAlive ? 'running' : 'exited'}`, ...judged(entry(id)) });
      place(id);
    }
  };
  for (const run of runs) {
    rows.push({ taskId: run.spec.taskId, agent: run.spec.label, process: processOf(run), ...judged(entry(run.spec.taskId)) });
    place(run.spec.taskId);
  }
  return rows;
}
