// Builders for core data: a task row and an observation with sensible defaults.
import type { Task } from '../../src/contracts/state-file.js';
import type { Observation } from '../../src/observe/parse/observation.js';
import { classified, mergeObservations } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import type { ReportMeta } from '../../src/core/report.js';

export const T0 = Date.parse('2026-04-02T10:00:00Z');

export function makeTask(over: Partial<Task> = {}): Task {
  return { taskId: 't1', ticketId: 'PROJ-1001', status: 'in_progress', statusClass: 'in_flight', dispatchedAtMs: T0, ...over };
}

/** An observation of a Claude Code row: its calls classified and its words lent as the check's merge does (CLAUDE_LENS). */
export function makeObs(over: Partial<Observation> = {}): Observation {
  const o: Observation = { ...mergeObservations([], CLAUDE_LENS), ...over };
  if (o.lastTool) o.lastTool = classified(o.lastTool, CLAUDE_LENS.classifyTool);
  o.recentCalls = o.recentCalls.map((c) => classified(c, CLAUDE_LENS.classifyTool));
  return o;
}

/** The meta of a watchdog.json built in a test (buildWatchdogJson's last argument), as of `nowMs`. */
export function reportMeta(nowMs: number): ReportMeta {
  return { epicId: 'E-1', nowMs, version: '0', pid: 1, runId: 'r', checkIntervalSeconds: 30, timeoutSeconds: 120, action: 'report', isNowOverridden: false };
}
