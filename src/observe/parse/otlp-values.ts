// The values of an OTLP request as the decoder stores them (otlp-decode.ts): attribute lists as
// scalars, identifiers and texts shortened and redacted, unix-nanos as epoch ms. Pure.
import { TELEMETRY_HOST_MAX } from '../../contracts/telemetry.js';
import { redactSecrets } from '../../present/safe-text.js';

export type Rec = Record<string, unknown>;
export const own = (o: unknown, k: string): boolean => o !== null && typeof o === 'object' && Object.hasOwn(o, k);
/** The objects of a list (a null or a scalar where an object belongs is skipped, never thrown on). */
export const arr = (v: unknown): Rec[] => (Array.isArray(v) ? (v.filter((x) => x !== null && typeof x === 'object') as Rec[]) : []);

/** An AnyValue as a plain scalar (64-bit ints arrive as strings in JSON and as Long in protobuf). */
export function scalar(v: unknown): string | number | boolean | undefined {
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
export function attributes(list: unknown): Map<string, string | number | boolean> {
  const m = new Map<string, string | number | boolean>();
  const kvs = arr(list);
  for (let i = 0; i < kvs.length && i < ATTRIBUTES_MAX; i++) {
    const kv = kvs[i]!;
    const v = scalar(kv.value);
    if (typeof kv.key === 'string' && kv.key.length <= KEY_MAX && v !== undefined) m.set(kv.key, v);
  }
  return m;
}

export const text = (v: string | number | boolean | undefined): string | undefined => (v === undefined || v === '' ? undefined : String(v));

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
export function hostOf(a: Map<string, string | number | boolean>): string | undefined {
  return shortId(text(a.get('host.name')) ?? text(a.get('host.id')), TELEMETRY_HOST_MAX);
}

/** Largest epoch ms a Date can hold. */
const DATE_MAX_MS = 8.64e15;

/** A record this decoder refuses alone (partial success), with why. */
export class RecordRefusal extends Error {}

/** Epoch ms of a unix-nanos field (a decimal string or a Long); undefined when 0 or absent; a RecordRefusal when it is no time. */
export function nanosToMs(v: unknown, field: string): number | undefined {
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
export const cut = (raw: string | undefined): string | undefined => {
  if (raw === undefined) return undefined;
  const s = redactSecrets(raw);
  return s.length > FIELD_MAX ? `${s.slice(0, FIELD_MAX - 1)}…` : s;
};
