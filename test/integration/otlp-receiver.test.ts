// The OTLP/HTTP receiver on 127.0.0.1, port 0: real requests Claude Code 2.1.197 sent
// (test/fixtures/otlp/), stored per session under the state dir; auth, limits and every refusal.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { TelemetryHostsSchema, TelemetryLineSchema } from '../../src/contracts/telemetry.js';
import { StatePaths } from '../../src/files/paths.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../src/receive/otlp-receiver.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const fixture = (name: string) => readFileSync(path.join(REPO_ROOT, 'test/fixtures/otlp', name));
const JSON_TYPE = { 'content-type': 'application/json' };
const PROTO_TYPE = { 'content-type': 'application/x-protobuf' };

let open: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(open.map((r) => r.close()));
  open = [];
});

async function receiver(o: { token?: string; maxRequestBytes?: number; maxRequestsPerSecond?: number; nowMs?: () => number } = {}) {
  const stateDir = tempDir();
  const paths = new StatePaths(stateDir);
  const r = await startOtlpReceiver({
    listen: { host: '127.0.0.1', port: 0, isLoopback: true },
    paths,
    token: o.token,
    maxRequestBytes: o.maxRequestBytes ?? 1 << 20,
    maxRequestsPerSecond: o.maxRequestsPerSecond ?? 1000,
    nowMs: o.nowMs ?? Date.now,
    hostsFlushMs: 10,
  });
  open.push(r);
  const post = (p: string, body: Uint8Array, headers: Record<string, string> = JSON_TYPE) => fetch(r.url + p, { method: 'POST', body, headers });
  return { r, paths, stateDir, post };
}

const sessionOf = (f: string) => /"session\.id","value":\{"stringValue":"([^"]+)"/.exec(fixture(f).toString())![1]!;

describe('the OTLP/HTTP receiver', () => {
  it("stores each session's events from JSON and protobuf requests, and when each host was heard", async () => {
    const { r, paths, post } = await receiver();
    for (const f of ['json-logs-1.json', 'json-logs-2.json', 'json-logs-3.json']) {
      const res = await post('/v1/logs', fixture(f));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.text()).toBe('{}');
    }
    const proto = await post('/v1/logs', fixture('protobuf-logs-1.bin'), PROTO_TYPE);
    expect(proto.status).toBe(200);
    expect(proto.headers.get('content-type')).toBe('application/x-protobuf');
    expect((await proto.arrayBuffer()).byteLength).toBe(0);
    expect((await post('/v1/metrics', fixture('protobuf-metrics-1.bin'), PROTO_TYPE)).status).toBe(200);
    const lines = readFileSync(paths.telemetryFile(sessionOf('json-logs-1.json')), 'utf8')
      .trim()
      .split('\n')
      .map((l) => TelemetryLineSchema.parse(JSON.parse(l)));
    expect(lines.map((l) => l.event)).toEqual(['user_prompt', 'tool_decision', 'api_request', 'tool_result', 'api_request', 'assistant_response']);
    expect(readdirSync(paths.telemetryDir()).filter((f) => f.endsWith('.ndjson'))).toHaveLength(2);
    await r.close();
    open = [];
    const hosts = TelemetryHostsSchema.parse(JSON.parse(readFileSync(paths.telemetryHosts(), 'utf8')));
    expect(hosts.hosts['agenthost-1']).toMatchObject({ requests: 5 });
    expect(r.stats()).toMatchObject({ requests: 5, events: 6 + 3, refused: {} });
  });

  it('takes gzip bodies, bounded once decompressed', async () => {
    const { post } = await receiver({ maxRequestBytes: 8 * 1024 });
    expect((await post('/v1/logs', zlib.gzipSync(fixture('json-logs-1.json')), { ...JSON_TYPE, 'content-encoding': 'gzip' })).status).toBe(200);
    const bomb = await post('/v1/logs', zlib.gzipSync(Buffer.alloc(64 * 1024, 32)), { ...JSON_TYPE, 'content-encoding': 'gzip' });
    expect(bomb.status).toBe(413);
    expect(((await bomb.json()) as { message: string }).message).toMatch(/larger than 8192 bytes \(otlp\.max_request_bytes\)/);
  });

  it('refuses a body over the limit before reading it, and the receiver keeps serving', async () => {
    const { post } = await receiver({ maxRequestBytes: 2048 });
    const res = await post('/v1/logs', fixture('json-logs-1.json'));
    expect(res.status).toBe(413);
    expect((await post('/v1/logs', fixture('json-logs-2.json'))).status).toBe(200);
  });

  it('asks for the bearer token when one is configured, and never says it', async () => {
    const { post, stateDir } = await receiver({ token: 's3cret-token' });
    const none = await post('/v1/logs', fixture('json-logs-1.json'));
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const text = ((await none.json()) as { message: string }).message;
    expect(text).toMatch(/OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <token>"/);
    expect(text).not.toContain('s3cret');
    expect((await post('/v1/logs', fixture('json-logs-1.json'), { ...JSON_TYPE, authorization: 'Bearer s3cret-tokeX' })).status).toBe(401);
    expect((await post('/v1/logs', fixture('json-logs-1.json'), { ...JSON_TYPE, authorization: 'Bearer s3cret-token' })).status).toBe(200);
    expect(existsSync(path.join(stateDir, 'telemetry'))).toBe(true);
  });

  it('bounds the request rate per peer with 429 and Retry-After', async () => {
    let now = 1_000_000;
    const { post } = await receiver({ maxRequestsPerSecond: 2, nowMs: () => now });
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await post('/v1/logs', fixture('json-logs-2.json'))).status);
    expect(codes).toEqual([200, 200, 200, 200, 429]);
    const refused = await post('/v1/logs', fixture('json-logs-2.json'));
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { message: string }).message).toMatch(
      /more than 2 requests a second from this machine \(127\.0\.0\.1; every loopback address counts as one\)/,
    );
    now += 1000;
    expect((await post('/v1/logs', fixture('json-logs-2.json'))).status).toBe(200);
  });

  it('says what is wrong with a request it cannot take', async () => {
    const { r, post } = await receiver();
    const cases: [Promise<Response>, number, RegExp][] = [
      [post('/v1/logs', fixture('json-logs-1.json'), { 'content-type': 'text/plain' }), 415, /Content-Type text\/plain is not accepted/],
      [post('/v1/logs', Buffer.from('{"resourceLogs": '), JSON_TYPE), 400, /the body is not JSON/],
      [post('/v1/logs', fixture('json-logs-1.json'), PROTO_TYPE), 400, /not a protobuf OTLP logs export request/],
      [post('/v1/traces', fixture('json-logs-1.json')), 404, /no such endpoint \/v1\/traces/],
      [fetch(r.url + '/v1/logs'), 405, /only POST/],
      [post('/v1/logs', fixture('json-logs-1.json'), { ...JSON_TYPE, 'content-encoding': 'br' }), 415, /Content-Encoding br/],
    ];
    for (const [res, status, message] of cases) {
      const got = await res;
      expect(got.status).toBe(status);
      expect(((await got.json()) as { message: string }).message).toMatch(message);
    }
  });

  it('refuses session ids that would leave the state dir (partial success), storing the rest', async () => {
    const { post, stateDir } = await receiver();
    const body = JSON.parse(fixture('json-logs-1.json').toString());
    const attrs = body.resourceLogs[0].scopeLogs[0].logRecords[0].attributes as { key: string; value: { stringValue?: string } }[];
    attrs.find((a) => a.key === 'session.id')!.value = { stringValue: '../../escape' };
    const res = await post('/v1/logs', Buffer.from(JSON.stringify(body)));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { partialSuccess: unknown }).partialSuccess).toMatchObject({
      rejectedLogRecords: 1,
      errorMessage: expect.stringMatching(/is not a session id/),
    });
    expect(existsSync(path.join(stateDir, '..', 'escape.ndjson'))).toBe(false);
    expect(readdirSync(path.join(stateDir, 'telemetry')).filter((f) => f.endsWith('.ndjson'))).toHaveLength(1);
  });
});
