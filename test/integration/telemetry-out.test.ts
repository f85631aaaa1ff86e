// The watchdog's own telemetry (docs/fleet.md "Telemetry out"), received by a small OTLP/HTTP
// JSON endpoint in the test: its events as logs, its figures as metrics (tasks by verdict,
// stalls, actions, requests pending, detection latency, check duration), configured by the
// standard OTEL_* variables alone, and nothing sent (the SDK never loaded) without them.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { exited, runCli, spawnCli, until } from '../helpers/cli.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';
const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();

type KeyValue = { key: string; value: Record<string, unknown> };
const valueOf = (v: Record<string, unknown>): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue;
const attrs = (list: KeyValue[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** An OTLP/HTTP JSON receiver: what arrived at /v1/logs and /v1/metrics. */
async function startCollector() {
  const posts: { path: string; body: any }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', body: JSON.parse(text) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const logs = () =>
    posts
      .filter((p) => p.path === '/v1/logs')
      .flatMap((p) =>
        p.body.resourceLogs.flatMap((rl: any) =>
          rl.scopeLogs.flatMap((sl: any) => sl.logRecords.map((r: any) => ({ ...r, resource: attrs(rl.resource.attributes), attrs: attrs(r.attributes) }))),
        ),
      );
  const metrics = () =>
    posts.filter((p) => p.path === '/v1/metrics').flatMap((p) => p.body.resourceMetrics.flatMap((rm: any) => rm.scopeMetrics.flatMap((sm: any) => sm.metrics)));
  /** The data points of the last export of metric `name`, with their attributes read. */
  const points = (name: string) => {
    const m = metrics()
      .filter((x: any) => x.name === name)
      .at(-1);
    const data = m?.gauge ?? m?.sum ?? m?.histogram;
    return (data?.dataPoints ?? []).map((d: any) => ({ ...d, attrs: attrs(d.attributes), value: d.asInt !== undefined ? Number(d.asInt) : d.asDouble }));
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, posts, logs, metrics, points };
}

/** t1 silent for 30 s (stalled, escalated at once: --max-redispatches 0), t2 healthy in a 10-minute Bash. */
function scene() {
  const dir = tempDir('dw-otel-');
  writeWave(dir, EPIC, ago(30), [
    { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: ago(30), last_activity_ts: ago(30) },
    { task_id: 't2', ticket_id: 'ENG-2', status: 'in_progress', last_activity_ts: ago(0), last_tool_name: 'Bash', last_tool_timeout_ms: 600_000 },
  ]);
  return { dir, args: ['--epic-id', EPIC, '--state-dir', dir, '--timeout', '1', '--max-redispatches', '0'] };
}

describe('telemetry out', () => {
  it('--once: its events as OTel logs and its figures as OTel metrics, flushed before it exits', async () => {
    const c = await startCollector();
    const s = scene();
    const r = await runCli([...s.args, '--once'], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: c.url, OTEL_SERVICE_NAME: 'wd-test', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci' },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('');

    const logs = c.logs();
    expect(logs.map((l: any) => l.eventName)).toEqual(
      expect.arrayContaining([
        'dispatch_watchdog.stall_detected',
        'dispatch_watchdog.action_started',
        'dispatch_watchdog.escalated_to_blocked',
        'dispatch_watchdog.healthy',
      ]),
    );
    const stall = logs.find((l: any) => l.eventName === 'dispatch_watchdog.stall_detected');
    expect(stall).toMatchObject({
      severityText: 'WARN',
      body: { stringValue: expect.stringMatching(/t1 \(ENG-1\) STALLED: no progress for \d+s \(window 1s\) -> escalate$/) },
    });
    expect(stall.attrs).toMatchObject({ epic_id: EPIC, task_id: 't1', ticket_id: 'ENG-1', stall_reason: 'inactivity', effective_timeout_seconds: 1 });
    expect(stall.resource).toMatchObject({ 'service.name': 'wd-test', 'deployment.environment': 'ci', 'service.version': expect.any(String) });

    const byVerdict = Object.fromEntries(c.points('dispatch_watchdog.tasks').map((p: any) => [p.attrs.verdict, p.value]));
    expect(byVerdict).toMatchObject({ stalled: 1, healthy: 1, waiting_human: 0 });
    expect(c.points('dispatch_watchdog.stalls').map((p: any) => [p.attrs, p.value])).toEqual([[{ epic_id: EPIC, stall_reason: 'inactivity' }, 1]]);
    expect(
      c
        .points('dispatch_watchdog.actions')
        .map((p: any) => [p.attrs.action, p.attrs.outcome, p.value])
        .sort(),
    ).toEqual([
      ['escalate', 'done', 1],
      ['escalate', 'started', 1],
    ]);
    expect(c.points('dispatch_watchdog.requests.pending').map((p: any) => p.value)).toEqual([0]);
    const [latency] = c.points('dispatch_watchdog.detection.latency');
    expect(Number(latency.count)).toBe(1);
    expect(latency.sum).toBeGreaterThanOrEqual(28); // silent 30 s against a 1 s window
    expect(c.points('dispatch_watchdog.check.duration').map((p: any) => Number(p.count))).toEqual([1]);
  });

  it('the loop exports metrics on its interval while it runs', async () => {
    const c = await startCollector();
    const s = scene();
    const child = spawnCli([...s.args, '--check-interval', '1'], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: c.url, OTEL_METRIC_EXPORT_INTERVAL: '300', OTEL_LOGS_EXPORTER: 'none' },
    });
    onTestFinished(() => void child.kill('SIGKILL'));
    // Two exports before any stop: the periodic reader, not the final flush.
    await until(() => c.points('dispatch_watchdog.check.duration').some((p: any) => Number(p.count) >= 2), 20_000, 'two checks in the exported figures');
    expect(c.logs()).toEqual([]);
    child.kill('SIGTERM');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  }, 40_000);

  it('off without OTEL_* (and with OTEL_SDK_DISABLED=true): nothing is sent', async () => {
    const c = await startCollector();
    const s = scene();
    await runCli([...s.args, '--once'], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: c.url, OTEL_SDK_DISABLED: 'true' } });
    await runCli([...s.args, '--once', '--epic-id', EPIC], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: '', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: '' },
    });
    expect(c.posts).toEqual([]);
  });
});
