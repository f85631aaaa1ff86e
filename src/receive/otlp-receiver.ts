import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { appendLines } from '../files/atomic-write.js';
import type { StatePaths } from '../files/paths.js';
import type { ListenAddress, ReceiverSettings } from '../core/listen-address.js';
import { InputError } from '../contracts/errors.js';
import { crashPoint } from '../sys/crash-point.js';
import { HostsBook } from './hosts-book.js';
import { clientOf, InFlightBudget, knownSessions, rateLimiter } from './limits.js';
import { CONTENT_TYPES, HttpRefusal, isAuthorized, readBody, ROUTES } from './otlp-http.js';

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
  /** Open connections at most; the next is answered 503 and closed. @defaultValue 256 */
  maxConnections?: number;
  /** Request body bytes held at once across all requests; a request past it is answered 503. @defaultValue 16 × maxRequestBytes */
  maxBytesInFlight?: number;
  /** Sessions (telemetry/<session>.ndjson files) at most; a new one past it is refused (partial success). @defaultValue 10000 */
  maxSessions?: number;
}

/** @defaultValue see ReceiverOptions */
const DEFAULT_MAX_CONNECTIONS = 256;
const DEFAULT_MAX_SESSIONS = 10_000;

export interface ReceiverStats {
  requests: number;
  /** Connections open now. */
  connections: number;
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

/** Start listening; resolves once the port is bound (rejects with the OS's reason otherwise). */
export async function startOtlpReceiver(o: ReceiverOptions): Promise<OtlpReceiver> {
  // Loaded only when a receiver starts: protobufjs costs every other command ~0.1 s of start-up.
  const { decodeExport, encodeResponse, OtlpDecodeError } = await import('../observe/parse/otlp-decode.js');
  const stats: ReceiverStats = { requests: 0, connections: 0, records: 0, events: 0, refused: {} };
  const allow = rateLimiter(o.maxRequestsPerSecond, o.nowMs);
  const budget = new InFlightBudget(o.maxBytesInFlight ?? 16 * o.maxRequestBytes);
  const maxConnections = o.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const hosts = await HostsBook.load(o.paths);
  const sessions = await knownSessions(o.paths, o.maxSessions ?? DEFAULT_MAX_SESSIONS);
  let hostsDirty = false;
  let hostsTimer: NodeJS.Timeout | undefined;
  let hostsWrite: Promise<void> = Promise.resolve();
  const said = new Set<string>();
  const fail = (m: string) => {
    if (said.has(m) || said.size > 100) return;
    said.add(m);
    o.onError?.(m);
  };
  const cannotWrite = (e: unknown) => fail(`cannot write ${o.paths.telemetryHosts()}: ${(e as Error)?.message ?? String(e)}`);
  // A timer's callback: nothing it throws may escape (an uncaught error would end `serve` and every epic it watches).
  const writeHosts = (): Promise<void> => {
    try {
      hostsTimer = undefined;
      if (!hostsDirty) return hostsWrite;
      hostsDirty = false;
      crashPoint('throw', 'hosts_flush');
      hosts.updatedMs = o.nowMs();
      hostsWrite = hostsWrite.then(() => hosts.write(o.paths.telemetryHosts())).catch(cannotWrite);
    } catch (e) {
      hostsDirty = true; // written by the next flush
      cannotWrite(e);
    }
    return hostsWrite;
  };
  const heard = (counts: Map<string, number>, nowMs: number) => {
    for (const [host, n] of counts) hosts.heard(host, n, nowMs);
    hostsDirty = true;
    hostsTimer ??= setTimeout(writeHosts, o.hostsFlushMs ?? 1000);
  };

  async function handle(req: http.IncomingMessage): Promise<{ type: string; body: Uint8Array }> {
    const url = (req.url ?? '/').split('?')[0]!;
    const signal = ROUTES[url];
    if (!signal) throw new HttpRefusal(404, `no such endpoint ${url}: this receiver takes OTLP/HTTP POST /v1/logs (and answers /v1/metrics)`);
    if (req.method !== 'POST') throw new HttpRefusal(405, `${req.method} ${url}: only POST is accepted`, { allow: 'POST' });
    if (!isAuthorized(req.headers.authorization, o.token))
      throw new HttpRefusal(
        401,
        'missing or wrong bearer token: senders set OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <token>" (the Collector: headers.authorization on its otlphttp exporter)',
        { 'www-authenticate': 'Bearer' },
      );
    const peer = req.socket.remoteAddress ?? 'unknown';
    const client = clientOf(peer);
    if (!allow(client))
      throw new HttpRefusal(
        429,
        `more than ${o.maxRequestsPerSecond} requests a second from ${client === 'loopback' ? `this machine (${peer}; every loopback address counts as one)` : client} (otlp.max_requests_per_second): retry after 1 s, or batch more records per request`,
        { 'retry-after': '1' },
      );
    const type = String(req.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    const encoding = CONTENT_TYPES[type];
    if (!encoding)
      throw new HttpRefusal(
        415,
        `Content-Type ${type || '(none)'} is not accepted: send application/json or application/x-protobuf (OTEL_EXPORTER_OTLP_PROTOCOL=http/json or http/protobuf)`,
      );
    const held = { bytes: 0 };
    let body: Buffer;
    try {
      body = await readBody(req, o.maxRequestBytes, budget, held);
    } finally {
      budget.give(held.bytes);
    }
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
      let lines = bySession.get(sessionId);
      if (!lines) {
        if (!sessions.admit(sessionId)) {
          decoded.rejected++;
          decoded.rejectedReason ??= `the receiver keeps at most ${sessions.max} sessions under ${o.paths.telemetryDir()} and this one is new: prune old ones (dispatch-watchdog prune)`;
          continue;
        }
        bySession.set(sessionId, (lines = []));
      }
      lines.push(JSON.stringify(line));
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
    return {
      type: encoding === 'json' ? 'application/json' : 'application/x-protobuf',
      body: encodeResponse(signal, encoding, decoded.rejected, decoded.rejectedReason),
    };
  }

  const server = http.createServer((req, res) => {
    // Already answered 503 by the connection cap.
    if ((req.socket as { refusedBusy?: boolean }).refusedBusy) return void req.socket.destroy();
    stats.requests++;
    handle(req)
      .then(
        (r) => {
          res.writeHead(200, { 'content-type': r.type, 'content-length': r.body.length });
          res.end(r.body);
        },
        (e: unknown) => {
          const refusal = e instanceof HttpRefusal ? e : new HttpRefusal(500, `internal error: ${(e as Error)?.message ?? String(e)}`);
          stats.refused[refusal.status] = (stats.refused[refusal.status] ?? 0) + 1;
          const body = JSON.stringify({ code: refusal.status, message: refusal.message }) + '\n';
          // A body not read to its end (too large, refused before it was read) closes the connection.
          res.writeHead(refusal.status, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...refusal.headers,
            ...(req.complete ? {} : { connection: 'close' }),
          });
          res.end(body);
        },
      )
      .catch(() => res.destroy()); // an answer that cannot be written: that connection ends, never the process
  });
  // Past maxConnections a connection is answered 503 at once and closed: no parser, no body, no buffer.
  const busyBody = JSON.stringify({ code: 503, message: `the receiver has ${maxConnections} connections open already: retry after 1 s` }) + '\n';
  const busyReply = `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(busyBody)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${busyBody}`;
  server.on('connection', (socket) => {
    stats.connections++;
    socket.once('close', () => stats.connections--);
    if (stats.connections <= maxConnections) return;
    stats.refused[503] = (stats.refused[503] ?? 0) + 1;
    socket.end(busyReply);
    socket.setTimeout(5_000, () => socket.destroy());
    (socket as { refusedBusy?: boolean }).refusedBusy = true;
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
  // After the bind, a server error (EMFILE on accept under a connection flood) is said, never thrown into `serve`.
  server.on('error', (e) => fail(`the listener: ${(e as Error).message}`));
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

/** Start the receiver the options ask for, saying where on stderr; a port that cannot be bound is an InputError. */
export async function startConfiguredReceiver(s: ReceiverSettings, paths: StatePaths, nowMs: () => number, err: (text: string) => void): Promise<OtlpReceiver> {
  let r: OtlpReceiver;
  try {
    r = await startOtlpReceiver({
      listen: s.listen,
      paths,
      token: s.token,
      maxRequestBytes: s.maxRequestBytes,
      maxRequestsPerSecond: s.maxRequestsPerSecond,
      nowMs,
      onError: (m) => err(`dispatch-watchdog: OTLP receiver: ${m}\n`),
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(
      'bad_flag',
      `the OTLP receiver cannot listen on ${s.listen.host}:${s.listen.port}: ${code === 'EADDRINUSE' ? 'another process already listens there' : (e as Error).message}.`,
      {
        hint: 'Pick another port with --otlp HOST:PORT (a Collector in front can keep 4318 for itself), or stop the other listener.',
      },
    );
  }
  err(`dispatch-watchdog: OTLP/HTTP receiver on ${r.url} (POST /v1/logs, JSON or protobuf${s.token ? `; bearer token from ${s.tokenEnv}` : ''})\n`);
  return r;
}
