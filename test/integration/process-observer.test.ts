// The process observer on real processes (issue 19 item 1): a stand-in agent holds a streamed
// response from a local "API" server; only bytes its API connection receives are growth, never
// its timers' reads nor other traffic. Needs Linux with /proc and iproute2's `ss`.
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createProcessObserver } from '../../src/observe/read/process-observer.js';
import { readProcFields } from '../../src/observe/read/process-sample.js';
import { makeTask, T0 } from '../helpers/builders.js';
import { spawnFixture, waitFor } from '../helpers/spawn-fixture.js';

const hasSs = (() => {
  try {
    execFileSync('ss', ['-V'], { stdio: 'ignore' });
    return process.platform === 'linux';
  } catch {
    return false;
  }
})();

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server whose one streamed response the test writes to. */
async function streamServer(): Promise<{ port: number; write: (s: string) => void }> {
  let res: http.ServerResponse | undefined;
  const server = http.createServer((_req, r) => {
    r.writeHead(200, { 'content-type': 'text/event-stream' });
    r.write('event: message_start\n\n');
    res = r;
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, write: (s) => res!.write(s) };
}

describe.skipIf(!hasSs)('process observer (Linux, ss)', () => {
  it('sees a slow stream grow, a frozen one stay flat, and ignores timers and other connections', async () => {
    const api = await streamServer();
    const other = await streamServer();
    const env = { ...process.env, ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.port}`, OTHER_URL: `http://127.0.0.1:${other.port}` };
    const agent = await spawnFixture('stream-reader.mjs', [], { env });
    let out = '';
    agent.child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    const observer = createProcessObserver();
    const task = makeTask({ pid: agent.pid });
    const look = async (nowMs: number) => {
      await observer.beginCheck!(nowMs);
      return (await observer.observe(task, nowMs))[0];
    };

    // The first look is a baseline; the process is alive.
    expect(await look(T0)).toEqual({ source: 'process', isProcessAlive: true, liveChildren: 0 });
    // Frozen: nothing arrives, while the fixture's timer keeps reading (/proc read bytes grow).
    const before = readProcFields(agent.pid)!.readBytes!;
    await waitFor('timer reads', () => (readProcFields(agent.pid)!.readBytes! > before ? true : undefined));
    expect((await look(T0 + 1000))?.outputGrewAtMs).toBeUndefined();
    // Other traffic (say an OpenTelemetry exporter) is not the API stream.
    other.write('x'.repeat(300));
    await waitFor('the other chunk', () => (out.includes('got other 3') ? true : undefined));
    expect((await look(T0 + 2000))?.outputGrewAtMs).toBeUndefined();
    // A slow stream: one event arrives, growth is dated at the look that saw it, and kept.
    api.write('event: content_block_delta\ndata: {"delta":{"type":"thinking_delta","thinking":"hmm "}}\n\n');
    await waitFor('the api chunk', () => (/got api \d{3}/.test(out) ? true : undefined));
    expect((await look(T0 + 3000))?.outputGrewAtMs).toBe(T0 + 3000);
    const unchanged = observer.observeUnchanged!(task, T0 + 3000);
    expect(unchanged?.[0]?.outputGrewAtMs).toBe(T0 + 3000);
    expect((await look(T0 + 9000))?.outputGrewAtMs).toBe(T0 + 3000);
    // Gone: no evidence from the process at all (the row's own pid check says it is gone).
    agent.child.kill('SIGKILL');
    await agent.exited;
    expect(await look(T0 + 10_000)).toBeUndefined();
  });

  it("a subagent row shares its session's process: not sampled", async () => {
    const observer = createProcessObserver();
    expect(await observer.observe(makeTask({ pid: process.pid, agentId: 'a0123456789abcdef', sessionId: 's1' }), T0)).toEqual([]);
  });
});
