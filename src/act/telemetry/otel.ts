// The watchdog's events as OTel logs and its figures as OTel metrics, through the official
// OpenTelemetry JS SDK and its OTLP/HTTP (JSON) exporters, which read the OTEL_EXPORTER_OTLP_*
// variables themselves (endpoint, headers, timeout). Loaded only by telemetry.ts, only when
// OTEL_* asks for it: the hook and an unconfigured watchdog never load the SDK.
import { diag, DiagLogLevel, ValueType, type Attributes } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { DispatchEvent } from '../../contracts/events.js';
import { VERDICT_KINDS, type VerdictKind } from '../../contracts/vocabulary.js';
import { renderEvent } from '../../core/format.js';
import { eventAttributes, eventFigures, eventSeverity, type Severity } from '../../core/telemetry.js';
import type { TelemetryEnv } from './telemetry-env.js';
import type { CheckFigures, TelemetrySink } from './sink.js';

const SEVERITY: Record<Severity, [SeverityNumber, string]> = {
  info: [SeverityNumber.INFO, 'INFO'],
  warn: [SeverityNumber.WARN, 'WARN'],
  error: [SeverityNumber.ERROR, 'ERROR'],
};

/** The SDK's own errors (an endpoint that refuses, a timeout): said once, without their details (headers may carry credentials). */
function quietDiag(warn: (line: string) => void): void {
  let isTold = false;
  const tell = () => {
    if (isTold) return;
    isTold = true;
    warn('dispatch-watchdog: telemetry export failed (the OTLP endpoint did not take it); still watching, later failures not shown\n');
  };
  diag.setLogger(
    { error: tell, warn: () => {}, info: () => {}, debug: () => {}, verbose: () => {} },
    { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true },
  );
}

/** Start the providers; every instrument is created here once. */
export function startOtel(t: TelemetryEnv, service: { version: string }, warn: (line: string) => void): TelemetrySink {
  quietDiag(warn);
  const resource = resourceFromAttributes({ 'service.name': 'dispatch-watchdog', 'service.version': service.version }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const logs = t.isLogsOn
    ? new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter(), scheduledDelayMillis: t.logDelayMs })] })
    : undefined;
  const metrics = t.isMetricsOn
    ? new MeterProvider({
        resource,
        readers: [
          new PeriodicExportingMetricReader({
            exporter: new OTLPMetricExporter(),
            exportIntervalMillis: t.metricIntervalMs,
            exportTimeoutMillis: Math.min(t.metricTimeoutMs, t.metricIntervalMs),
          }),
        ],
      })
    : undefined;
  const logger = logs?.getLogger('dispatch-watchdog', service.version);
  const meter = metrics?.getMeter('dispatch-watchdog', service.version);

  // Gauges read the last check of each epic.
  const lastCheck = new Map<string, CheckFigures>();
  const tasks = meter?.createObservableGauge('dispatch_watchdog.tasks', {
    description: 'Tasks of the last check, by verdict.',
    unit: '{task}',
    valueType: ValueType.INT,
  });
  tasks?.addCallback((r) => {
    for (const [epic, c] of lastCheck) {
      const counts = new Map<VerdictKind, number>(VERDICT_KINDS.map((k) => [k, 0]));
      for (const v of c.verdicts) counts.set(v, (counts.get(v) ?? 0) + 1);
      for (const [verdict, n] of counts) r.observe(n, { epic_id: epic, verdict });
    }
  });
  const pending = meter?.createObservableGauge('dispatch_watchdog.requests.pending', {
    description: 'Requests to the orchestrator not answered yet.',
    unit: '{request}',
    valueType: ValueType.INT,
  });
  pending?.addCallback((r) => {
    for (const [epic, c] of lastCheck) r.observe(c.pendingRequests, { epic_id: epic });
  });
  const stalls = meter?.createCounter('dispatch_watchdog.stalls', { description: 'Stalls detected.', unit: '{stall}', valueType: ValueType.INT });
  const actions = meter?.createCounter('dispatch_watchdog.actions', {
    description: 'Recovery actions started, done and failed.',
    unit: '{action}',
    valueType: ValueType.INT,
  });
  const latency = meter?.createHistogram('dispatch_watchdog.detection.latency', {
    description: 'How long past its stall window a stall was detected.',
    unit: 's',
  });
  const duration = meter?.createHistogram('dispatch_watchdog.check.duration', { description: 'Wall time of one check.', unit: 's' });

  return {
    onEvent(e: DispatchEvent) {
      const [severityNumber, severityText] = SEVERITY[eventSeverity(e)];
      logger?.emit({
        eventName: `dispatch_watchdog.${e.event}`,
        timestamp: new Date(e.timestamp_utc),
        severityNumber,
        severityText,
        body: renderEvent(e),
        attributes: eventAttributes(e) as Attributes,
      });
      const f = eventFigures(e);
      const epic = { epic_id: e.epic_id };
      if (f.stall) stalls?.add(1, { ...epic, ...f.stall });
      if (f.action) actions?.add(1, { ...epic, ...f.action });
      if (f.detectionLatencySeconds !== undefined) latency?.record(f.detectionLatencySeconds, epic);
    },
    onCheck(c: CheckFigures) {
      lastCheck.set(c.epicId, c);
      duration?.record(c.durationMs / 1000, { epic_id: c.epicId });
    },
    async shutdown() {
      // Flushes what is batched: the last check's figures and lines reach the collector.
      await Promise.allSettled([logs?.shutdown(), metrics?.shutdown()]);
    },
  };
}
