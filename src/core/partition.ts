// The partition rule (docs/fleet.md): an agent seen only through OpenTelemetry is never called
// stalled while the receiver hears nothing at all from its host. Pure.
import { msToIso } from '../contracts/time.js';
import type { Observation } from '../observe/parse/observation.js';

/**
 * Why an agent seen only through OpenTelemetry cannot be called stalled (undefined: it can): its
 * host has sent nothing since the session's newest event, or nothing within the window. Traffic
 * from the host after the silence began (another session, the host Collector's own metrics) shows
 * the link is up and the silence is the agent's.
 */
export function telemetryPartition(obs: Observation, nowMs: number, windowMs: number): string | undefined {
  const t = obs.telemetry;
  if (!t || obs.sources.some((s) => s === 'transcript' || s === 'hooks' || s === 'process')) return undefined;
  if (t.hostHeardMs !== undefined && t.hostHeardMs > t.sessionReceivedMs && nowMs - t.hostHeardMs <= windowMs) return undefined;
  const since = Math.max(t.sessionReceivedMs, t.hostHeardMs ?? -Infinity);
  return `the receiver has heard nothing at all from host ${t.host} since ${msToIso(since)}`;
}
