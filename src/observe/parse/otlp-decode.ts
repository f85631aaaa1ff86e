// An OTLP/HTTP export request (logs or metrics; JSON or protobuf) → the agents' events it carries,
// in the watchdog's vocabulary (each CLI's dialect: contracts/telemetry-dialects.ts), per session,
// and the traffic it proves per host (docs/fleet.md). Pure. Protobuf is
// decoded by protobufjs from the OpenTelemetry project's own definitions (otlp-proto.ts, generated
// from proto/); the OTLP JSON encoding has the same field names, so one walk reads both.
import protobuf from 'protobufjs/light.js';
import { isSafeId } from '../../contracts/ids.js';
import type { TelemetryLine } from '../../contracts/telemetry.js';
import type { TelemetryEventName } from '../../contracts/vocabulary.js';
import { ALL_TELEMETRY_DIALECTS, type TelemetryDialect } from '../../contracts/telemetry-dialects.js';
import { OTLP_DESCRIPTOR } from './otlp-proto.js';
import { arr, attributes, cut, hostOf, nanosToMs, RecordRefusal, scalar, shortId, text, type Rec } from './otlp-values.js';

export { shortId };

export type OtlpSignal = 'logs' | 'metrics';
export type OtlpEncoding = 'json' | 'protobuf';

/** What one request carried. */
export interface DecodedExport {
  /** The events kept, in the order received, each with the session it belongs to. */
  events: { sessionId: string; line: TelemetryLine }[];
  /** Records (log records, or metric data points' resources) per sending host: all of them, kept or not. */
  hosts: Map<string, number>;
  /** Log records in the request. */
  records: number;
  /** Agent events refused (no session attribute, or one that cannot be a file name), with the first reason. */
  rejected: number;
  rejectedReason?: string;
}

/** A body that is not an OTLP export request of that encoding; the message says why (the receiver answers 400). */
export class OtlpDecodeError extends Error {}

let types: { logs: protobuf.Type; metrics: protobuf.Type; logsResponse: protobuf.Type; metricsResponse: protobuf.Type } | undefined;
function protoTypes() {
  if (!types) {
    const root = protobuf.Root.fromJSON(OTLP_DESCRIPTOR as protobuf.INamespace);
    types = {
      logs: root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'),
      metrics: root.lookupType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest'),
      logsResponse: root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse'),
      metricsResponse: root.lookupType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse'),
    };
  }
  return types;
}

type Attrs = Map<string, string | number | boolean>;

/** A record recognised as one CLI's event: its dialect, its name as the CLI spells it, what it is. */
interface Recognised {
  dialect: TelemetryDialect;
  name: string;
  event: TelemetryEventName;
}

/** The agent event a log record is (by `event.name`, else a prefixed body), in the first dialect that knows it. */
function recognise(a: Attrs, body: unknown, dialects: readonly TelemetryDialect[]): Recognised | undefined {
  const attr = text(a.get('event.name'));
  const fromBody = text(scalar(body));
  for (const dialect of dialects) {
    let bare: string | undefined;
    if (dialect.prefixedIn === 'body') bare = attr ?? (fromBody?.startsWith(dialect.prefix) ? fromBody.slice(dialect.prefix.length) : undefined);
    else bare = attr?.startsWith(dialect.prefix) ? attr.slice(dialect.prefix.length) : undefined;
    if (bare === undefined || !Object.hasOwn(dialect.events, bare)) continue;
    const meaning = dialect.events[bare]!;
    const event = typeof meaning === 'function' ? meaning((k) => a.get(k)) : meaning;
    if (event) return { dialect, name: `${dialect.prefix}${bare}`, event };
  }
  return undefined;
}

/** Shell facts from the tool's parameters (a JSON string, with OTEL_LOG_TOOL_DETAILS=1 for Claude Code). */
function toolFacts(
  dialect: TelemetryDialect,
  toolName: string | undefined,
  params: string | undefined,
): Pick<TelemetryLine, 'input' | 'command' | 'timeout_ms' | 'background'> {
  if (params === undefined) return {};
  const out: Pick<TelemetryLine, 'input' | 'command' | 'timeout_ms' | 'background'> = { input: cut(params) };
  const shell = dialect.shell;
  if (!shell || toolName !== shell.tool) return out;
  try {
    const p = JSON.parse(params) as Rec;
    const command = shell.command.map((k) => p[k]).find((v) => typeof v === 'string');
    if (typeof command === 'string') out.command = cut(command);
    const timeout = shell.timeout === undefined ? undefined : p[shell.timeout];
    if (typeof timeout === 'number' && timeout > 0 && Number.isFinite(timeout)) out.timeout_ms = timeout;
    if (shell.background !== undefined && p[shell.background] === true) out.background = true;
  } catch {
    /* not JSON: kept as text */
  }
  return out;
}

const bool = (v: string | number | boolean | undefined): boolean | undefined => (v === undefined ? undefined : v === true || v === 'true');

/** One log record as a stored line; undefined when it is no agent event we keep. */
function lineOf(lr: Rec, a: Attrs, host: string, rxMs: number, seen: Recognised): TelemetryLine {
  const { dialect, event } = seen;
  const k = dialect.keys;
  const get = (key: string | undefined) => (key === undefined ? undefined : a.get(key));
  // The sender's time is evidence only (the judge measures silence on the receiver's clock, `rx`);
  // a field that is no time at all refuses this record alone.
  const stamp = text(a.get('event.timestamp'));
  const stampMs = stamp === undefined || stamp.length > 40 ? NaN : Date.parse(stamp);
  const recordMs = nanosToMs(lr.timeUnixNano, 'timeUnixNano');
  const observedMs = nanosToMs(lr.observedTimeUnixNano, 'observedTimeUnixNano');
  const atMs = Number.isFinite(stampMs) ? stampMs : (recordMs ?? observedMs ?? rxMs);
  const toolName = shortId(text(get(k.toolName)));
  const seq = get(k.sequence);
  const attempt = get(k.attempt);
  const promptId = shortId(text(get(k.promptId)));
  const toolUseId = shortId(text(get(k.toolUseId)));
  const line: TelemetryLine = {
    ts: new Date(atMs).toISOString(),
    rx: rxMs,
    event,
    host,
    ...(typeof seq === 'number' && Number.isFinite(seq) ? { seq } : {}),
    ...(promptId ? { prompt_id: promptId } : {}),
    ...(toolName ? { tool_name: toolName } : {}),
    ...(toolUseId ? { tool_use_id: toolUseId } : {}),
  };
  if (dialect.keepsName && seen.name !== event) line.name = seen.name;
  const kind = shortId(text(get(k.kind)));
  if (kind) line.kind = kind;
  if (event === 'tool_decision') {
    const decision = shortId(text(get(k.decision)));
    if (decision) line.decision = decision;
    Object.assign(line, toolFacts(dialect, toolName, text(get(k.toolParameters))));
  } else if (event === 'tool_result') {
    const success = bool(get(k.success));
    if (success !== undefined) line.success = success;
    if (text(get(k.error))) line.error = cut(text(get(k.error)));
  } else if (event === 'api_error') {
    if (text(get(k.error))) line.error = cut(text(get(k.error)));
    const status = shortId(text(get(k.status)));
    if (status) line.status_code = status;
    if ((typeof attempt === 'number' && Number.isFinite(attempt)) || (typeof attempt === 'string' && /^\d{1,9}$/.test(attempt))) line.attempt = Number(attempt);
  }
  return line;
}

/** The host.name of a resource's first data point, for senders that put it there and not on the resource. */
function firstPointHost(rm: Rec): string | undefined {
  for (const sm of arr(rm.scopeMetrics)) {
    for (const m of arr(sm.metrics)) {
      for (const kind of ['sum', 'gauge', 'histogram', 'exponentialHistogram', 'summary']) {
        const point = arr((m[kind] as Rec | undefined)?.dataPoints)[0];
        if (point) return hostOf(attributes(point.attributes));
      }
    }
  }
  return undefined;
}

/** The body of a successful answer: OTLP's Export*ServiceResponse, with partial success when records were refused. */
export function encodeResponse(signal: OtlpSignal, encoding: OtlpEncoding, rejected: number, message?: string): Uint8Array {
  const partial =
    rejected > 0 ? { partialSuccess: { [signal === 'logs' ? 'rejectedLogRecords' : 'rejectedDataPoints']: rejected, errorMessage: message ?? '' } } : {};
  if (encoding === 'json') return Buffer.from(JSON.stringify(partial));
  const t = protoTypes()[signal === 'logs' ? 'logsResponse' : 'metricsResponse'];
  return t.encode(t.fromObject(partial)).finish();
}

/** Parse the body of one request; throws OtlpDecodeError for a body that is not one. */
function parseBody(body: Uint8Array, signal: OtlpSignal, encoding: OtlpEncoding): Rec {
  if (encoding === 'json') {
    let v: unknown;
    try {
      v = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
    } catch (e) {
      throw new OtlpDecodeError(`the body is not JSON: ${(e as Error).message}`);
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v))
      throw new OtlpDecodeError(
        `the body is not an OTLP ${signal} export request (expected a JSON object with "${signal === 'logs' ? 'resourceLogs' : 'resourceMetrics'}")`,
      );
    return v as Rec;
  }
  try {
    return protoTypes()[signal].decode(body) as unknown as Rec;
  } catch (e) {
    throw new OtlpDecodeError(`the body is not a protobuf OTLP ${signal} export request: ${(e as Error).message}`);
  }
}

/** Decode one export request received from `peer` at `rxMs`, keeping the events `dialects` know (every CLI's by default). */
export function decodeExport(
  body: Uint8Array,
  signal: OtlpSignal,
  encoding: OtlpEncoding,
  peer: string,
  rxMs: number,
  dialects: readonly TelemetryDialect[] = ALL_TELEMETRY_DIALECTS,
): DecodedExport {
  const req = parseBody(body, signal, encoding);
  const out: DecodedExport = { events: [], hosts: new Map(), records: 0, rejected: 0 };
  const count = (host: string, n: number) => out.hosts.set(host, (out.hosts.get(host) ?? 0) + n);
  if (signal === 'metrics') {
    // Metrics are traffic only: a host heard from (the partition rule), never progress of a session.
    for (const rm of arr(req.resourceMetrics)) count(hostOf(attributes((rm.resource as Rec | undefined)?.attributes)) ?? firstPointHost(rm) ?? peer, 1);
    return out;
  }
  /** Where each session's newest kept event is in `out.events`. */
  const lastOf = new Map<string, number>();
  for (const rl of arr(req.resourceLogs)) {
    const resourceHost = hostOf(attributes((rl.resource as Rec | undefined)?.attributes));
    for (const sl of arr(rl.scopeLogs)) {
      for (const lr of arr(sl.logRecords)) {
        out.records++;
        const a = attributes(lr.attributes);
        const host = hostOf(a) ?? resourceHost ?? peer;
        count(host, 1);
        // One bad record is refused alone (OTLP partial success); the rest of its batch is kept.
        const seen = recognise(a, lr.body, dialects);
        if (!seen) continue;
        let line: TelemetryLine;
        try {
          line = lineOf(lr, a, host, rxMs, seen);
        } catch (e) {
          out.rejected++;
          out.rejectedReason ??= `a log record was refused: ${e instanceof RecordRefusal ? e.message : (e as Error)?.message}`;
          continue;
        }
        const key = seen.dialect.sessionKey;
        const sessionId = text(a.get(key));
        if (sessionId === undefined || !isSafeId(sessionId)) {
          out.rejected++;
          out.rejectedReason ??=
            sessionId === undefined
              ? `a ${seen.name} record has no ${key} attribute`
              : `${key} ${JSON.stringify(sessionId.slice(0, 60))} is not a session id (1-128 letters, digits, ".", "_", "@" or "-")`;
          continue;
        }
        // A run of stream events of one session in one request is one line (they share the receiver's
        // time; Codex logs each SSE delta): the last of the run stands for it.
        const prev = lastOf.get(sessionId);
        if (prev !== undefined && line.event === 'model_stream' && out.events[prev]!.line.event === 'model_stream') out.events[prev] = { sessionId, line };
        else lastOf.set(sessionId, out.events.push({ sessionId, line }) - 1);
      }
    }
  }
  return out;
}
