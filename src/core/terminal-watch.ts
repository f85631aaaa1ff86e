// A row that says terminal while its agent is still at work (issue 20 item 3, OWNER_RECONCILE):
// which terminal rows are still observed, and what says their agent runs on. Pure.
import type { Task } from '../contracts/state-file.js';
import type { Observation } from '../observe/parse/observation.js';

/** Records this soon after the row turned terminal are the agent's last words, not work going on, in ms. @defaultValue 5000 */
const AFTER_TERMINAL_SLACK_MS = 5_000;

/**
 * Whether a terminal row's agent is observed this check: something names it (pid, agent, session,
 * transcript), and the row turned terminal within `watchMs` (the reconcile grace and two windows),
 * or a reconcile request about it is still pending (its answer is judged from the agent too).
 */
export function watchesTerminalRow(task: Task, nowMs: number, watchMs: number, isReconcilePending: boolean): boolean {
  if (task.statusClass !== 'terminal' || task.terminalSinceMs === undefined) return false;
  if (task.pid === undefined && !task.agentId && !task.sessionId && !task.transcriptPath) return false;
  return isReconcilePending || nowMs - task.terminalSinceMs <= watchMs;
}

/** What names a row's agent: its pid, subagent id, own session (not a subagent's lead's) or transcript. */
function agentKeys(t: Task): string[] {
  const keys: string[] = [];
  if (t.pid !== undefined) keys.push(`pid:${t.pid}`);
  if (t.agentId) keys.push(`agent:${t.agentId}`);
  else if (t.sessionId) keys.push(`session:${t.sessionId}`);
  if (t.transcriptPath) keys.push(`file:${t.transcriptPath}`);
  return keys;
}

/**
 * watchesTerminalRow for the rows of one wave, but never for a terminal row whose agent an
 * in-flight row names too: the orchestrator handed it on (a resume answered by a new row carrying
 * the same session), so the work going on is that row's, not the old row's to reconcile.
 */
export function terminalRowWatcher(tasks: readonly Task[], watchMs: number): (task: Task, nowMs: number, isReconcilePending: boolean) => boolean {
  let carried: Set<string> | undefined;
  const inFlight = () => (carried ??= new Set(tasks.filter((t) => t.statusClass === 'in_flight').flatMap(agentKeys)));
  return (task, nowMs, isReconcilePending) => watchesTerminalRow(task, nowMs, watchMs, isReconcilePending) && !agentKeys(task).some((k) => inFlight().has(k));
}

/**
 * What says the agent of a terminal row still runs, in words, or undefined: the row's own process
 * alive with no record of the agent having finished, or its own records (or its process's output)
 * going on after the row turned terminal: recent (within its window) and not followed by a finish.
 * A process known gone never runs; an idle session's process being alive is not work.
 */
export function stillRunning(task: Task, obs: Observation, windowMs: number, nowMs: number): string | undefined {
  const since = task.terminalSinceMs;
  if (since === undefined || obs.isProcessAlive === false || task.hasExited) return undefined;
  if (task.pid !== undefined && obs.isProcessAlive === true && !obs.finished) return `its process ${task.pid} is alive and nothing says it finished`;
  const at =
    obs.lastProgressMs === undefined || obs.outputGrewAtMs === undefined
      ? (obs.lastProgressMs ?? obs.outputGrewAtMs)
      : Math.max(obs.lastProgressMs, obs.outputGrewAtMs);
  const isFinishedAfter = obs.finished?.atMs !== undefined && at !== undefined && obs.finished.atMs >= at;
  if (at === undefined || isFinishedAfter || at <= since + AFTER_TERMINAL_SLACK_MS || nowMs - at > windowMs) return undefined;
  return `it was at work ${Math.round((nowMs - at) / 1000)}s ago, ${Math.round((at - since) / 1000)}s after the row turned terminal`;
}
