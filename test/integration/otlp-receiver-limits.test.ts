// The OTLP receiver under hostile input (issue 36 item 1): it cannot take the process down or grow
// it without bound. Every field it keeps is bounded in size and count, hosts.json stays small, an
// error in its timer is said and survived, connections and bytes in flight are capped (503 with
// Retry-After), the rate limit counts every loopback address as one client, and a real `serve`
// survives the host-name flood that grew hosts.json to 294 MB and killed it.
import { readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { StatePaths } from '../../src/files/paths.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceiverOptions } from '../../src/receive/otlp-receiver.js';
import { exited, spawnCli, until } from '../helpers/cli.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const JSON_TYPE = { 'content-type': 'application/json' };
let open: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(open.map((r) => r.close()));
  open = [];
});

async function receiver(o: Partial<ReceiverOptions> = {}) {
  const paths = new StatePaths(tempDir('dw-otlp-limits-'));
  const r = await startOtlpReceiver({
    listen: { host: '127.0.0.1', port: 0, isLoopback: true },
    paths,
    maxRequestBytes: 1 << 20,
    maxRequestsPerSecond: 1000,
    nowMs: Date.now,
    hostsFlushMs: 10,
    ...o,
  });
  open.push(r);
  return { r, paths };
}

const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
/** One logs request: a record per host name, each a tool_decision of session `session`. */
function logsFrom(hosts: string[], session = 's-1', extra: { key: string; value: unknown }[] = []) {
  return JSON.stringify({
    resourceLogs: hosts.map((h, i) => ({
      resource: { attributes: [str('host.name', h)] },
      scopeLogs: [
        {
          logRecords: [
            {
              timeUnixNano: String(Date.now() * 1e6),
              attributes: [
                str('event.name', 'tool_decision'),
                str('session.id', session),
                str('tool_name', 'Bash'),
                str('decision', 'accept'),
                ...(i === 0 ? extra : []),
              ],
            },
          ],
        },
      ],
    })),
  });
}
const post = (url: string, body: string, headers: Record<string, string> = JSON_TYPE) => fetch(`${url}/v1/logs`, { method: 'POST', body, headers });
const readHosts = (paths: StatePaths) => JSON.parse(readFileSync(paths.telemetryHosts(), 'utf8')) as { hosts: Record<string, { last_ms: number }> };

/** A request from `localAddress` (another loopback address), answered with its status. */
function postFrom(url: string, localAddress: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/v1/logs`,
      { method: 'POST', localAddress, headers: { ...JSON_TYPE, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A raw request that declares `length` bytes and sends only its headers: it holds its connection and its share of bytes in flight. */
function hold(port: number, length: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write(`POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`);
      resolve(s);
    });
    s.on('error', reject);
    onTestFinished(() => void s.destroy());
  });
}

describe('the OTLP receiver keeps nothing unbounded', () => {
  it('host names, ids and attributes are cut; hosts.json keeps at most 1,000 hosts and stays small', async () => {
    const { r, paths } = await receiver({ maxRequestBytes: 4 << 20 });
    const long = (i: number, n: number) => `${i}-`.padEnd(n, 'h');
    // 1,200 distinct 8 KB host names; 100 KB of tool_use_id and prompt.id.
    for (let b = 0; b < 12; b++) {
      const hosts = Array.from({ length: 100 }, (_, i) => long(b * 100 + i, 8 * 1024));
      const res = await post(r.url, logsFrom(hosts, 's-1', [str('tool_use_id', 'u'.repeat(100_000)), str('prompt.id', `p\u001b]52;c;x\u0007`.repeat(5_000))]));
      expect(res.status).toBe(200);
    }
    await r.close();
    open = [];
    const file = paths.telemetryHosts();
    expect(statSync(file).size).toBeLessThan(1024 * 1024);
    const names = Object.keys(readHosts(paths).hosts);
    expect(names.length).toBeLessThanOrEqual(1000);
    expect(Math.max(...names.map((n) => n.length))).toBeLessThanOrEqual(255);
    // The newest hosts are the ones kept.
    expect(names.some((n) => n.startsWith('1199-'))).toBe(true);
    const lines = readFileSync(paths.telemetryFile('s-1'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1200);
    for (const l of lines.slice(0, 3)) {
      expect(l.length).toBeLessThan(1024);
      expect(l).not.toMatch(/\\u001b|\\u0007/);
    }
  }, 60_000);

  it('a host named __proto__ or constructor is a host, not the prototype of every object', async () => {
    const { r, paths } = await receiver();
    expect((await post(r.url, logsFrom(['__proto__', 'constructor', 'hasOwnProperty']))).status).toBe(200);
    await r.close();
    open = [];
    expect(({} as Record<string, unknown>).requests).toBeUndefined();
    expect(({} as Record<string, unknown>).last_ms).toBeUndefined();
    const hosts = readHosts(paths).hosts;
    expect(Object.hasOwn(hosts, 'constructor') && hosts.constructor).toMatchObject({ requests: 1, records: 1 });
  });

  it('an error in the hosts.json timer is said, and the receiver goes on', async () => {
    let boom = false;
    const errors: string[] = [];
    const { r, paths } = await receiver({
      hostsFlushMs: 50,
      nowMs: () => {
        if (boom) {
          boom = false;
          throw new RangeError('Invalid string length');
        }
        return Date.now();
      },
      onError: (m) => errors.push(m),
    });
    expect((await post(r.url, logsFrom(['h1']))).status).toBe(200);
    boom = true; // the next clock read is the timer's
    await until(() => errors.length > 0, 10_000, 'the timer error to be said');
    expect(errors[0]).toMatch(/cannot write .*hosts\.json: Invalid string length/);
    expect((await post(r.url, logsFrom(['h2']))).status).toBe(200);
    await until(
      () => {
        try {
          return Object.hasOwn(readHosts(paths).hosts, 'h2');
        } catch {
          return false;
        }
      },
      10_000,
      'hosts.json written by the next flush',
    );
  });

  it('caps connections and bytes in flight: 503 with Retry-After, and serves again once they end', async () => {
    const { r } = await receiver({ maxRequestBytes: 64 * 1024, maxBytesInFlight: 256 * 1024, maxConnections: 8 });
    // Four requests that declared 64 KB each and send nothing more: 256 KB held.
    const held = await Promise.all(Array.from({ length: 4 }, () => hold(r.port, 64 * 1024)));
    await until(() => r.stats().requests >= 4, 10_000, 'the held requests to arrive');
    const refused = await post(r.url, logsFrom(['h1']).padEnd(60 * 1024, ' '));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(((await refused.json()) as { message: string }).message).toMatch(/bytes in flight/);
    // Four more idle connections reach the cap of 8: the next connection is answered 503 and closed.
    const idle = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<net.Socket>((res) => {
            const s = net.connect(r.port, '127.0.0.1', () => res(s));
            onTestFinished(() => void s.destroy());
          }),
      ),
    );
    await until(() => r.stats().connections >= 8, 10_000, 'eight connections open');
    const over = await post(r.url, logsFrom(['h1'])).catch((e: Error) => e);
    expect(over instanceof Response ? over.status : over.message).toBe(503);
    expect((over as Response).headers.get('retry-after')).toBeTruthy();
    for (const s of [...held, ...idle]) s.destroy();
    await until(() => r.stats().connections === 0, 10_000, 'the connections to close');
    expect((await post(r.url, logsFrom(['h1']))).status).toBe(200);
  });

  it('counts every loopback address as one client for the rate limit', async () => {
    let now = 1_000_000;
    const { r } = await receiver({ maxRequestsPerSecond: 2, nowMs: () => now });
    const body = logsFrom(['h1']);
    const codes: number[] = [];
    for (const from of ['127.0.0.1', '127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4', '127.1.2.3']) codes.push(await postFrom(r.url, from, body));
    expect(codes).toEqual([200, 200, 200, 200, 429, 429]);
    now += 1000;
    expect(await postFrom(r.url, '127.0.0.9', body)).toBe(200);
  });
});

describe('serve under a host-name flood', { timeout: 120_000 }, () => {
  it("an error thrown in the receiver's hosts.json timer is said, and serve goes on", async () => {
    const stateDir = tempDir('dw-otlp-fault-');
    writeWave(stateDir, 'E-1', new Date().toISOString(), [
      { task_id: 'a1', ticket_id: 'P-a1', status: 'in_progress', last_activity_ts: new Date().toISOString() },
    ]);
    // TEST-ONLY fault (sys/crash-point.ts): the first hosts.json flush throws, as JSON.stringify's RangeError did on main.
    const serve = spawnCli(['serve', '--state-dir', stateDir, '--timeout', '3600', '--check-interval', '1', '--action', 'report', '--otlp', '127.0.0.1:0'], {
      env: { DISPATCH_WATCHDOG_TEST_CRASH: 'throw:hosts_flush' },
    });
    onTestFinished(() => void serve.kill('SIGKILL'));
    const port = Number((await until(() => /OTLP\/HTTP receiver on http:\/\/127\.0\.0\.1:(\d+)/.exec(serve.output()) ?? undefined, 30_000, 'the receiver'))[1]);
    const url = `http://127.0.0.1:${port}`;
    expect((await post(url, logsFrom(['first']))).status).toBe(200);
    await until(
      () => /OTLP receiver: cannot write .*hosts\.json: test fault at hosts_flush/.test(serve.output()),
      30_000,
      `the fault to be said (${serve.output()})`,
    );
    expect((await post(url, logsFrom(['second']))).status).toBe(200);
    const paths = new StatePaths(stateDir);
    await until(
      () => {
        try {
          const hosts = readHosts(paths).hosts;
          return Object.hasOwn(hosts, 'first') && Object.hasOwn(hosts, 'second');
        } catch {
          return false;
        }
      },
      30_000,
      'hosts.json written by the next flush',
    );
    expect(serve.exitCode).toBeNull();
    serve.kill('SIGTERM');
    expect(await exited(serve)).toEqual({ code: 0, signal: null });
  });

  it('stays up, serving, with a small hosts.json, and stops cleanly', async () => {
    const stateDir = tempDir('dw-otlp-flood-');
    writeWave(stateDir, 'E-1', new Date().toISOString(), [
      { task_id: 'a1', ticket_id: 'P-a1', status: 'in_progress', last_activity_ts: new Date().toISOString() },
    ]);
    const serve = spawnCli(['serve', '--state-dir', stateDir, '--timeout', '3600', '--check-interval', '1', '--action', 'report', '--otlp', '127.0.0.1:0']);
    onTestFinished(() => void serve.kill('SIGKILL'));
    const port = Number((await until(() => /OTLP\/HTTP receiver on http:\/\/127\.0\.0\.1:(\d+)/.exec(serve.output()) ?? undefined, 30_000, 'the receiver'))[1]);
    const url = `http://127.0.0.1:${port}`;
    // 40 requests, each with a distinct 1 MB host.name (main kept every one: 40 MB of hosts.json, and on to a RangeError).
    for (let i = 0; i < 40; i++) {
      const res = await post(url, logsFrom([`${i}-`.padEnd(1024 * 1024, 'x')]));
      expect([200, 429]).toContain(res.status);
      if (res.status === 429) i--;
    }
    const paths = new StatePaths(stateDir);
    await until(
      () => {
        try {
          return readHosts(paths) && statSync(paths.telemetryHosts()).mtimeMs > 0 && Object.keys(readHosts(paths).hosts).some((h) => h.startsWith('39-'));
        } catch {
          return false;
        }
      },
      30_000,
      'hosts.json to hold the last flood host',
    );
    expect(statSync(paths.telemetryHosts()).size).toBeLessThan(64 * 1024);
    expect(serve.exitCode).toBeNull();
    expect((await post(url, logsFrom(['after-the-flood']))).status).toBe(200);
    serve.kill('SIGTERM');
    expect(await exited(serve)).toEqual({ code: 0, signal: null });
  });
});
