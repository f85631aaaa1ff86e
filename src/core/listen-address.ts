// `--otlp HOST:PORT` (and config otlp.listen) → where the OTLP receiver listens. Pure.
import { InputError } from '../contracts/errors.js';
import { DEFAULTS } from '../contracts/defaults.js';

export interface ListenAddress {
  host: string;
  port: number;
  /** Only this machine can reach it (127.0.0.0/8, ::1, localhost). */
  isLoopback: boolean;
}

/** Parse HOST:PORT ([::1]:4318 for IPv6; port 0: any free port); a bad value is an InputError naming `what`. */
export function parseListenAddress(value: string, what = '--otlp'): ListenAddress {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) {
    throw new InputError('bad_flag', `${what} ${JSON.stringify(value)} is not HOST:PORT.`, {
      hint: `Give the address the OTLP/HTTP receiver listens on, e.g. ${what} 127.0.0.1:4318 (OTLP's HTTP port), or [::1]:4318.`,
    });
  }
  const host = m[1] ?? m[2]!;
  const isLoopback = host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  return { host, port, isLoopback };
}

/** The receiver's settings: where, the token senders must present, the limits. */
export interface ReceiverSettings {
  listen: ListenAddress;
  token?: string;
  /** The variable the token came from (said in messages; the token never is). */
  tokenEnv: string;
  maxRequestBytes: number;
  maxRequestsPerSecond: number;
}

/**
 * --otlp (else config otlp.listen) with config and defaults → the receiver's settings; undefined
 * when neither asks for one. A receiver reachable beyond this machine without a token is refused.
 */
export function resolveReceiver(
  flag: string | undefined,
  config: { listen?: string; token_env?: string; max_request_bytes?: number; max_requests_per_second?: number } | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ReceiverSettings | undefined {
  const value = flag ?? config?.listen;
  if (value === undefined) return undefined;
  const listen = parseListenAddress(value, flag !== undefined ? '--otlp' : 'otlp.listen');
  const tokenEnv = config?.token_env ?? DEFAULTS.otlp.token_env;
  const token = env[tokenEnv] || undefined;
  if (!listen.isLoopback && token === undefined) {
    throw new InputError(
      'bad_flag',
      `the OTLP receiver would listen on ${value}, beyond this machine, with no bearer token: anyone who reaches the port could feed it evidence.`,
      {
        hint: `Set ${tokenEnv} to a secret (senders: OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <it>"), or listen on 127.0.0.1 behind a local Collector (docs/fleet.md).`,
      },
    );
  }
  return {
    listen,
    ...(token !== undefined ? { token } : {}),
    tokenEnv,
    maxRequestBytes: config?.max_request_bytes ?? DEFAULTS.otlp.max_request_bytes,
    maxRequestsPerSecond: config?.max_requests_per_second ?? DEFAULTS.otlp.max_requests_per_second,
  };
}
