// Webhooks bounded (issue 36 item 3), through the real CLI and a hostile local receiver: an
// answer whose body never ends is read to a few KB and the exchange ends within timeout_ms (the
// loop still exits at the wave's end); a redirect is refused, never followed nor retried; a
// notice whose retries a SIGTERM interrupts is kept, and the next start sends it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { exited, runCli, spawnCli, until } from '../helpers/cli.js';
import { readEvents, writeWave, type RowSpec } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js';

const EPIC = 'E-1';
const KEY = `${EPIC}:notify:escalation:${EPIC}:t1:escalate`;
const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();

/** t1 silent for 30 s, escalated at its first stall, with a webhook from $WEBHOOK_URL. */
function scene(hook: WebhookServer, notifications: Record<string, unknown>, rows: RowSpec[] = []) {
  const dir = tempDir('dw-notify-bounded-');
  writeFileSync(path.join(dir, 'watchdog.config.yaml'), stringify({ notifications: { url_env: 'WEBHOOK_URL', format: 'json', ...notifications } }));
  writeWave(dir, EPIC, ago(30), [{ task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: ago(30), last_activity_ts: ago(30) }, ...rows]);
  const env = { WEBHOOK_URL: hook.url };
  const args = ['--epic-id', EPIC, '--state-dir', dir, '--timeout', '1', '--max-redispatches', '0'];
  return {
    dir,
    once: () => runCli([...args, '--once'], { env }),
    loop() {
      const child = spawnCli([...args, '--check-interval', '1', '--json'], { env });
      onTestFinished(() => void child.kill('SIGKILL'));
      return child;
    },
    events: (name?: string) => readEvents(dir).filter((e) => !name || e.event === name),
    marker: () => {
      const f = path.join(dir, 'epics', EPIC, 'notify', `${KEY.replaceAll(':', '__')}.json`);
      return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as { status: string; attempts: number; error?: string }) : undefined;
    },
  };
}

describe('webhooks bounded', () => {
  it("a 200 whose body never ends: read to a few KB, the notice sent, the loop exits at the wave's end", async () => {
    await using hook = await startWebhookServer(() => ({ status: 200, body: 'endless' }));
    const s = scene(hook, { timeout_ms: 3000, retries: 0 });
    const child = s.loop();
    expect(await exited(child), child.output()).toMatchObject({ signal: null });
    expect(hook.requests).toHaveLength(1);
    expect(s.events('notify_sent')).toEqual([expect.objectContaining({ key: KEY, status: 200, attempts: 1 })]);
    // The watchdog stopped reading: what the receiver got out is its socket buffers, not gigabytes.
    await until(() => hook.streamed.open === 0, 10_000, 'the endless answer to be cut off');
    expect(hook.streamed.bytes).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);

  it('a 200 whose body trickles forever: the exchange ends within timeout_ms', async () => {
    await using hook = await startWebhookServer(() => ({ status: 200, body: 'trickle' }));
    const s = scene(hook, { timeout_ms: 1500, retries: 0 });
    const started = Date.now();
    const r = await s.once();
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(s.events('notify_sent')).toEqual([expect.objectContaining({ key: KEY, status: 200, attempts: 1 })]);
    await until(() => hook.streamed.open === 0, 10_000, 'the trickling answer to be cut off');
    // A generous bound for a loaded machine: the POST itself was cut at 1.5 s, never left running.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it('a redirect is refused: not followed, not retried, said without the URL', async () => {
    await using hook = await startWebhookServer((req) => (req.path === '/elsewhere' ? { status: 200 } : { status: 302, headers: { location: '/elsewhere' } }));
    const s = scene(hook, { retries: 2 });
    await s.once();
    expect(hook.requests.map((r) => r.path)).toEqual(['/services/T000/B000/XOXB-s3cr3t-token']);
    expect(s.events('notify_failed')).toEqual([
      expect.objectContaining({ key: KEY, attempts: 1, error: expect.stringMatching(/HTTP 302: a redirect, not followed/) }),
    ]);
    expect(JSON.stringify(s.events())).not.toContain(hook.token);
    expect(s.marker()).toMatchObject({ status: 'failed' });
  }, 30_000);

  it('SIGTERM while a notice waits to be retried keeps it: the next start sends it', async () => {
    await using hook = await startWebhookServer(() => ({ status: 503, headers: { 'retry-after': '30' } }));
    // t2 runs a 10-minute Bash: the wave goes on after t1's escalation, so the loop goes on.
    const s = scene(hook, { retries: 3 }, [
      { task_id: 't2', ticket_id: 'ENG-2', status: 'in_progress', last_activity_ts: ago(0), last_tool_name: 'Bash', last_tool_timeout_ms: 600_000 },
    ]);
    const child = s.loop();
    await until(() => hook.requests.length === 1 && s.marker()?.status === 'retrying', 20_000, 'the first POST refused and its retry waiting');
    child.kill('SIGTERM');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(s.marker()).toMatchObject({ status: 'retrying', attempts: 1 });
    expect(s.events('notify_failed')).toEqual([]);
    hook.handle(() => ({ status: 200 }));
    await s.once();
    expect(hook.requests).toHaveLength(2);
    expect(hook.requests[1]!.headers['idempotency-key']).toBe(KEY);
    expect(s.events('notify_sent')).toEqual([expect.objectContaining({ key: KEY, is_recovered: true })]);
    expect(s.events('notify_failed')).toEqual([]);
  }, 60_000);
});
