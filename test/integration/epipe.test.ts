// The reader of stdout goes away (issue 8 item 5): the loop stops cleanly, logs watchdog_stopped
// and releases its lock, with no stack trace.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { exited, spawnCli, until } from '../helpers/cli.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('a reader that closes stdout', () => {
  it('stops the loop like a signal: watchdog_stopped, lock released, exit 0, no stack', async () => {
    const dir = tempDir();
    const now = new Date().toISOString();
    writeWave(dir, 'E-1', now, [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: now }]);
    const child = spawnCli(['--epic-id', 'E-1', '--state-dir', dir, '--json', '--check-interval', '0.2', '--action', 'report']);
    onTestFinished(() => void child.kill('SIGKILL'));
    await new Promise((r) => child.stdout!.once('data', r));
    child.stdout!.destroy(); // the reader goes away; the next check's output meets EPIPE
    const end = await exited(child);
    expect(end.code, child.output()).toBe(0);
    expect(child.output()).not.toMatch(/internal error|EPIPE|at .*\.js:\d+/);
    const stop = await until(() => readEvents(dir).find((e) => e.event === 'watchdog_stopped'), 2000, 'watchdog_stopped');
    expect(stop).toMatchObject({ reason: 'signal', signal: 'SIGPIPE' });
    expect(existsSync(path.join(dir, 'epics', 'E-1', 'watchdog.lock'))).toBe(false);
  });
});
