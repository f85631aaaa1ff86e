// An OTLP/HTTP export request (logs or metrics; JSON or protobuf) → the Claude Code events it
// carries, per session, and the traffic it proves per host (docs/fleet.md). Pure. Protobuf is
// decoded by protobufjs from the OpenTelemetry project's own definitions (otlp-proto.ts, generated
// from proto/); the OTLP JSON encoding has the same field names, so one walk reads both.
import protobuf from 'protobufjs/light.js';
import { isSafeId } from '../../contracts/ids.js';
import { TELEMETRY_HOST_MAX, type TelemetryLine } from '../../contracts/telemetry.js';
import { TELEMETRY_EVENTS, type TelemetryEventName } from '../../contracts/vocabulary.js';
import { OTLP_DESCRIPTOR } from './otlp-proto.js';
import { redactSecrets } from '../../present/safe-text.js';

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
  /** Claude Code events refused (no session.id, or one that cannot be a file name), with the first reason. */
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

type Rec = Record<string, unknown>;
const own = (o: unknown, k: string): boolean => o !== null && typeof o === 'object' && Object.hasOwn(o, k);
/** The objects of a list (a null or a scalar where an object belongs is skipped, never thrown on). */
const arr = (v: unknown): Rec[] => (Array.isArray(v) ? (v.filter((x) => x !== null && typeof x === 'object') as Rec[]) : []);

/** An AnyValue as a plain scalar (64-bit ints arrive as strings in JSON and as Long in protobuf). */
function scalar(v: unknown): string | number | boolean | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const o = v as Rec;
  if (own(o, 'stringValue')) return String(o.stringValue);
  if (own(o, 'intValue')) return Number(String(o.intValue));
  if (own(o, 'doubleValue')) return Number(o.doubleValue);
  if (own(o, 'boolValue')) return Boolean(o.boolValue);
  return undefined;
}

/** Attributes read from one list (resource or record); the rest are ignored. @defaultValue 128 */
const ATTRIBUTES_MAX = 128;
/** Longest attribute key read. @defaultValue 128 */
const KEY_MAX = 128;

/** key → scalar of a KeyValue list (the first ATTRIBUTES_MAX; a key longer than KEY_MAX is none of ours). */
function attributes(list: unknown): Map<string, string | number | boolean> {
  const m = new Map<string, string | number | boolean>();
  const kvs = arr(list);
  for (let i = 0; i < kvs.length && i < ATTRIBUTES_MAX; i++) {
    const kv = kvs[i]!;
    const v = scalar(kv.value);
    if (typeof kv.key === 'string' && kv.key.length <= KEY_MAX && v !== undefined) m.set(kv.key, v);
  }
  return m;
}

const text = (v: string | number | boolean | undefined): string | undefined => (v === undefined || v === '' ? undefined : String(v));

/** Longest identifier kept (prompt.id, tool_use_id, tool_name, decision, status_code). @defaultValue 128 */
const ID_MAX = 128;

/** A short identifier as stored: control characters out, at most `max` characters (a longer one is cut and marked). */
export function shortId(raw: string | undefined, max = ID_MAX): string | undefined {
  if (raw === undefined) return undefined;
  const s = raw.length > max * 4 ? raw.slice(0, max * 4) : raw;
  const clean = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '');
  if (clean === '') return undefined;
  return clean.length > max || s.length < raw.length ? `${clean.slice(0, max - 1)}…` : clean;
}

/** The sending host named by resource or record attributes (at most TELEMETRY_HOST_MAX characters). */
function hostOf(a: Map<string, string | number | boolean>): string | undefined {
  return shortId(text(a.get('host.name')) ?? text(a.get('host.id')), TELEMETRY_HOST_MAX);
}

/** Largest epoch ms a Date can hold. */
const DATE_MAX_MS = 8.64e15;

/** A record this decoder refuses alone (partial success), with why. */
class RecordRefusal extends Error {}

/** Epoch ms of a unix-nanos field (a decimal string or a Long); undefined when 0 or absent; a RecordRefusal when it is no time. */
function nanosToMs(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const s = String(v);
  if (s === '0' || s === '') return undefined;
  if (!/^\d+$/.test(s)) throw new RecordRefusal(`${field} ${JSON.stringify(s.slice(0, 40))} is not a count of nanoseconds`);
  if (s.length <= 6) return undefined;
  const ms = Number(s.slice(0, -6));
  if (!(ms <= DATE_MAX_MS))
    throw new RecordRefusal(`${field} ${s.length > 40 ? `${s.slice(0, 20)}…(${s.length} digits)` : s} is not a time (past year 275760)`);
  return ms > 0 ? ms : undefined;
}

/** How long a stored text field may be. @defaultValue 500 */
const FIELD_MAX = 500;
/** A stored text field: secrets redacted (a Bash command may carry a token), at most FIELD_MAX. */
const cut = (raw: string | undefined): string | undefined => {
  if (raw === undefined) return undefined;
  const s = redactSecrets(raw);
  return s.length > FIELD_MAX ? `${s.slice(0, FIELD_MAX - 1)}…` : s;
};

const KEPT = new Set<string>(TELEMETRY_EVENTS);

/** The Claude Code event a log record is (event.name, else a `claude_code.<name>` body). */
function eventName(a: Map<string, string | number | boolean>, body: unknown): TelemetryEventName | undefined {
  const fromBody = text(scalar(body));
  const name = text(a.get('event.name')) ?? (fromBody?.startsWith('claude_code.') ? fromBody.slice('claude_code.'.length) : undefined);
  return name !== undefined && KEPT.has(name) ? (name as TelemetryEventName) : undefined;
}

/** Bash facts from tool_parameters (a JSON string with OTEL_LOG_TOOL_DETAILS=1). */
function toolFacts(toolName: string | undefined, params: string | undefined): Pick<TelemetryLine, 'input' | 'command' | 'timeout_ms' | 'background'> {
  if (params === undefined) return {};
  const out: Pick<TelemetryLine, 'input' | 'command' | 'timeout_ms' | 'background'> = { input: cut(params) };
  if (toolName !== 'Bash') return out;
  try {
    const p = JSON.parse(params) as Rec;
    const command = typeof p.full_command === 'string' ? p.full_command : typeof p.command === 'string' ? p.command : undefined;
    if (command !== undefined) out.command = cut(command);
    if (typeof p.timeout === 'number' && p.timeout > 0 && Number.isFinite(p.timeout)) out.timeout_ms = p.timeout;
    if (p.run_in_background === true) out.background = true;
  } catch {
    /* not JSON: kept as text */
  }
  return out;
}

const bool = (v: string | number | boolean | undefined): boolean | undefined => (v === undefined ? undefined : v === true || v === 'true');

/** One log record as a stored line; undefined when it is no Claude Code event we keep. */
function lineOf(lr: Rec, a: Map<string, string | number | boolean>, host: string, rxMs: number): TelemetryLine | undefined {
  const event = eventName(a, lr.body);
  if (!event) return undefined;
  // The sender's time is evidence only (the judge measures silence on the receiver's clock, `rx`);
  // a field that is no time at all refuses this record alone.
  const stamp = text(a.get('event.timestamp'));
  const stampMs = stamp === undefined || stamp.length > 40 ? NaN : Date.parse(stamp);
  const recordMs = nanosToMs(lr.timeUnixNano, 'timeUnixNano');
  const observedMs = nanosToMs(lr.observedTimeUnixNano, 'observedTimeUnixNano');
  const atMs = Number.isFinite(stampMs) ? stampMs : (recordMs ?? observedMs ?? rxMs);
  const toolName = shortId(text(a.get('tool_name')));
  const seq = a.get('event.sequence');
  const attempt = a.get('attempt');
  const promptId = shortId(text(a.get('prompt.id')));
  const toolUseId = shortId(text(a.get('tool_use_id')));
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
  if (event === 'tool_decision') {
    const decision = shortId(text(a.get('decision')));
    if (decision) line.decision = decision;
    Object.assign(line, toolFacts(toolName, text(a.get('tool_parameters'))));
  } else if (event === 'tool_result') {
    const success = bool(a.get('success'));
    if (success !== undefined) line.success = success;
    if (text(a.get('error'))) line.error = cut(text(a.get('error')));
  } else if (event === 'api_error') {
    if (text(a.get('error'))) line.error = cut(text(a.get('error')));
    const status = shortId(text(a.get('status_code')));
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

/** Decode one export request received from `peer` at `rxMs`. */
export function decodeExport(body: Uint8Array, signal: OtlpSignal, encoding: OtlpEncoding, peer: string, rxMs: number): DecodedExport {
  const req = parseBody(body, signal, encoding);
  const out: DecodedExport = { events: [], hosts: new Map(), records: 0, rejected: 0 };
  const count = (host: string, n: number) => out.hosts.set(host, (out.hosts.get(host) ?? 0) + n);
  if (signal === 'metrics') {
    // Metrics are traffic only: a host heard from (the partition rule), never progress of a session.
    for (const rm of arr(req.resourceMetrics)) count(hostOf(attributes((rm.resource as Rec | undefined)?.attributes)) ?? firstPointHost(rm) ?? peer, 1);
    return out;
  }
  for (const rl of arr(req.resourceLogs)) {
    const resourceHost = hostOf(attributes((rl.resource as Rec | undefined)?.attributes));
    for (const sl of arr(rl.scopeLogs)) {
      for (const lr of arr(sl.logRecords)) {
        out.records++;
        const a = attributes(lr.attributes);
        const host = hostOf(a) ?? resourceHost ?? peer;
        count(host, 1);
        // One bad record is refused alone (OTLP partial success); the rest of its batch is kept.
        let line: TelemetryLine | undefined;
        try {
          line = lineOf(lr, a, host, rxMs);
        } catch (e) {
          out.rejected++;
          out.rejectedReason ??= `a log record was refused: ${e instanceof RecordRefusal ? e.message : (e as Error)?.message}`;
          continue;
        }
        if (!line) continue;
        const sessionId = text(a.get('session.id'));
        if (sessionId === undefined || !isSafeId(sessionId)) {
          out.rejected++;
          out.rejectedReason ??=
            sessionId === undefined
              ? `a claude_code.${line.event} record has no session.id attribute`
              : `session.id ${JSON.stringify(sessionId.slice(0, 60))} is not a session id (1-128 letters, digits, ".", "_", "@" or "-")`;
          continue;
        }
        out.events.push({ sessionId, line });
      }
    }
  }
  return out;
}
