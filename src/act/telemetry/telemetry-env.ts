// Whether the watchdog exports its own telemetry, from the standard OTEL_* variables alone
// (docs/fleet.md "Telemetry out"). Off unless an OTLP endpoint or an `otlp` exporter is named;
// OTEL_SDK_DISABLED=true and OTEL_{LOGS,METRICS}_EXPORTER=none turn a signal off. Pure: env in.

export interface TelemetryEnv {
  isLogsOn: boolean;
  isMetricsOn: boolean;
  /** OTEL_METRIC_EXPORT_INTERVAL, ms. @defaultValue 60000 */
  metricIntervalMs: number;
  /** OTEL_METRIC_EXPORT_TIMEOUT, ms. @defaultValue 30000 */
  metricTimeoutMs: number;
  /** OTEL_BLRP_SCHEDULE_DELAY, ms. @defaultValue 1000 */
  logDelayMs: number;
  /** What the variables asked for that this exporter cannot do, said once at start. */
  warnings: string[];
}

const positiveMs = (v: string | undefined, fallback: number) => {
  const n = Number(v);
  return v !== undefined && v.trim() !== '' && Number.isFinite(n) && n > 0 ? n : fallback;
};

/** What OTEL_* asks of the watchdog; undefined when it asks for nothing (the SDK is then never loaded). */
export function readTelemetryEnv(env: NodeJS.ProcessEnv): TelemetryEnv | undefined {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return undefined;
  const exporters = (v: string | undefined) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
  const has = (name: string) => Boolean(env[name]?.trim());
  const isOn = (signal: 'LOGS' | 'METRICS') => {
    const named = exporters(env[`OTEL_${signal}_EXPORTER`]);
    if (named.includes('none')) return false;
    if (named.includes('otlp')) return true;
    // No exporter named: on when an endpoint is.
    return named.length === 0 && (has('OTEL_EXPORTER_OTLP_ENDPOINT') || has(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`));
  };
  const isLogsOn = isOn('LOGS');
  const isMetricsOn = isOn('METRICS');
  if (!isLogsOn && !isMetricsOn) return undefined;
  const warnings: string[] = [];
  for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_LOGS_PROTOCOL', 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL']) {
    const p = env[name]?.trim();
    if (p && p !== 'http/json') warnings.push(`${name}=${p}: the watchdog exports OTLP/HTTP JSON (http/json) only; sending that`);
  }
  for (const signal of ['LOGS', 'METRICS'] as const) {
    const other = exporters(env[`OTEL_${signal}_EXPORTER`]).filter((e) => e !== 'otlp' && e !== 'none');
    if (other.length > 0) warnings.push(`OTEL_${signal}_EXPORTER=${other.join(',')}: only otlp is supported; ignored`);
  }
  return {
    isLogsOn,
    isMetricsOn,
    metricIntervalMs: positiveMs(env.OTEL_METRIC_EXPORT_INTERVAL, 60_000),
    metricTimeoutMs: positiveMs(env.OTEL_METRIC_EXPORT_TIMEOUT, 30_000),
    logDelayMs: positiveMs(env.OTEL_BLRP_SCHEDULE_DELAY, 1_000),
    warnings,
  };
}
