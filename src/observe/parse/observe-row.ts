// Evidence from the task row's own fields (DESIGN §3, §4 source 1). Pure.
import type { Task } from '../../contracts/state-file.js';
import type { PartialObservation } from './observation.js';

/** What the orchestrator recorded in the row itself. */
export function observeRow(task: Task): PartialObservation {
  const part: PartialObservation = { source: 'row' };
  if (task.lastActivityMs !== undefined) part.lastProgressMs = task.lastActivityMs;
  if (task.lastToolName) {
    part.lastTool = {
      name: task.lastToolName,
      command: task.lastToolCommand,
      timeoutMs: task.lastToolTimeoutMs,
      startedAtMs: task.lastActivityMs,
      // A row cannot say whether the call returned, so it is taken as returned: only a transcript
      // or hook that sees the call still open earns open_tool_call. bash_long_timeout needs only the timeout.
      isOpen: false,
      inputSummary: task.lastToolCommand,
    };
  }
  if (task.lastOutput !== undefined) part.lastOutput = task.lastOutput;
  return part;
}
