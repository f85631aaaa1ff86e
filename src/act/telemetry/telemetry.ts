// The watchdog's own telemetry out (docs/fleet.md "Telemetry out"): off unless the standard
// OTEL_* variables ask for it, and then the OpenTelemetry SDK is imported here, lazily, so the
// hook and an unconfigured watchdog never load it.
import type { TelemetrySink } from './sink.js';
import { readTelemetryEnv } from './telemetry-env.js';

export type { CheckFigures, TelemetrySink } from './sink.js';

/** Telemetry as OTEL_* configures it, or undefined (nothing loaded). `warn` gets one line per problem. */
export async function startTelemetry(env: NodeJS.ProcessEnv, version: string, warn: (line: string) => void): Promise<TelemetrySink | undefined> {
  const t = readTelemetryEnv(env);
  if (!t) return undefined;
  for (const w of t.warnings) warn(`dispatch-watchdog: telemetry: ${w}\n`);
  const { startOtel } = await import('./otel.js');
  return startOtel(t, { version }, warn);
}
