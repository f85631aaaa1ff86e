// A `launching` marker whose replacement really runs (issue 8 item 18): the process carries
// DISPATCH_WATCHDOG_KEY, so recovery adopts it instead of leaving an unsupervised orphan.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { launchFile, launchMarker } from '../../src/act/agents/process-launch.js';
import { redispatchRequest } from '../helpers/agent-requests.js';
import { fixture, waitFor } from '../helpers/spawn-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('a launching marker left by a crash', () => {
  it('is completed with the pid of the running replacement that carries its key', async () => {
    const req = await redispatchRequest(tempDir());
    const file = launchFile(req);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      JSON.stringify({
        key: req.key,
        status: 'launching',
        recovery_task_id: req.recoveryTaskId,
        argv_template: ['agent'],
        prompt_file: 'p',
        log_file: 'l',
        started_at: '2026-04-02T10:00:00.000Z',
      }),
    );
    expect(await launchMarker(req)).toBe('unknown'); // nothing runs with the key yet

    const child = spawn(process.execPath, [fixture('sleep-forever.mjs')], {
      env: { ...process.env, DISPATCH_WATCHDOG_KEY: req.key, DISPATCH_WATCHDOG_STATE_DIR: req.paths.root },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    onTestFinished(() => void child.kill('SIGKILL'));
    await new Promise((r) => child.stdout!.once('data', r));
    expect(await waitFor('the marker to be adopted', async () => ((await launchMarker(req)) === 'done' ? true : undefined))).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ status: 'launched', pid: child.pid, start_ticks: expect.any(Number) });
  });
});
