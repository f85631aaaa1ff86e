// Remote time is evidence, never the judge (issue 36 item 2): an agent seen only through OTLP,
// whose host clock is off by −10 min, −10 s, +4 min, +1 h, or sits in 1970 or 2100, is judged on
// the receiver's clock. The real receiver stores what a sender posts; the real telemetry reader
// and the judge read it with an injected clock. A working agent is never stalled; a stalled one is
// flagged one window + 1 s after its last event arrived; a poisoned batch loses only its bad record.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { StatePaths } from '../../src/files/paths.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { TailReader } from '../../src/observe/read/tail-file.js';
import { createTelemetryReader } from '../../src/observe/read/telemetry.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../src/receive/otlp-receiver.js';
import { makeTask, T0 } from '../helpers/builders.js';
import { until } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const S = 1000;
const WINDOW_MS = DEFAULT_POLICY.baseTimeoutMs;
const HOST = 'remote-1';
const SESSION = 'aaaaaaaa-0000-4000-8000-00000000000a';

let open: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(open.map((r) => r.close()));
  open = [];
});

const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
type Ev = { name: string; attrs?: { key: string; value: unknown }[] };

/** An OTLP/JSON logs export of `events` of SESSION, stamped `senderMs` (event.timestamp and timeUnixNano). */
function logs(events: Ev[], senderMs: number, nanos?: string) {
  return {
    resourceLogs: [
      {
        resource: { attributes: [str('host.name', HOST), str('service.name', 'claude-code')] },
        scopeLogs: [
          {
            scope: { name: 'com.anthropic.claude_code.events' },
            logRecords: events.map((e) => ({
              timeUnixNano: nanos ?? String(BigInt(Math.trunc(senderMs)) * 1_000_000n),
              body: { stringValue: `claude_code.${e.name}` },
              attributes: [str('event.name', e.name), str('session.id', SESSION), str('event.timestamp', new Date(senderMs).toISOString()), ...(e.attrs ?? [])],
            })),
          },
        ],
      },
    ],
  };
}
const heartbeat = { resourceMetrics: [{ resource: { attributes: [str('host.name', HOST)] }, scopeMetrics: [] }] };

let calls = 0;
/** A Bash call opened and closed: progress, never a final answer. */
const work = (): Ev[] => {
  const id = `tu${++calls}`;
  return [
    {
      name: 'tool_decision',
      attrs: [
        str('tool_name', 'Bash'),
        str('tool_use_id', id),
        str('decision', 'accept'),
        str('tool_parameters', JSON.stringify({ command: `make step-${calls}` })),
      ],
    },
    { name: 'tool_result', attrs: [str('tool_name', 'Bash'), str('tool_use_id', id), str('success', 'true')] },
  ];
};

async function bed() {
  let now = T0;
  const paths = new StatePaths(tempDir('dw-clock-'));
  const r = await startOtlpReceiver({
    listen: { host: '127.0.0.1', port: 0, isLoopback: true },
    paths,
    maxRequestBytes: 1 << 20,
    maxRequestsPerSecond: 1000,
    nowMs: () => now,
    hostsFlushMs: 0,
  });
  open.push(r);
  const reader = createTelemetryReader(paths, new TailReader(), { isPersistent: false });
  const task = makeTask({ sessionId: SESSION, dispatchedAtMs: T0 });
  const hostHeard = () => {
    try {
      return (JSON.parse(readFileSync(paths.telemetryHosts(), 'utf8')) as { hosts: Record<string, { last_ms: number }> }).hosts[HOST]?.last_ms;
    } catch {
      return undefined;
    }
  };
  const post = async (signal: 'logs' | 'metrics', body: unknown) => {
    const res = await fetch(`${r.url}/v1/${signal}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const answer = (await res.json()) as { partialSuccess?: { rejectedLogRecords?: number; errorMessage?: string } };
    // hosts.json is written a moment after the answer: wait until it says this request was heard.
    const at = now;
    await until(() => (hostHeard() ?? -1) >= at, 10_000, 'hosts.json to record the request');
    return { status: res.status, answer };
  };
  return {
    post,
    at: (ms: number) => void (now = ms),
    judge: async () => {
      reader.beginCheck();
      const { part } = await reader.read(SESSION, now);
      return assess(task, mergeObservations([observeRow(task), ...(part ? [part] : [])]), DEFAULT_POLICY, now);
    },
  };
}

const SKEWS: [string, (receiverMs: number) => number][] = [
  ['10 min behind', (ms) => ms - 10 * 60 * S],
  ['10 s behind', (ms) => ms - 10 * S],
  ['4 min ahead', (ms) => ms + 4 * 60 * S],
  ['1 h ahead', (ms) => ms + 60 * 60 * S],
  ['in 1970', (ms) => Date.UTC(1970, 0, 2) + (ms - T0)],
  ['in 2100', (ms) => Date.UTC(2100, 0, 1) + (ms - T0)],
];

describe('a remote clock never decides a verdict', () => {
  it.each(SKEWS)(
    'sender clock %s: working is healthy throughout, silence is a stall by window + 1 s',
    async (_, sender) => {
      const b = await bed();
      // 10 minutes of work, a batch and a host heartbeat every 30 s, judged after each.
      let last = T0;
      for (let t = T0 + 5 * S; t <= T0 + 10 * 60 * S; t += 30 * S) {
        b.at(t);
        expect((await b.post('logs', logs(work(), sender(t)))).status).toBe(200);
        last = t;
        b.at(t + 15 * S);
        expect((await b.post('metrics', heartbeat)).status).toBe(200);
        b.at(t + 29 * S);
        const v = await b.judge();
        expect(v.kind, `${new Date(t).toISOString()}: ${v.reason}`).toBe('healthy');
      }
      // The agent stops; its host keeps its heartbeat.
      for (let t = last + 30 * S; t <= last + WINDOW_MS + 1 * S; t += 30 * S) {
        b.at(t);
        await b.post('metrics', heartbeat);
      }
      b.at(last + WINDOW_MS - 1 * S);
      expect((await b.judge()).kind).toBe('healthy');
      b.at(last + WINDOW_MS + 1 * S);
      const v = await b.judge();
      expect(v, v.reason).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
    },
    60_000,
  );

  it('a poisoned batch (one record stamped 1e30 ns) loses that record alone: the agent is seen working', async () => {
    const b = await bed();
    b.at(T0 + 60 * S);
    const good = logs([{ name: 'user_prompt' }, ...work()], T0 + 60 * S);
    const poison = logs([{ name: 'api_request' }], T0 + 60 * S, '1000000000000000000000000000000').resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!;
    good.resourceLogs[0]!.scopeLogs[0]!.logRecords.splice(1, 0, poison);
    const { status, answer } = await b.post('logs', good);
    expect(status).toBe(200);
    expect(answer.partialSuccess).toMatchObject({ rejectedLogRecords: 1, errorMessage: expect.stringMatching(/timeUnixNano/) });
    b.at(T0 + 90 * S);
    await b.post('metrics', heartbeat);
    b.at(T0 + 130 * S);
    const v = await b.judge();
    expect(v.kind, v.reason).toBe('healthy');
  });
});
