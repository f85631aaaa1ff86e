// The watchdog's own telemetry as plain data: when OTEL_* turns it on (act/telemetry/telemetry-env.ts)
// and what each event becomes (core/telemetry.ts).
import { describe, expect, it } from 'vitest';
import { readTelemetryEnv } from '../../src/act/telemetry/telemetry-env.js';
import type { DispatchEvent } from '../../src/contracts/events.js';
import { eventAttributes, eventFigures, eventSeverity } from '../../src/core/telemetry.js';

const URL = 'http://collector:4318';

describe('readTelemetryEnv', () => {
  it.each<[string, NodeJS.ProcessEnv, { logs: boolean; metrics: boolean } | undefined]>([
    ['nothing set', {}, undefined],
    ['an endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: URL }, { logs: true, metrics: true }],
    ['a logs endpoint only', { OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${URL}/v1/logs` }, { logs: true, metrics: false }],
    ['metrics turned off', { OTEL_EXPORTER_OTLP_ENDPOINT: URL, OTEL_METRICS_EXPORTER: 'none' }, { logs: true, metrics: false }],
    ['both turned off', { OTEL_EXPORTER_OTLP_ENDPOINT: URL, OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' }, undefined],
    ['otlp named, default endpoint', { OTEL_LOGS_EXPORTER: 'otlp' }, { logs: true, metrics: false }],
    ['the SDK disabled', { OTEL_EXPORTER_OTLP_ENDPOINT: URL, OTEL_SDK_DISABLED: 'TRUE' }, undefined],
    ['an empty endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, undefined],
  ])('%s', (_, env, on) => {
    const t = readTelemetryEnv(env);
    expect(t && { logs: t.isLogsOn, metrics: t.isMetricsOn }).toEqual(on);
  });

  it('intervals from OTEL_*, with the spec defaults; what it cannot do is said', () => {
    expect(readTelemetryEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: URL })).toMatchObject({
      metricIntervalMs: 60_000,
      metricTimeoutMs: 30_000,
      logDelayMs: 1_000,
      warnings: [],
    });
    const t = readTelemetryEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: URL,
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
      OTEL_BLRP_SCHEDULE_DELAY: 'soon',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_METRICS_EXPORTER: 'otlp,prometheus',
    })!;
    expect(t).toMatchObject({ metricIntervalMs: 5000, logDelayMs: 1_000 });
    expect(t.warnings).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc: the watchdog exports OTLP/HTTP JSON (http/json) only; sending that',
      'OTEL_METRICS_EXPORTER=prometheus: only otlp is supported; ignored',
    ]);
  });
});

const env = { timestamp_utc: '2026-04-02T10:00:00.000Z', epic_id: 'E-1', run_id: 'r' };
const ids = { ticket_id: 'ENG-1', task_id: 't1', agent_id: 't1' };
const ev = (e: Record<string, unknown>) => ({ ...env, ...e }) as DispatchEvent;

describe('events as telemetry', () => {
  const stall = ev({
    event: 'stall_detected',
    ...ids,
    stall_reason: 'inactivity',
    idle_seconds: 125,
    effective_timeout_seconds: 120,
    bash_timeout_exemption: false,
    redispatch_attempt: 1,
    max_redispatches: 2,
    action_taken: 'redispatch',
    exemptions: ['rate_limit'],
  });

  it('a stall: a warning, a stall by reason, its detection latency', () => {
    expect(eventSeverity(stall)).toBe('warn');
    expect(eventFigures(stall)).toEqual({ stall: { stall_reason: 'inactivity' }, detectionLatencySeconds: 5 });
    expect(eventAttributes(stall)).toMatchObject({
      event: 'stall_detected',
      epic_id: 'E-1',
      idle_seconds: 125,
      bash_timeout_exemption: false,
      exemptions: ['rate_limit'],
    });
    expect(eventAttributes(stall)).not.toHaveProperty('timestamp_utc');
  });

  it('actions: started, done by their outcome event, failed; a stop before a redispatch and a tracker retry are not outcomes', () => {
    expect(eventFigures(ev({ event: 'action_started', ...ids, key: 'k', action: 'redispatch' }))).toEqual({
      action: { action: 'redispatch', outcome: 'started' },
    });
    expect(eventFigures(ev({ event: 'redispatch', ...ids, key: 'k', redispatch_attempt: 1, recovery_task_id: 't1-r1' }))).toEqual({
      action: { action: 'redispatch', outcome: 'done' },
    });
    expect(eventFigures(ev({ event: 'agent_killed', ...ids, key: 'k' }))).toEqual({ action: { action: 'cancel', outcome: 'done' } });
    expect(eventFigures(ev({ event: 'agent_killed', ...ids, key: 'k', step: 'stop_before_redispatch' }))).toEqual({});
    expect(eventFigures(ev({ event: 'escalated_to_blocked', ...ids, key: 'k', attempt_count: 3, friction_path: 'f', is_retry: true }))).toEqual({});
    const failed = ev({ event: 'action_failed', ...ids, key: 'k', action: 'cancel', error: 'EPERM', retryable: false });
    expect(eventFigures(failed)).toEqual({ action: { action: 'cancel', outcome: 'failed' } });
    expect(eventSeverity(failed)).toBe('error');
  });

  it('nested fields are JSON text; a quiet event is info', () => {
    const lost = ev({ event: 'state_rows_lost', vanished: ['t1'], fields_lost: [{ task_id: 't2', fields: ['status'] }], is_confirmed: true });
    expect(eventAttributes(lost)).toMatchObject({ vanished: ['t1'], fields_lost: '[{"task_id":"t2","fields":["status"]}]' });
    expect(eventSeverity(ev({ event: 'healthy', ...ids, idle_seconds: 1 }))).toBe('info');
  });
});
