// The process observer (DESIGN §4 source 6): for each task whose agent's process is known (the
// row's `pid`, or the pid its CLI recorded for the session), one sample per check folded
// into a track (parse/process-evidence.ts). Only a main session's own row: a subagent shares its
// session's process, whose bytes may be any agent's. No /proc → no evidence (today's verdicts). I/O.
import type { Task } from '../../contracts/state-file.js';
import { foldProcessSample, processPart, type ProcessSample, type ProcessTrack } from '../parse/process-evidence.js';
import type { PartialObservation } from '../parse/observation.js';
import type { TaskObserver } from './observer.js';
import { apiPortOf, readProcessSamples } from './process-sample.js';

export interface ProcessObserverOptions {
  /**
   * The pid the row's agent CLI recorded for its session (its harness's `sessionPid`: Claude Code
   * 2.1.x names each session's pid in `<config dir>/sessions/<pid>.json`); absent: rows' `pid` only.
   */
  sessionPid?: (task: Task, sessionId: string, nowMs: number) => number | undefined;
  /** Sample these pids now (tests inject their own). @defaultValue readProcessSamples */
  readSamples?: (pids: readonly number[], apiPorts: Map<number, number>) => Promise<Map<number, ProcessSample>>;
}

/** The parts of a task with no process to sample: one array, so an unchanged check can return it again. */
const NONE: PartialObservation[] = [];

/** A main session's row (no subagent id of its own): its process's bytes are its own. */
const isMainSession = (task: Task) => task.agentId === undefined || task.agentId === task.sessionId;

/** Build the observer; it keeps one track per task between checks. */
export function createProcessObserver(opts: ProcessObserverOptions = {}): TaskObserver {
  const readSamples = opts.readSamples ?? readProcessSamples;
  const tracks = new Map<string, { track: ProcessTrack; parts: PartialObservation[] }>();
  const apiPorts = new Map<number, number>();
  let samples = new Map<number, ProcessSample>();
  let sampledAtMs = -Infinity;

  const pidOf = (task: Task, nowMs: number): number | undefined => {
    if (!isMainSession(task)) return undefined;
    return task.pid ?? (task.sessionId ? opts.sessionPid?.(task, task.sessionId, nowMs) : undefined);
  };

  const portOf = (pid: number) => {
    if (!apiPorts.has(pid)) apiPorts.set(pid, apiPortOf(pid));
    return apiPorts;
  };

  /** Fold this check's sample of `pid` into the task's track (once per moment); the parts, the same array while unchanged. */
  function partsFor(task: Task, pid: number, sample: ProcessSample | undefined, nowMs: number): PartialObservation[] {
    const last = tracks.get(task.taskId);
    if (!sample) {
      // Gone (or no /proc): the row's own liveness check says which; a new process starts a new baseline.
      tracks.delete(task.taskId);
      return NONE;
    }
    if (last && last.track.sampledAtMs === nowMs && last.track.pid === pid) return last.parts;
    const track = foldProcessSample(last?.track, sample, nowMs);
    const same = last && last.track.grewAtMs === track.grewAtMs && last.track.liveChildren === track.liveChildren && last.track.startTicks === track.startTicks;
    const parts = same ? last.parts : [processPart(track)];
    tracks.set(task.taskId, { track, parts });
    return parts;
  }

  return {
    name: 'process',
    async beginCheck(nowMs) {
      // One sample of every process tracked, for the whole check (one `ss` run).
      const pids = [...new Set([...tracks.values()].map((t) => t.track.pid))];
      for (const pid of pids) portOf(pid);
      samples = await readSamples(pids, apiPorts);
      sampledAtMs = nowMs;
      for (const [id, t] of tracks) if (!samples.has(t.track.pid)) tracks.delete(id);
    },
    async observe(task, nowMs) {
      const pid = pidOf(task, nowMs);
      if (pid === undefined) return NONE;
      let sample = sampledAtMs === nowMs ? samples.get(pid) : undefined;
      if (!sample) {
        const one = await readSamples([pid], portOf(pid));
        sample = one.get(pid);
        if (sample) samples.set(pid, sample);
      }
      return partsFor(task, pid, sample, nowMs);
    },
    observeUnchanged(task, nowMs) {
      const pid = pidOf(task, nowMs);
      if (pid === undefined) return NONE;
      const sample = sampledAtMs === nowMs ? samples.get(pid) : undefined;
      if (!sample) return undefined;
      const before = tracks.get(task.taskId)?.parts;
      const parts = partsFor(task, pid, sample, nowMs);
      return parts === before ? parts : undefined;
    },
  };
}
