// The OTLP/HTTP receiver (docs/fleet.md): Claude Code's own OpenTelemetry logs, straight from the
// agents or through an OpenTelemetry Collector's otlphttp exporter. POST /v1/logs (JSON or
// protobuf, gzip or not) appends each session's events to telemetry/<session>.ndjson; /v1/metrics
// is answered and counted as traffic from its host; telemetry/hosts.json says when each host was
// last heard from. A bearer token when configured, a bounded body and a per-peer request rate;
// every refusal is an HTTP error that says why, and the receiver keeps running.
import { timingSafeEqual } from 'node:crypto';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { TelemetryHostsSchema, type TelemetryHosts } from '../contracts/telemetry.js';
import { appendLines, writeFileAtomic } from '../files/atomic-write.js';
import type { StatePaths } from '../files/paths.js';
import type { OtlpEncoding, OtlpSignal } from '../observe/parse/otlp-decode.js';
import type { ListenAddress, ReceiverSettings } from '../core/listen-address.js';
import { InputError } from '../contracts/errors.js';

export interface ReceiverOptions {
  listen: ListenAddress;
  paths: StatePaths;
  /** Senders must present `Authorization: Bearer <token>`; undefined: no token asked for. */
  token?: string;
  maxRequestBytes: number;
  maxRequestsPerSecond: number;
  nowMs: () => number;
  /** hosts.json is rewritten at most this often while traffic arrives, in ms. @defaultValue 1000 */
  hostsFlushMs?: number;
  /** A request that could not be stored (the disk refused): said once per distinct message. */
  onError?: (message: string) => void;
}

export interface ReceiverStats {
  requests: number;
  records: number;
  events: number;
  refused: Record<string, number>;
}

export interface OtlpReceiver {
  /** http://host:port (the port the OS gave for port 0). */
  url: string;
  port: number;
  stats(): ReceiverStats;
  /** Stop listening, finish the requests in flight and write hosts.json. */
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, OtlpEncoding> = { 'application/json': 'json', 'application/x-protobuf': 'protobuf', 'application/protobuf': 'protobuf' };
const ROUTES: Record<string, OtlpSignal> = { '/v1/logs': 'logs', '/v1/metrics': 'metrics' };

class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A token bucket per peer address: `rate` requests a second, bursts of twice as many. */
function rateLimiter(rate: number, nowMs: () => number) {
  const buckets = new Map<string, { tokens: number; atMs: number }>();
  return (peer: string): boolean => {
    const now = nowMs();
    const b = buckets.get(peer) ?? { tokens: rate * 2, atMs: now };
    b.tokens = Math.min(rate * 2, b.tokens + ((now - b.atMs) / 1000) * rate);
    b.atMs = now;
    if (buckets.size > 10_000) buckets.clear();
    buckets.set(peer, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  };
}

function isAuthorized(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** The body, at most `max` bytes once decompressed; a larger one is refused as it arrives. */
async function readBody(req: http.IncomingMessage, max: number): Promise<Buffer> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip') throw new HttpRefusal(415, `Content-Encoding ${encoding} is not accepted: send gzip or none`);
  const declared = Number(req.headers['content-length']);
  const tooLarge = () => new HttpRefusal(413, `the request body is larger than ${max} bytes (otlp.max_request_bytes): send smaller batches (OTEL_BLRP_MAX_EXPORT_BATCH_SIZE, or the Collector's batch processor send_batch_max_size)`);
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > max) throw tooLarge();
    chunks.push(c as Buffer);
  }
  const raw = Buffer.concat(chunks, size);
  if (encoding === 'identity') return raw;
  try {
    return zlib.gunzipSync(raw, { maxOutputLength: max });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || /larger than|maxOutputLength/i.test((e as Error).message)) throw tooLarge();
    throw new HttpRefusal(400, `the gzip body cannot be decompressed: ${(e as Error).message}`);
  }
}

/** Start listening; resolves once the port is bound (rejects with the OS's reason otherwise). */
export async function startOtlpReceiver(o: ReceiverOptions): Promise<OtlpReceiver> {
  // Loaded only when a receiver starts: protobufjs costs every other command ~0.1 s of start-up.
  const { decodeExport, encodeResponse, OtlpDecodeError } = await import('../observe/parse/otlp-decode.js');
  const stats: ReceiverStats = { requests: 0, records: 0, events: 0, refused: {} };
  const allow = rateLimiter(o.maxRequestsPerSecond, o.nowMs);
  const hosts = await loadHosts(o.paths);
  let hostsDirty = false;
  let hostsTimer: NodeJS.Timeout | undefined;
  let hostsWrite: Promise<void> = Promise.resolve();
  const said = new Set<string>();
  const fail = (m: string) => {
    if (said.has(m) || said.size > 100) return;
    said.add(m);
    o.onError?.(m);
  };
  const writeHosts = () => {
    hostsTimer = undefined;
    if (!hostsDirty) return hostsWrite;
    hostsDirty = false;
    hosts.updated_ms = o.nowMs();
    const text = JSON.stringify(hosts) + '\n';
    hostsWrite = hostsWrite.then(() => writeFileAtomic(o.paths.telemetryHosts(), text)).catch((e) => fail(`cannot write ${o.paths.telemetryHosts()}: ${(e as Error).message}`));
    return hostsWrite;
  };
  const heard = (counts: Map<string, number>, nowMs: number) => {
    for (const [host, n] of counts) {
      const h = (hosts.hosts[host] ??= { first_ms: nowMs, last_ms: nowMs, requests: 0, records: 0 });
      h.last_ms = Math.max(h.last_ms, nowMs);
      h.requests++;
      h.records += n;
    }
    hostsDirty = true;
    hostsTimer ??= setTimeout(writeHosts, o.hostsFlushMs ?? 1000);
  };

  async function handle(req: http.IncomingMessage): Promise<{ type: string; body: Uint8Array }> {
    const url = (req.url ?? '/').split('?')[0]!;
    const signal = ROUTES[url];
    if (!signal) throw new HttpRefusal(404, `no such endpoint ${url}: this receiver takes OTLP/HTTP POST /v1/logs (and answers /v1/metrics)`);
    if (req.method !== 'POST') throw new HttpRefusal(405, `${req.method} ${url}: only POST is accepted`, { allow: 'POST' });
    if (!isAuthorized(req.headers.authorization, o.token)) throw new HttpRefusal(401, 'missing or wrong bearer token: senders set OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <token>" (the Collector: headers.authorization on its otlphttp exporter)', { 'www-authenticate': 'Bearer' });
    const peer = req.socket.remoteAddress ?? 'unknown';
    if (!allow(peer)) throw new HttpRefusal(429, `more than ${o.maxRequestsPerSecond} requests a second from ${peer} (otlp.max_requests_per_second): retry after 1 s, or batch more records per request`, { 'retry-after': '1' });
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const encoding = CONTENT_TYPES[type];
    if (!encoding) throw new HttpRefusal(415, `Content-Type ${type || '(none)'} is not accepted: send application/json or application/x-protobuf (OTEL_EXPORTER_OTLP_PROTOCOL=http/json or http/protobuf)`);
    const body = await readBody(req, o.maxRequestBytes);
    const rxMs = o.nowMs();
    let decoded;
    try {
      decoded = decodeExport(body, signal, encoding, peer, rxMs);
    } catch (e) {
      if (e instanceof OtlpDecodeError) throw new HttpRefusal(400, e.message);
      throw e;
    }
    const bySession = new Map<string, string[]>();
    for (const { sessionId, line } of decoded.events) {
      const lines = bySession.get(sessionId) ?? [];
      lines.push(JSON.stringify(line));
      bySession.set(sessionId, lines);
    }
    try {
      // No fsync: telemetry is evidence, not a side effect; a line lost in a crash is a gap, never an action.
      await Promise.all([...bySession].map(([sessionId, lines]) => appendLines(o.paths.telemetryFile(sessionId), lines, { sync: false })));
    } catch (e) {
      fail(`cannot store telemetry under ${o.paths.telemetryDir()}: ${(e as Error).message}`);
      throw new HttpRefusal(503, `the receiver cannot store telemetry right now: ${(e as Error).message}`, { 'retry-after': '5' });
    }
    heard(decoded.hosts, rxMs);
    stats.records += decoded.records;
    stats.events += decoded.events.length;
    return { type: encoding === 'json' ? 'application/json' : 'application/x-protobuf', body: encodeResponse(signal, encoding, decoded.rejected, decoded.rejectedReason) };
  }

  const server = http.createServer((req, res) => {
    stats.requests++;
    handle(req).then(
      (r) => {
        res.writeHead(200, { 'content-type': r.type, 'content-length': r.body.length });
        res.end(r.body);
      },
      (e: unknown) => {
        const refusal = e instanceof HttpRefusal ? e : new HttpRefusal(500, `internal error: ${(e as Error)?.message ?? String(e)}`);
        stats.refused[refusal.status] = (stats.refused[refusal.status] ?? 0) + 1;
        const body = JSON.stringify({ code: refusal.status, message: refusal.message }) + '\n';
        // A body not read to its end (too large, refused before it was read) closes the connection.
        res.writeHead(refusal.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...refusal.headers, ...(req.complete ? {} : { connection: 'close' }) });
        res.end(body);
      },
    );
  });
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.listen.port, o.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = o.listen.host.includes(':') ? `[${o.listen.host}]` : o.listen.host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    stats: () => ({ ...stats, refused: { ...stats.refused } }),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      if (hostsTimer) clearTimeout(hostsTimer);
      await writeHosts();
    },
  };
}

/** hosts.json as the last receiver left it (a restart keeps when each host was last heard); a bad file starts empty. */
async function loadHosts(paths: StatePaths): Promise<TelemetryHosts> {
  try {
    const parsed = TelemetryHostsSchema.safeParse(JSON.parse(await fs.readFile(paths.telemetryHosts(), 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    /* none yet */
  }
  return { version: 1, updated_ms: 0, hosts: {} };
}

/** Start the receiver the options ask for, saying where on stderr; a port that cannot be bound is an InputError. */
export async function startConfiguredReceiver(s: ReceiverSettings, paths: StatePaths, nowMs: () => number, err: (text: string) => void): Promise<OtlpReceiver> {
  let r: OtlpReceiver;
  try {
    r = await startOtlpReceiver({ listen: s.listen, paths, token: s.token, maxRequestBytes: s.maxRequestBytes, maxRequestsPerSecond: s.maxRequestsPerSecond, nowMs, onError: (m) => err(`dispatch-watchdog: OTLP receiver: ${m}\n`) });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError('bad_flag', `the OTLP receiver cannot listen on ${s.listen.host}:${s.listen.port}: ${code === 'EADDRINUSE' ? 'another process already listens there' : (e as Error).message}.`, {
      hint: 'Pick another port with --otlp HOST:PORT (a Collector in front can keep 4318 for itself), or stop the other listener.',
    });
  }
  err(`dispatch-watchdog: OTLP/HTTP receiver on ${r.url} (POST /v1/logs, JSON or protobuf${s.token ? `; bearer token from ${s.tokenEnv}` : ''})\n`);
  return r;
}
