// One watchdog per epic, always (issue 24 item 2): many starts racing over a stale lock; the
// takeover removes only the lock it judged stale, never the fresh lock another start just took.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { exited, spawnCli } from '../helpers/cli.js';
import { startLinearServer } from '../helpers/linear-server.js';
import { spawnFixture, waitFor, type Fixture } from '../helpers/spawn-fixture.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A lock left by a process that is gone (its pid, a start time it never had). */
function staleLock(file: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ pid: 2 ** 22 + 1, run_id: 'dead', started_at: '2026-01-01T00:00:00Z', start_ticks: 1 }) + '\n');
}

/** What one contender printed after the go signal. */
function answer(f: Fixture): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    f.child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /^(got|held|error.*)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
  });
}

describe('many watchdogs starting at once over a stale lock', () => {
  it('exactly one takes it, every round', async () => {
    for (let round = 0; round < 4; round++) {
      const file = path.join(tempDir(), 'epics', 'E-1', 'watchdog.lock');
      staleLock(file);
      const contenders = await Promise.all(Array.from({ length: 8 }, () => spawnFixture('lock-contender.mjs', [file])));
      const answers = contenders.map(answer);
      for (const c of contenders) c.child.kill('SIGUSR1');
      const got = await Promise.all(answers);
      expect(
        got.filter((a) => a === 'got'),
        got.join(' '),
      ).toHaveLength(1);
      expect(got.filter((a) => a === 'held')).toHaveLength(7);
      for (const c of contenders) c.child.kill('SIGKILL');
      await Promise.all(contenders.map((c) => c.exited));
    }
  }, 120_000);

  it('the real CLI: one runs and comments on Linear once; the others exit 2', async () => {
    await using fake = await startLinearServer();
    const dir = tempDir();
    staleLock(path.join(dir, 'epics', 'E-1', 'watchdog.lock'));
    const stale = new Date(Date.now() - 600_000).toISOString();
    writeWave(dir, 'E-1', stale, [{ task_id: 't1', ticket_id: 'ENG-123', status: 'in_progress', dispatched_at: stale, last_activity_ts: stale }]);
    writeFileSync(path.join(dir, 'watchdog.config.yaml'), stringify({ max_redispatches: 0, linear: { api_url: fake.url } }));
    const env = { LINEAR_API_KEY: 'lin_api_LOCKRACE_s3cr3t' };
    const starts = Array.from({ length: 6 }, () => {
      const c = spawnCli(['--epic-id', 'E-1', '--state-dir', dir, '--timeout', '1', '--check-interval', '1', '--action', 'redispatch'], { env });
      onTestFinished(() => void c.kill('SIGKILL'));
      return c;
    });
    const ends = starts.map((c) => exited(c));
    // Five give up on the lock; the one left escalates the stalled ticket once (and may then end
    // the wave and exit before the others are seen to: only the losers' exits are waited for).
    await waitFor('the comment', () => (fake.issue().comments.length > 0 ? true : undefined), 60_000);
    await waitFor('five starts to exit 2', () => (starts.filter((c) => c.exitCode === 2).length >= 5 ? true : undefined), 60_000);
    const winners = starts.filter((c) => c.exitCode !== 2);
    expect(winners).toHaveLength(1);
    winners[0]!.kill('SIGTERM');
    await Promise.all(ends);
    expect(winners[0]!.exitCode).not.toBe(2);
    expect(fake.ops().filter((o) => o === 'createComment')).toHaveLength(1);
    expect(readEvents(dir).filter((e) => e.event === 'watchdog_started')).toHaveLength(1);
  }, 120_000);
});
