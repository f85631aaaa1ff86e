// A lead's `next` beside `serve` on the same epic (issue 33 item 1), as real child processes:
// `next` does not refuse an epic serve watches (exit 2 before) and does not watch it twice; it
// reports what serve finds (its redispatch request, exit 10), once; serve keeps the lock. And
// serve itself: every line of an epic's loop names the epic, a held epic is said once, and a
// taken-over epic keeps the window its own watchdog ran with.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { exited, runCli, spawnCli, until } from '../helpers/cli.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const lockOf = (stateDir: string, epic: string) => {
  try {
    return JSON.parse(readFileSync(path.join(stateDir, 'epics', epic, 'watchdog.lock'), 'utf8')) as { pid: number };
  } catch {
    return undefined;
  }
};
const watchdogJson = (stateDir: string, epic: string) => {
  try {
    return JSON.parse(readFileSync(path.join(stateDir, 'epics', epic, 'watchdog.json'), 'utf8')) as Record<string, any>;
  } catch {
    return undefined;
  }
};

describe('next beside serve', { timeout: 120_000 }, () => {
  it("follows serve's watchdog: serve's redispatch request comes back from next (exit 10), once; serve keeps the lock", async () => {
    const stateDir = tempDir();
    const now = new Date().toISOString();
    writeWave(stateDir, 'E1', now, [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: now, last_activity_ts: now }]);
    // The request stays pending while the test looks (its default deadline is 2 windows: 6 s).
    writeFileSync(path.join(stateDir, 'watchdog.config.yaml'), 'requests:\n  deadline_seconds: 3600\n');
    const serve = spawnCli(['serve', '--state-dir', stateDir, '--timeout', '3', '--check-interval', '1']);
    onTestFinished(() => void serve.kill('SIGKILL'));
    await until(() => lockOf(stateDir, 'E1')?.pid === serve.pid, 30_000, `serve watches E1 (${serve.output()})`);

    const next = await runCli(['next', '--epic-id', 'E1', '--state-dir', stateDir, '--json', '--timeout', '3', '--check-interval', '1']);
    expect(next.code, next.stderr).toBe(10);
    expect(next.stderr).toContain(`epic E1 is watched by pid ${serve.pid}`);
    const doc = JSON.parse(next.stdout);
    expect(doc).toMatchObject({ epic_id: 'E1', reason: 'requests', exit_code: 10 });
    expect(doc.requests).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'redispatch', task_id: 't1', recovery_task_id: 't1-r1', prompt: expect.any(String) })]),
    );
    expect(doc.wave.in_flight).toBe(1);
    expect(lockOf(stateDir, 'E1')?.pid).toBe(serve.pid);
    // What was printed is journaled: a second next has nothing new (max-wait, exit 14).
    const again = await runCli(['next', '--epic-id', 'E1', '--state-dir', stateDir, '--json', '--max-wait', '2s']);
    expect(again.code, again.stderr + again.stdout + '\n' + next.stdout).toBe(14);
    expect(JSON.parse(again.stdout)).toMatchObject({ reason: 'max_wait', requests: [] });
    expect(readEvents(stateDir).filter((e) => e.event === 'watchdog_started' && e.epic_id === 'E1')).toHaveLength(1);

    serve.kill('SIGTERM');
    expect(await exited(serve)).toEqual({ code: 0, signal: null });
  });
});

describe('serve, epic by epic', { timeout: 120_000 }, () => {
  it('names the epic on every line, says a held epic once, and keeps the window an epic was watched with', async () => {
    const stateDir = tempDir();
    const now = new Date().toISOString();
    const idle = new Date(Date.now() - 30_000).toISOString();
    // E5 was watched by its own loop with a 10-minute window in report mode; its row is idle 30 s.
    writeWave(stateDir, 'E5', idle, [{ task_id: 'e1', ticket_id: 'P-5', status: 'in_progress', dispatched_at: idle, last_activity_ts: idle }]);
    const own = await runCli(['--epic-id', 'E5', '--state-dir', stateDir, '--once', '--timeout', '600', '--action', 'report']);
    expect(own.code, own.stderr).toBe(0);
    // E6 is watched right now by a loop of its own.
    writeWave(stateDir, 'E6', now, [{ task_id: 'f1', ticket_id: 'P-6', status: 'in_progress', dispatched_at: now, last_activity_ts: now }]);
    const other = spawnCli(['--epic-id', 'E6', '--state-dir', stateDir, '--timeout', '3600', '--check-interval', '1', '--json']);
    onTestFinished(() => void other.kill('SIGKILL'));
    await until(() => lockOf(stateDir, 'E6')?.pid === other.pid, 30_000, 'the other loop holds E6');

    const serve = spawnCli(['serve', '--state-dir', stateDir, '--timeout', '8', '--check-interval', '1']);
    onTestFinished(() => void serve.kill('SIGKILL'));
    await until(() => watchdogJson(stateDir, 'E5')?.watchdog.pid === serve.pid, 30_000, `serve checks E5 (${serve.output()})`);
    const report = watchdogJson(stateDir, 'E5')!;
    expect(report.watchdog).toMatchObject({ timeout_seconds: 600, action: 'report' });
    expect(report.tasks[0]).toMatchObject({ task_id: 'e1', verdict: 'healthy' });
    // A new epic makes serve scan again (a couple of times): E6 is still said once.
    writeWave(stateDir, 'E7', now, [{ task_id: 'g1', ticket_id: 'P-7', status: 'completed' }]);
    await until(() => /\[E7\] wave complete/.test(serve.output()), 30_000, `E7 let go (${serve.output()})`);
    writeWave(stateDir, 'E8', now, [{ task_id: 'h1', ticket_id: 'P-8', status: 'completed' }]);
    await until(() => /\[E8\] wave complete/.test(serve.output()), 30_000, `E8 let go (${serve.output()})`);
    const text = serve.output();
    expect(text.match(/epic E6 not watched here/g)).toHaveLength(1);
    expect(text).toContain('watching epic E5 (window 600s, action report, as its own watchdog last ran)');
    // Every line but serve's own names its epic.
    const lines = text.split('\n').filter(Boolean);
    expect(lines.filter((l) => !l.startsWith('dispatch-watchdog serve:') && !/^\[E\d\] /.test(l))).toEqual([]);
    serve.kill('SIGTERM');
    expect(await exited(serve)).toEqual({ code: 0, signal: null });
  });
});
