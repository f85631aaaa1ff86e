// The OTLP/HTTP receiver's request handling pieces: the routes and content types it accepts, the
// bearer-token check, and a bounded body read (a refusal is an HttpRefusal with its status). Split
// out of receive/otlp-receiver.ts, which runs the server.
import { timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import zlib from 'node:zlib';
import type { OtlpEncoding, OtlpSignal } from '../observe/parse/otlp-decode.js';
import type { InFlightBudget } from './limits.js';

export const CONTENT_TYPES: Record<string, OtlpEncoding> = {
  'application/json': 'json',
  'application/x-protobuf': 'protobuf',
  'application/protobuf': 'protobuf',
};
export const ROUTES: Record<string, OtlpSignal> = { '/v1/logs': 'logs', '/v1/metrics': 'metrics' };

export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function isAuthorized(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/**
 * The body, at most `max` bytes once decompressed; a larger one is refused as it arrives. Its bytes
 * are taken from `budget` as declared or as they arrive (a request that would pass it: 503), and
 * given back by the caller: `held.bytes`.
 */
export async function readBody(req: http.IncomingMessage, max: number, budget: InFlightBudget, held: { bytes: number }): Promise<Buffer> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip') throw new HttpRefusal(415, `Content-Encoding ${encoding} is not accepted: send gzip or none`);
  const declared = Number(req.headers['content-length']);
  const tooLarge = () =>
    new HttpRefusal(
      413,
      `the request body is larger than ${max} bytes (otlp.max_request_bytes): send smaller batches (OTEL_BLRP_MAX_EXPORT_BATCH_SIZE, or the Collector's batch processor send_batch_max_size)`,
    );
  const busy = () =>
    new HttpRefusal(503, `the receiver holds ${budget.max} bytes in flight already (other requests still arriving): retry after 1 s`, { 'retry-after': '1' });
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  const take = (n: number) => {
    if (!budget.take(n)) throw busy();
    held.bytes += n;
  };
  if (Number.isFinite(declared) && declared > 0) take(declared);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > max) throw tooLarge();
    if (size > held.bytes) take(size - held.bytes);
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
