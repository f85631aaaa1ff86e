// Decide whether the pid in a task row is still the agent we mean to stop: the recorded identity must
// match exactly; without one, the process must have started no later than the task's dispatch.
import { msToIso } from '../../contracts/time.js';
import { isSameProcess, probeProcess, processStartRangeMs, type ProcessIdentity } from '../../sys/proc-identity.js';

/** How far after `dispatched_at` the agent's process may start (spawn latency, whole-second timestamps). @defaultValue 5000 */
export const DEFAULT_START_TOLERANCE_MS = 5000;

/** How long before `dispatched_at` the agent's process may have started (an orchestrator records the dispatch after spawning). @defaultValue 60000 */
export const MAX_START_BEFORE_DISPATCH_MS = 60_000;

/** `match`: this is the agent, alive. `gone`/`other`: the agent has exited (`other`: its pid was reused). */
export type TargetVerdict =
  | { kind: 'match'; identity: ProcessIdentity; pgrp: number }
  | { kind: 'gone' }
  | { kind: 'other'; detail: string }
  | { kind: 'unknown'; detail: string };

/** Compare the live process behind `pid` with what we know of the agent. */
export async function verifyTarget(
  pid: number,
  known: { expected?: ProcessIdentity; dispatchedAtMs?: number; isWaveDispatch?: boolean },
  toleranceMs = DEFAULT_START_TOLERANCE_MS,
): Promise<TargetVerdict> {
  const probe = await probeProcess(pid);
  if (probe.kind === 'gone') return probe;
  if (probe.kind === 'unknown') return { kind: 'unknown', detail: probe.reason };
  const live = probe.identity;
  if (known.expected) {
    return isSameProcess(known.expected, live)
      ? { kind: 'match', identity: live, pgrp: probe.pgrp }
      : { kind: 'other', detail: `pid ${pid} now belongs to another process (start ticks ${live.startTicks}, recorded ${known.expected.startTicks})` };
  }
  if (known.dispatchedAtMs === undefined) {
    return { kind: 'unknown', detail: `no identity was recorded for pid ${pid} and the task has no dispatched_at to compare its start time with` };
  }
  const range = await processStartRangeMs(live);
  if (range === undefined) return { kind: 'unknown', detail: `cannot read the start time of pid ${pid} (no /proc/stat)` };
  const v = judgeStartTime(pid, range, known.dispatchedAtMs, Boolean(known.isWaveDispatch), toleranceMs);
  if (v) return v;
  return { kind: 'match', identity: live, pgrp: probe.pgrp };
}

/**
 * What a live process's start time says against the task's dispatch: undefined when it may be the
 * agent. `range` is its start under every boot time seen (a stepped clock moves it): it is called
 * someone else only when every reading puts its start after the dispatch, or long before it.
 */
export function judgeStartTime(
  pid: number,
  range: { earliestMs: number; latestMs: number },
  dispatchedAtMs: number,
  isWaveDispatch: boolean,
  toleranceMs = DEFAULT_START_TOLERANCE_MS,
): Exclude<TargetVerdict, { kind: 'match' | 'gone' }> | undefined {
  const startMs = range.earliestMs;
  if (startMs > dispatchedAtMs + toleranceMs) {
    // The wave's dispatch time says nothing about when this row's agent started: it may be the agent
    // itself, so neither "exited" (a replacement would run beside it) nor safe to kill.
    if (isWaveDispatch) {
      return {
        kind: 'unknown',
        detail: `pid ${pid} started at ${msToIso(Math.round(startMs))}, after the wave was dispatched at ${msToIso(dispatchedAtMs)}, and the row has no dispatched_at of its own, so it may be the agent itself; write the row's own dispatched_at`,
      };
    }
    return {
      kind: 'other',
      detail: `pid ${pid} now belongs to a process started at ${msToIso(Math.round(startMs))}, after the task was dispatched at ${msToIso(dispatchedAtMs)}`,
    };
  }
  // A process much older than the dispatch is not the agent (a shell, a daemon: a wrong pid in the row).
  if (range.latestMs < dispatchedAtMs - MAX_START_BEFORE_DISPATCH_MS) {
    return {
      kind: 'unknown',
      detail: `pid ${pid} belongs to a process started at ${msToIso(Math.round(range.latestMs))}, long before the task was dispatched at ${msToIso(dispatchedAtMs)}: not the agent (a wrong pid in the state file?)`,
    };
  }
  return undefined;
}
