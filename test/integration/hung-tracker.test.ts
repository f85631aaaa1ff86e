// A Linear that never answers (issue 8 item 7): the escalation has a total budget, and SIGTERM stops
// the watchdog at once instead of after every request's timeout.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { escalateInLinear } from '../../src/act/tracker/linear.js';
import { exited, spawnCli, until } from '../helpers/cli.js';
import { replies, startLinearServer, type LinearServer } from '../helpers/linear-server.js';
import { readEvents, writeWave, type RowSpec } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const within = <T>(ms: number, p: Promise<T>) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms))]);

describe('a Linear that never answers', () => {
  it('an escalation gives up within its total budget, retryable, whatever the retries left', async () => {
    await using fake = await startLinearServer();
    fake.handle(() => replies.hang());
    const started = Date.now();
    const p = escalateInLinear({
      apiKey: 'lin_api_TESTKEY',
      apiUrl: fake.url,
      ticketId: 'ENG-123',
      commentBody: 'x',
      idempotencyKey: 'E:t1:escalate',
      requestTimeoutMs: 200,
      totalBudgetMs: 500,
      retries: 50,
      minDelayMs: 10,
      maxDelayMs: 10,
    });
    await expect(within(3000, p)).rejects.toMatchObject({ code: 'tracker_unavailable', isRetryable: true });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('SIGTERM during a hung escalation stops the watchdog promptly, with watchdog_stopped', async () => {
    await using fake = await startLinearServer();
    const old = new Date(Date.now() - 600_000).toISOString();
    const { dir, child } = startWithHungLinear(fake, old, [{ task_id: 't1', ticket_id: 'ENG-123', status: 'in_progress', last_activity_ts: old }], '60');
    await until(() => fake.requests.length > 0, 15_000, 'the first Linear request');
    const sent = Date.now();
    await expectStopsOnSigterm(dir, child);
    expect(Date.now() - sent).toBeLessThan(4000);
  }, 30_000);
});

/** The watch loop over these rows, with --max-redispatches 0 so a stall escalates to a Linear that never answers. */
function startWithHungLinear(fake: LinearServer, dispatchedAt: string, rows: RowSpec[], timeoutSeconds: string) {
  fake.handle(() => replies.hang());
  const dir = tempDir();
  writeFileSync(path.join(dir, 'watchdog.config.yaml'), stringify({ linear: { api_url: fake.url } }));
  writeWave(dir, 'E-1', dispatchedAt, rows);
  const child = spawnCli(['--epic-id', 'E-1', '--state-dir', dir, '--timeout', timeoutSeconds, '--max-redispatches', '0'], {
    env: { LINEAR_API_KEY: 'lin_api_TESTKEY' },
  });
  onTestFinished(() => void child.kill('SIGKILL'));
  return { dir, child };
}

async function expectStopsOnSigterm(dir: string, child: ReturnType<typeof spawnCli>) {
  child.kill('SIGTERM');
  const end = await within(5000, exited(child));
  expect(end.code, child.output()).toBe(0);
  expect(readEvents(dir).at(-1)).toMatchObject({ event: 'watchdog_stopped', reason: 'signal' });
}

describe('a hung escalation does not hold the loop', () => {
  it("another task's stall is detected while an escalation waits on a Linear that never answers", async () => {
    await using fake = await startLinearServer();
    const old = new Date(Date.now() - 600_000).toISOString();
    const { dir, child } = startWithHungLinear(
      fake,
      old,
      [
        { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', last_activity_ts: old },
        { task_id: 't2', ticket_id: 'ENG-2', status: 'in_progress', last_activity_ts: new Date().toISOString() },
      ],
      '3',
    );
    await until(() => fake.requests.length > 0, 15_000, 'the first Linear request');
    const hungAt = Date.now();
    // t2 stalls 3 s after it was written; the escalation of t1 holds Linear for up to 30 s.
    await until(() => readEvents(dir).some((e) => e.event === 'stall_detected' && e.task_id === 't2'), 20_000, "t2's stall");
    expect(Date.now() - hungAt, child.output()).toBeLessThan(15_000);
    await expectStopsOnSigterm(dir, child);
  }, 40_000);
});

describe('Linear failures the campaign found', () => {
  it('a 5xx labelled JSON whose body is not JSON is retried', async () => {
    await using fake = await startLinearServer();
    fake.enqueue('issue', { status: 502, headers: { 'content-type': 'application/json' }, body: '<html>Bad Gateway</html>' });
    const r = await escalateInLinear({
      apiKey: 'lin_api_TESTKEY',
      apiUrl: fake.url,
      ticketId: 'ENG-123',
      commentBody: 'x',
      idempotencyKey: 'E:t1:escalate',
      sleep: async () => undefined,
    });
    expect(r).toMatchObject({ tracker: 'updated', commented: true });
    expect(fake.ops().slice(0, 2)).toEqual(['issue', 'issue']);
  });

  it('an issue with over 2,000 comments and a lost createComment reply still gets one comment', async () => {
    const comments = Array.from({ length: 2_050 }, (_, n) => ({ id: `c${n}`, body: `comment ${n}` }));
    await using fake = await startLinearServer({ issues: [{ comments }] });
    fake.enqueue('createComment', replies.lostAfterApply());
    const r = await escalateInLinear({
      apiKey: 'lin_api_TESTKEY',
      apiUrl: fake.url,
      ticketId: 'ENG-123',
      commentBody: 'x',
      idempotencyKey: 'E:t1:escalate',
      sleep: async () => undefined,
    });
    expect(r).toMatchObject({ tracker: 'updated' });
    expect(fake.ops().filter((op) => op === 'createComment')).toHaveLength(1);
  });
});
