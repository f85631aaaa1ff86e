// `dispatch-watchdog serve`: one process for every epic of a state dir, as a real child process.
// New epics are picked up as their state files appear, finished ones let go, an epic another
// watchdog holds is left to it until it stops (one watchdog per epic), `status` lists them all,
// the OTLP receiver is shared, and SIGTERM stops every loop cleanly.
import { existsSync, readFileSync } from 'node:fs';
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
const inFlight = (id: string) => ({ task_id: id, ticket_id: `P-${id}`, status: 'in_progress', last_activity_ts: new Date().toISOString() });

describe('serve', { timeout: 90_000 }, () => {
  it('watches every epic, picks up new ones, leaves a held one to its holder, and stops on SIGTERM', async () => {
    const stateDir = tempDir();
    const now = new Date().toISOString();
    writeWave(stateDir, 'E-1', now, [inFlight('a1')]);
    writeWave(stateDir, 'E-2', now, [{ task_id: 'b1', ticket_id: 'P-b1', status: 'completed' }]);
    writeWave(stateDir, 'E-4', now, [inFlight('d1')]);
    const common = ['--state-dir', stateDir, '--timeout', '3600', '--check-interval', '1', '--action', 'report'];
    // E-4 is already watched by a watchdog of its own.
    const other = spawnCli(['--epic-id', 'E-4', ...common, '--json']);
    onTestFinished(() => void other.kill('SIGKILL'));
    await until(() => lockOf(stateDir, 'E-4')?.pid === other.pid, 20_000, 'the other watchdog holds E-4');

    const serve = spawnCli(['serve', ...common, '--otlp', '127.0.0.1:0', '--json']);
    onTestFinished(() => void serve.kill('SIGKILL'));
    const port = Number((await until(() => /OTLP\/HTTP receiver on http:\/\/127\.0\.0\.1:(\d+)/.exec(serve.output()) ?? undefined, 20_000, 'the receiver'))[1]);
    await until(
      () => lockOf(stateDir, 'E-1')?.pid === serve.pid && existsSync(path.join(stateDir, 'epics', 'E-1', 'watchdog.json')),
      20_000,
      'serve watches E-1',
    );
    await until(() => /epic E-2 is done/.test(serve.output()), 20_000, `E-2 let go (${serve.output()})`);
    await until(() => /epic E-4 not watched here: .*another dispatch-watchdog \(pid \d+/.test(serve.output()), 20_000, 'E-4 left to its holder');
    expect(lockOf(stateDir, 'E-4')?.pid).toBe(other.pid);

    // A new epic is picked up when its state file appears.
    writeWave(stateDir, 'E-3', now, [inFlight('c1')]);
    await until(() => lockOf(stateDir, 'E-3')?.pid === serve.pid, 20_000, 'serve picks up E-3');
    // The held epic's holder stops: serve takes it over.
    other.kill('SIGTERM');
    expect(await exited(other)).toEqual({ code: 0, signal: null });
    await until(() => lockOf(stateDir, 'E-4')?.pid === serve.pid, 20_000, 'serve takes E-4 over');

    // status without --epic-id lists every epic and who watches it.
    const list = await runCli(['status', '--state-dir', stateDir, '--json']);
    expect(list.code).toBe(0);
    const epics = (JSON.parse(list.stdout) as { epics: { epic_id: string; watcher: string }[] }).epics;
    expect(epics.map((e) => e.epic_id)).toEqual(['E-1', 'E-2', 'E-3', 'E-4']);
    for (const e of epics.filter((x) => x.epic_id !== 'E-2')) expect(e.watcher).toMatch(new RegExp(`^watched by pid ${serve.pid} `));
    const table = await runCli(['status', '--state-dir', stateDir]);
    expect(table.stdout.split('\n')[0]).toMatch(/^EPIC\s+CHECKED\s+TASKS\s+HEALTHY\s+STALLED\s+OTHER\s+WATCHER$/);

    // The shared receiver takes OTLP/HTTP.
    const res = await fetch(`http://127.0.0.1:${port}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"resourceLogs":[]}',
    });
    expect(res.status).toBe(200);

    serve.kill('SIGTERM');
    expect(await exited(serve)).toEqual({ code: 0, signal: null });
    for (const epic of ['E-1', 'E-3', 'E-4']) expect(lockOf(stateDir, epic), epic).toBeUndefined();
    const stopped = readEvents(stateDir).filter((e) => e.event === 'watchdog_stopped' && e.signal === 'SIGTERM');
    expect(stopped.map((e) => e.epic_id).sort()).toEqual(['E-1', 'E-3', 'E-4', 'E-4']);
    await expect(fetch(`http://127.0.0.1:${port}/v1/logs`, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
