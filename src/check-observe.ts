// Observing one in-flight task for a check: its row and every observer, and reusing the last
// observation when nothing it was built from changed. I/O through the observers; no judgment.
import type { Task } from './contracts/state-file.js';
import type { Observation, PartialObservation } from './observe/parse/observation.js';
import { mergeObservations } from './observe/parse/observation-merge.js';
import { observeRow } from './observe/parse/observe-row.js';
import type { TaskObserver } from './observe/read/observer.js';
import { isAlive } from './sys/proc-identity.js';
import { harnessOf } from './agents/harnesses.js';

/** One task's last observation: reused while its row object and every observer's parts are the same. */
export interface ObservedTask {
  task: Task;
  /** What each observer returned (undefined: it failed). */
  parts: (readonly PartialObservation[] | undefined)[];
  isAlive?: boolean;
  obs: Observation;
  /** An observer left a changed file unread (PartialObservation.isDeferred): only healthy may be concluded. */
  isDeferred: boolean;
}

/**
 * Observe one in-flight task from its row and every observer; a failing observer is a missing
 * source. `mayDefer`: observers may leave recently read files unread (ObservedTask.isDeferred).
 */
export async function observeTask(task: Task, observers: readonly TaskObserver[], nowMs: number, mayDefer = false): Promise<ObservedTask> {
  const parts = [observeRow(task)];
  const byObserver: ObservedTask['parts'] = [];
  // A live pid turns an open call past its own timeout into a prompt, not a stall (DESIGN §5).
  const isProcessAlive = task.pid === undefined ? undefined : isAlive(task.pid);
  if (isProcessAlive !== undefined) parts.push({ source: 'row', isProcessAlive });
  for (const o of observers) {
    try {
      const got = await o.observe(task, nowMs, mayDefer);
      byObserver.push(got);
      parts.push(...got);
    } catch (e) {
      byObserver.push(undefined);
      parts.push({ source: 'transcript', missing: [{ source: 'transcript', reason: `${o.name} failed: ${(e as Error).message}` }] });
    }
  }
  // The row's harness classifies its calls (kinds, the CLI's timeouts) and lends its words.
  return {
    task,
    parts: byObserver,
    isAlive: isProcessAlive,
    obs: mergeObservations(withoutTelemetryGaps(parts), harnessOf(task)),
    isDeferred: mayDefer && parts.some((p) => p.isDeferred === true),
  };
}

/**
 * An agent seen at work through OpenTelemetry (docs/fleet.md) is judged from it as from a
 * transcript: a transcript this machine cannot find (a part with no progress, only why it is
 * missing) is then no gap, and is left out.
 */
export function withoutTelemetryGaps(parts: PartialObservation[]): PartialObservation[] {
  if (!parts.some((p) => p.source === 'telemetry' && p.lastProgressMs !== undefined)) return parts;
  return parts.filter((p) => !(p.source === 'transcript' && p.lastProgressMs === undefined && p.missing));
}

/**
 * The last observation of `task` when nothing it was built from changed: the same row object,
 * each observer's same parts (asked synchronously, a stat or two each), the same pid liveness.
 */
export function reuseObservation(
  last: ObservedTask | undefined,
  task: Task,
  observers: readonly TaskObserver[],
  nowMs: number,
  isStatRequired = false,
): Observation | undefined {
  if (last?.task !== task) return undefined;
  for (let i = 0; i < observers.length; i++) {
    const parts = observers[i]!.observeUnchanged?.(task, nowMs, isStatRequired);
    if (parts === undefined || parts !== last.parts[i]) return undefined;
  }
  if (task.pid !== undefined && isAlive(task.pid) !== last.isAlive) return undefined;
  return last.obs;
}
