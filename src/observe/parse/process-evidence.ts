// Process liveness as evidence of output growth (DESIGN §4 source 6, issue 19 item 1): successive
// samples of the agent's process fold into one track, and the track into a PartialObservation.
// Pure: the samples and the time come in as arguments.
//
// Measured on Claude Code 2.1.197 (docs/verdicts.md "Process liveness"): the bytes its API
// connection received (TCP `bytes_received`) stay flat through a frozen stream and grow with
// every event of a slow one; its `/proc/<pid>/io` read bytes and CPU time grow in both (timers,
// ~90 B/s of eventfd/statm reads, a tick a second), so they are sampled for the record and never
// counted. Live child processes say a tool's command runs (the Bash tool's shell).
import type { PartialObservation } from './observation.js';

/** One look at a process (readProcessSamples). */
export interface ProcessSample {
  pid: number;
  /** /proc/<pid>/stat starttime: the same pid with another start is another process. */
  startTicks: number;
  /**
   * Bytes received so far on each of its TCP connections to the model API, by connection
   * (`local>peer`); undefined when the platform cannot tell (no `ss`, no /proc).
   */
  apiBytesReceived?: Record<string, number>;
  /** Its live descendants (a tool's command and what it started); undefined when not listed. */
  liveChildren?: number;
  /** utime + stime in clock ticks (recorded only: timers move it while the agent is frozen). */
  cpuTicks?: number;
  /** /proc/<pid>/io rchar (recorded only: timers move it while the agent is frozen). */
  readBytes?: number;
}

/** What successive samples of one process established. */
export interface ProcessTrack {
  pid: number;
  startTicks: number;
  /** The last sample's per-connection bytes received. */
  apiBytesReceived?: Record<string, number>;
  /** When a sample last found more bytes received than the one before it. */
  grewAtMs?: number;
  /** When the previous sample was taken: the growth happened after it. */
  sampledAtMs: number;
  liveChildren?: number;
}

/**
 * Whether `next` received bytes `prev` had not: a connection's count went up, or a connection
 * not there before received anything (a new request's response). A closed connection is no growth.
 */
export function hasReceived(prev: Record<string, number> | undefined, next: Record<string, number> | undefined): boolean {
  if (!prev || !next) return false;
  return Object.entries(next).some(([key, bytes]) => bytes > (prev[key] ?? 0));
}

/**
 * Fold a sample into the process's track. The first sample of a process (or of a pid now held by
 * another process) is a baseline: it proves nothing grew. Growth is dated at the sample that saw
 * it: the bytes arrived between the two samples.
 */
export function foldProcessSample(prev: ProcessTrack | undefined, sample: ProcessSample, nowMs: number): ProcessTrack {
  const same = prev !== undefined && prev.pid === sample.pid && prev.startTicks === sample.startTicks;
  const grew = same && hasReceived(prev.apiBytesReceived, sample.apiBytesReceived);
  return {
    pid: sample.pid,
    startTicks: sample.startTicks,
    ...(sample.apiBytesReceived ? { apiBytesReceived: sample.apiBytesReceived } : {}),
    ...(grew ? { grewAtMs: nowMs } : same && prev.grewAtMs !== undefined ? { grewAtMs: prev.grewAtMs } : {}),
    sampledAtMs: nowMs,
    ...(sample.liveChildren !== undefined ? { liveChildren: sample.liveChildren } : {}),
  };
}

/** The track as one source for mergeObservations: alive, and output growth when its API stream delivered bytes. */
export function processPart(track: ProcessTrack): PartialObservation {
  return {
    source: 'process',
    isProcessAlive: true,
    ...(track.grewAtMs !== undefined ? { outputGrewAtMs: track.grewAtMs } : {}),
    ...(track.liveChildren !== undefined ? { liveChildren: track.liveChildren } : {}),
  };
}
