// Webhook notifications (docs/fleet.md "Notifications") through the real CLI and a local receiver:
// sent once per escalation with its Idempotency-Key, exactly once across a SIGKILL between the
// journal line and the POST, never again after a SIGKILL between the POST and its record (an
// orphan, unless the receiver dedups), retried on 5xx, not on 4xx, never delaying checks while the
// webhook hangs, and the URL (a secret) in no file or output.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

/** Every file under `dir`, recursively. */
function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? allFiles(p) : [p];
  });
}

/** A task silent for 30 s, escalated at its first stall (--max-redispatches 0), with a webhook from $WEBHOOK_URL. */
function scene(hook: WebhookServer, notifications: Record<string, unknown> = {}, rows: RowSpec[] = []) {
  const dir = tempDir('dw-notify-');
  writeFileSync(path.join(dir, 'watchdog.config.yaml'), stringify({ notifications: { url_env: 'WEBHOOK_URL', format: 'json', ...notifications } }));
  writeWave(dir, EPIC, ago(30), [{ task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: ago(30), last_activity_ts: ago(30) }, ...rows]);
  const env = { WEBHOOK_URL: hook.url };
  const args = ['--epic-id', EPIC, '--state-dir', dir, '--timeout', '1', '--max-redispatches', '0'];
  const outputs: string[] = [];
  return {
    dir,
    outputs,
    async once(crash?: string) {
      if (!crash) {
        const r = await runCli([...args, '--once'], { env });
        outputs.push(r.stdout, r.stderr);
        return r.code;
      }
      const child = spawnCli([...args, '--once'], { env: { ...env, DISPATCH_WATCHDOG_TEST_CRASH: crash } });
      onTestFinished(() => void child.kill('SIGKILL'));
      const end = await exited(child);
      outputs.push(child.output());
      return end.signal;
    },
    loop(extra: string[]) {
      const child = spawnCli([...args, '--check-interval', '1', '--json', ...extra], { env });
      onTestFinished(() => void child.kill('SIGKILL'));
      return child;
    },
    events: (name?: string) => readEvents(dir).filter((e) => !name || e.event === name),
    marker: () => {
      const f = path.join(dir, 'epics', EPIC, 'notify', `${KEY.replaceAll(':', '__')}.json`);
      return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as { status: string; attempts: number }) : undefined;
    },
    /** The secret part of the URL appears in no file of the state dir and no output. */
    expectNoSecret() {
      for (const f of allFiles(dir)) expect(readFileSync(f, 'utf8'), f).not.toContain(hook.token);
      for (const o of outputs) expect(o).not.toContain(hook.token);
    },
  };
}

describe('webhook notifications', () => {
  it('an escalation is POSTed once, as plain JSON with its Idempotency-Key, and journaled ahead and after', async () => {
    await using hook = await startWebhookServer();
    const s = scene(hook);
    expect(await s.once()).toBe(3);
    expect(hook.requests).toHaveLength(1);
    const [req] = hook.requests;
    expect(req!.path).toBe('/services/T000/B000/XOXB-s3cr3t-token');
    expect(req!.headers['idempotency-key']).toBe(KEY);
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.body).toMatchObject({ source: 'dispatch-watchdog', trigger: 'escalation', key: KEY, epic_id: EPIC, ticket_id: 'ENG-1', task_id: 't1' });
    expect((req!.body as { text: string }).text).toMatch(
      /^\[dispatch-watchdog\] ENG-1 \(epic E-1\) escalated after 1 stall\(s\): not moved \(no LINEAR_API_KEY\)/,
    );
    // The notification's line is written with the escalation's, in one write.
    const names = s.events().map((e) => e.event);
    expect(names.slice(names.indexOf('escalated_to_blocked'), names.indexOf('escalated_to_blocked') + 2)).toEqual(['escalated_to_blocked', 'notify_started']);
    expect(s.events('notify_sent')).toEqual([expect.objectContaining({ key: KEY, status: 200, attempts: 1 })]);
    expect(s.marker()).toMatchObject({ status: 'sent', attempts: 1 });
    // A later run has nothing new to say.
    await s.once();
    expect(hook.requests).toHaveLength(1);
    s.expectNoSecret();
  });

  it('Slack format: the body is an incoming-webhook {"text": …}', async () => {
    await using hook = await startWebhookServer();
    const s = scene(hook, { format: 'slack' });
    await s.once();
    expect(hook.requests.map((r) => r.body)).toEqual([{ text: expect.stringMatching(/^\[dispatch-watchdog\] ENG-1 \(epic E-1\) escalated/) }]);
  });

  it('SIGKILL between the journal line and the POST: the restart sends it, exactly one delivery in all', async () => {
    await using hook = await startWebhookServer();
    const s = scene(hook);
    expect(await s.once('after:notify_started')).toBe('SIGKILL');
    expect(s.events().at(-1)).toMatchObject({ event: 'notify_started', key: KEY });
    expect(s.marker()).toBeUndefined();
    expect(hook.requests).toHaveLength(0);

    await s.once();
    expect(hook.requests).toHaveLength(1);
    expect(hook.requests[0]!.headers['idempotency-key']).toBe(KEY);
    expect(s.events('notify_started')).toHaveLength(1);
    expect(s.events('notify_sent')).toEqual([expect.objectContaining({ key: KEY, is_recovered: true })]);
    await s.once();
    expect(hook.requests).toHaveLength(1);
    s.expectNoSecret();
  });

  it('SIGKILL between the POST and its record: an orphan, never sent again; a deduplicating receiver gets it again with the same key', async () => {
    await using hook = await startWebhookServer();
    const s = scene(hook);
    expect(await s.once('after:notify_post')).toBe('SIGKILL');
    expect(hook.requests).toHaveLength(1);
    expect(s.marker()).toMatchObject({ status: 'sending' });
    await s.once();
    expect(hook.requests).toHaveLength(1);
    expect(s.events('notify_failed')).toEqual([expect.objectContaining({ key: KEY, is_orphan: true })]);
    expect(s.events('notify_sent')).toEqual([]);

    const d = scene(hook, { idempotent_receiver: true });
    expect(await d.once('after:notify_post')).toBe('SIGKILL');
    await d.once();
    expect(hook.requests.slice(1).map((r) => r.headers['idempotency-key'])).toEqual([KEY, KEY]);
    expect(d.events('notify_sent')).toEqual([expect.objectContaining({ key: KEY, is_recovered: true })]);
  });

  it('a 503 is retried (Retry-After honoured), a 400 is not', async () => {
    await using hook = await startWebhookServer((_, n) => (n === 1 ? { status: 503, headers: { 'retry-after': '0' } } : { status: 204 }));
    const s = scene(hook);
    await s.once();
    expect(hook.requests).toHaveLength(2);
    expect(s.events('notify_sent')).toEqual([expect.objectContaining({ status: 204, attempts: 2 })]);

    hook.handle(() => ({ status: 400 }));
    const f = scene(hook);
    await f.once();
    expect(hook.requests).toHaveLength(3);
    expect(f.events('notify_failed')).toEqual([expect.objectContaining({ key: KEY, attempts: 1, error: 'the webhook answered HTTP 400' })]);
    expect(f.marker()).toMatchObject({ status: 'failed' });
    f.expectNoSecret();
  });

  it('a hung webhook never delays a check; SIGTERM stops at once and the next start reports the send undecided', async () => {
    await using hook = await startWebhookServer(() => ({ hang: true }));
    // t2 runs a 10-minute Bash: the wave goes on after t1's escalation, so checks go on.
    const s = scene(hook, { timeout_ms: 120_000, retries: 0 }, [
      { task_id: 't2', ticket_id: 'ENG-2', status: 'in_progress', last_activity_ts: ago(0), last_tool_name: 'Bash', last_tool_timeout_ms: 600_000 },
    ]);
    const child = s.loop([]);
    await until(() => hook.requests.length === 1, 20_000, 'the POST');
    // Checks go on while the POST hangs: each prints one JSON line.
    const checksAt = () =>
      child
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{"schema_version"')).length;
    const before = checksAt();
    await until(() => checksAt() >= before + 3, 20_000, 'three more checks while the webhook hangs');
    expect(s.events('notify_sent')).toEqual([]);
    child.kill('SIGTERM');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(s.events().at(-1)).toMatchObject({ event: 'watchdog_stopped', signal: 'SIGTERM' });
    expect(s.marker()).toMatchObject({ status: 'sending' });
    hook.handle(() => ({ status: 200 }));
    await s.once();
    expect(hook.requests).toHaveLength(1);
    expect(s.events('notify_failed')).toEqual([expect.objectContaining({ is_orphan: true })]);
  }, 60_000);

  it('a mass stall is told once per episode; an unanswered request once', async () => {
    await using hook = await startWebhookServer();
    const silent = (id: string) => ({ task_id: id, ticket_id: `ENG-${id}`, status: 'in_progress', dispatched_at: ago(30), last_activity_ts: ago(30) });
    const m = scene(hook, {}, [silent('t2'), silent('t3')]);
    await m.once();
    await m.once();
    expect(hook.requests.map((r) => (r.body as { trigger: string }).trigger)).toEqual(['mass_stall']);
    expect((hook.requests[0]!.body as { text: string }).text).toMatch(/^\[dispatch-watchdog\] epic E-1: 3 of 3 tasks stalled at once \(t1, t2, t3\)/);

    // A redispatch request (mailbox) with a 1 s deadline, left unanswered.
    const u = scene(hook, { on: ['unanswered_request'] });
    writeFileSync(
      path.join(u.dir, 'watchdog.config.yaml'),
      stringify({ requests: { deadline_seconds: 1 }, notifications: { url_env: 'WEBHOOK_URL', format: 'json', on: ['unanswered_request'] } }),
    );
    const r = await runCli(['--epic-id', EPIC, '--state-dir', u.dir, '--timeout', '1', '--once'], { env: { WEBHOOK_URL: hook.url } });
    expect(r.code).toBe(3);
    const deadline = Date.parse(String(u.events('redispatch')[0]!.answer_by));
    await until(() => Date.now() > deadline + 50, 5_000, 'the answer_by to pass');
    await runCli(['--epic-id', EPIC, '--state-dir', u.dir, '--timeout', '1', '--once'], { env: { WEBHOOK_URL: hook.url } });
    const told = hook.requests.slice(1).map((x) => x.body as { trigger: string; key: string });
    expect(told).toEqual([expect.objectContaining({ trigger: 'unanswered_request', key: `${EPIC}:notify:unanswered_request:${EPIC}:t1:redispatch` })]);
  }, 40_000);

  it('recover tells the webhook about the orphans it found: a cancel command killed mid-run with its watchdog', async () => {
    await using hook = await startWebhookServer();
    const s = scene(hook, { on: ['orphan'] });
    const pidFile = path.join(s.dir, 'cancel.pid');
    const cancel = [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`];
    writeFileSync(
      path.join(s.dir, 'watchdog.config.yaml'),
      stringify({
        action: 'cancel',
        agents: { adapter: 'command', cancel_argv: cancel },
        notifications: { url_env: 'WEBHOOK_URL', format: 'json', on: ['orphan'] },
      }),
    );
    const env = { WEBHOOK_URL: hook.url };
    const child = spawnCli(['--epic-id', EPIC, '--state-dir', s.dir, '--timeout', '1', '--action', 'cancel', '--once'], { env });
    onTestFinished(() => void child.kill('SIGKILL'));
    const pid = await until(() => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8')), 20_000, 'the cancel command to run');
    onTestFinished(() => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    });
    child.kill('SIGKILL');
    await exited(child);
    const r = await runCli(['recover', '--epic-id', EPIC, '--state-dir', s.dir], { env });
    expect(r, r.stdout + r.stderr).toMatchObject({ code: 3 });
    expect(hook.requests.map((x) => x.body)).toEqual([
      expect.objectContaining({ trigger: 'orphan', text: expect.stringContaining(`1 action(s) a crash left undecided, never re-fired: ${EPIC}:t1:cancel`) }),
    ]);
    expect(s.events('notify_sent')).toHaveLength(1);
  }, 40_000);

  it('a url_env naming no variable is a config error that does not show a URL', async () => {
    await using hook = await startWebhookServer();
    const s = scene(hook, { url_env: 'NO_SUCH_WEBHOOK_VAR' });
    const r = await runCli(['--epic-id', EPIC, '--state-dir', s.dir, '--once']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the environment variable NO_SUCH_WEBHOOK_VAR is not set or is empty');
    expect(hook.requests).toHaveLength(0);
  });
});
