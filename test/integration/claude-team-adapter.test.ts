// The claude-team adapter against a real inbox directory: the JSON array is never torn or duplicated,
// the lock is respected with a bounded wait, and the requestId makes the request idempotent.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdapter } from '../../src/act/agents/make-adapter.js';
import { realClock } from '../../src/deps.js';
import { cancelRequest } from '../helpers/agent-requests.js';
import { tempDir } from '../helpers/temp-dir.js';

const EXISTING = [{ from: 'team-lead', text: 'Hi! Start with task #1', timestamp: '2026-04-02T10:00:00.000Z', read: true, summary: 'kickoff', color: 'blue' }];

async function setup(opts: { inbox?: unknown[] | string; lockWaitMs?: number } = {}) {
  const dir = tempDir();
  const teams = path.join(dir, 'teams');
  const inboxes = path.join(teams, 'wave-team', 'inboxes');
  const inbox = path.join(inboxes, 'worker-1.json');
  await fs.mkdir(inboxes, { recursive: true });
  if (opts.inbox !== undefined) await fs.writeFile(inbox, typeof opts.inbox === 'string' ? opts.inbox : JSON.stringify(opts.inbox, null, 2));
  const adapter = createAdapter('claude-team', { teams_dir: teams }, { clock: realClock }, { claudeTeam: { lockWaitMs: opts.lockWaitMs ?? 2000 } });
  const req = cancelRequest(dir, { agentId: 'worker-1@wave-team' });
  return { adapter, req, inbox, inboxes, read: async () => JSON.parse(await fs.readFile(inbox, 'utf8')) as { text: string }[] };
}

describe('claude-team adapter', () => {
  it('appends a shutdown_request whose requestId is the idempotency key, keeping earlier messages', async () => {
    const { adapter, req, read } = await setup({ inbox: EXISTING });
    expect(await adapter.cancel(req)).toMatchObject({ ok: true, wasAlreadyDone: false });
    const messages = await read();
    expect(messages.slice(0, 1)).toEqual(EXISTING);
    expect(messages[1]).toMatchObject({ from: 'team-lead', read: false, timestamp: expect.any(String) });
    expect(JSON.parse(messages[1]!.text)).toMatchObject({
      type: 'shutdown_request',
      requestId: 'PROJ-1000:t1:cancel',
      from: 'team-lead',
      reason: 'test stall',
    });
  });

  it('nudges a teammate between turns with a plain message in its inbox, once; its marker says so after', async () => {
    const { adapter, req, read } = await setup({ inbox: EXISTING });
    const nudge = { ...req, key: 'PROJ-1000:t1:nudge', message: 'Your turn ended, but PROJ-1001 is still in progress.', route: 'inbox' as const };
    expect(await adapter.nudgeMarker(nudge)).toBe('absent');
    expect(await adapter.nudge(nudge)).toMatchObject({ ok: true, kind: 'nudge', wasAlreadyDone: false });
    expect(await adapter.nudge(nudge)).toMatchObject({ ok: true, wasAlreadyDone: true });
    const messages = await read();
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatchObject({
      from: 'team-lead',
      read: false,
      text: 'Your turn ended, but PROJ-1001 is still in progress. [dispatch-watchdog PROJ-1000:t1:nudge]',
    });
    expect(await adapter.nudgeMarker(nudge)).toBe('done');
  });

  it('waits for a held lock, then writes, and leaves no lock behind', async () => {
    const { adapter, req, inboxes, read } = await setup({ inbox: EXISTING });
    const lock = path.join(inboxes, 'worker-1.json.lock');
    await fs.mkdir(lock);
    const pending = adapter.cancel(req);
    // A short real delay is the point of this test: the holder releases while we wait.
    setTimeout(() => void fs.rmdir(lock), 50);
    expect(await pending).toMatchObject({ ok: true });
    expect(await read()).toHaveLength(2);
    expect((await fs.readdir(inboxes)).sort()).toEqual(['worker-1.json']);
  });

  it('gives up on a lock held past the bounded wait, retryably, without touching the inbox', async () => {
    const { adapter, req, inbox, inboxes } = await setup({ inbox: EXISTING, lockWaitMs: 60 });
    await fs.mkdir(path.join(inboxes, 'worker-1.lock'));
    const before = await fs.readFile(inbox, 'utf8');
    const outcome = await adapter.cancel(req);
    expect(outcome).toMatchObject({ ok: false, code: 'lock_held', retryable: true });
    expect(outcome.detail).toBe(`inbox not written: ${path.join(inboxes, 'worker-1.lock')} is still held after 60 ms.`);
    expect(await fs.readFile(inbox, 'utf8')).toBe(before);
    expect(await adapter.cancelMarker(req)).toBe('absent');
  });

  it('takes over a stale lock left by a dead writer', async () => {
    const { adapter, req, inboxes, read } = await setup({ inbox: EXISTING, lockWaitMs: 60 });
    const lock = path.join(inboxes, 'worker-1.json.lock');
    await fs.mkdir(lock);
    const old = new Date(Date.now() - 60_000);
    await fs.utimes(lock, old, old);
    expect(await adapter.cancel(req)).toMatchObject({ ok: true });
    expect(await read()).toHaveLength(2);
  });

  it('does not send again when the inbox already holds that requestId', async () => {
    const prior = { from: 'team-lead', text: JSON.stringify({ type: 'shutdown_request', requestId: 'PROJ-1000:t1:cancel' }), timestamp: 'x', read: false };
    const { adapter, req, inbox } = await setup({ inbox: [...EXISTING, prior] });
    const before = await fs.readFile(inbox, 'utf8');
    expect(await adapter.cancelMarker(req)).toBe('done');
    expect(await adapter.cancel(req)).toMatchObject({ ok: true, wasAlreadyDone: true });
    expect(await fs.readFile(inbox, 'utf8')).toBe(before);
  });

  it('still knows it sent the request after Claude Code clears the inbox', async () => {
    const { adapter, req, inbox } = await setup({ inbox: [] });
    await adapter.cancel(req);
    await fs.writeFile(inbox, '[]');
    expect(await adapter.cancelMarker(req)).toBe('done');
    expect(await adapter.cancel(req)).toMatchObject({ ok: true, wasAlreadyDone: true });
    expect(await fs.readFile(inbox, 'utf8')).toBe('[]');
  });

  it('creates a missing inbox as a one-message array', async () => {
    const { adapter, req, read } = await setup();
    expect(await adapter.cancel(req)).toMatchObject({ ok: true });
    expect(await read()).toHaveLength(1);
  });

  it('leaves an inbox that is not a JSON array untouched', async () => {
    const { adapter, req, inbox } = await setup({ inbox: '[{"from": "team-lead", "te' });
    expect(await adapter.cancel(req)).toMatchObject({ ok: false, code: 'inbox_invalid', retryable: true });
    expect(await fs.readFile(inbox, 'utf8')).toBe('[{"from": "team-lead", "te');
    expect(await adapter.cancelMarker(req)).toBe('unknown');
  });

  it('refuses a lock path that is a plain file (a lock protocol it cannot share)', async () => {
    const { adapter, req, inboxes } = await setup({ inbox: EXISTING });
    await fs.writeFile(path.join(inboxes, 'worker-1.lock'), '');
    expect(await adapter.cancel(req)).toMatchObject({ ok: false, code: 'lock_held', retryable: false });
  });

  it('cannot find an inbox without team and agent names (marker unknown)', async () => {
    const { adapter } = await setup();
    const req = cancelRequest(tempDir());
    expect(await adapter.cancelMarker(req)).toBe('unknown');
    expect(await adapter.cancel(req)).toMatchObject({ ok: false, code: 'missing_target' });
  });
});
