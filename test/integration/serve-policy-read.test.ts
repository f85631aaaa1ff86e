// `serve` takes an epic's policy from that epic's watchdog.json (issue 33 item 1), and never on one
// read (issue 33 item 7's audit: "never do harm on one read"): a watchdog.json that exists but does
// not read whole (caught mid-write by a writer that is not atomic, a read that failed) is looked at
// again at the next scan, and the epic is not watched with serve's own window and action meanwhile
// (a 600 s report-mode epic taken over at 8 s in redispatch mode would be acted on at once). Only
// when two looks read the very same thing is serve's own policy used, and the line says why.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { epicOptions, runServe } from '../../src/serve.js';
import { resolveOptions } from '../../src/options.js';
import { StatePaths } from '../../src/files/paths.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { runMain } from '../helpers/in-process-cli.js';
import { until } from '../helpers/cli.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A state dir with epic E5 last watched by its own loop at 600 s in report mode: its watchdog.json as that loop wrote it. */
async function watchedEpic(): Promise<{ stateDir: string; file: string; whole: string }> {
  const stateDir = tempDir();
  const idle = new Date(Date.now() - 30_000).toISOString();
  writeWave(stateDir, 'E5', idle, [{ task_id: 'e1', ticket_id: 'P-5', status: 'in_progress', dispatched_at: idle, last_activity_ts: idle }]);
  const own = await runMain(['--epic-id', 'E5', '--state-dir', stateDir, '--once', '--timeout', '600', '--action', 'report']);
  expect(own.code, own.stderr).toBe(0);
  const file = new StatePaths(stateDir).watchdogJson('E5');
  return { stateDir, file, whole: readFileSync(file, 'utf8') };
}
const serveFlags = (stateDir: string) => resolveOptions({ epicId: 'serve', stateDir, timeout: 8, action: 'redispatch' }, {}, stateDir);

describe("serve reads an epic's policy from its watchdog.json, never on one read", () => {
  it('torn at one look: unsettled (no policy); whole at the next: the window and action its own watchdog ran with', async () => {
    const { stateDir, file, whole } = await watchedEpic();
    const base = await serveFlags(stateDir);
    const paths = new StatePaths(stateDir);
    writeFileSync(file, whole.slice(0, Math.floor(whole.length / 2)));
    const first = await epicOptions(base, paths, 'E5');
    expect(first).toMatchObject({ why: expect.stringContaining('does not read as a document') });
    expect('opts' in first).toBe(false);
    writeFileSync(file, whole);
    const second = await epicOptions(base, paths, 'E5', 'unsettled' in first ? first.unsettled : undefined);
    expect(second).toMatchObject({ opts: { timeoutSeconds: 600, action: 'report' }, from: 'window 600s, action report, as its own watchdog last ran' });
  });

  it("the same damage at two looks: serve's own policy, and the words say why", async () => {
    const { stateDir, file, whole } = await watchedEpic();
    const base = await serveFlags(stateDir);
    const paths = new StatePaths(stateDir);
    writeFileSync(file, whole.slice(0, 40));
    const first = await epicOptions(base, paths, 'E5');
    expect('unsettled' in first && first.unsettled).toBe(whole.slice(0, 40));
    const second = await epicOptions(base, paths, 'E5', 'unsettled' in first ? first.unsettled : undefined);
    expect(second).toMatchObject({
      opts: { timeoutSeconds: 8, action: 'redispatch' },
      from: expect.stringMatching(/^window 8s, action redispatch: .*the same at two looks/),
    });
  });

  it('a read that fails (not a missing file) is no policy either, until it fails the same way twice; a missing file is an epic never watched', async () => {
    const { stateDir, file } = await watchedEpic();
    const base = await serveFlags(stateDir);
    const paths = new StatePaths(stateDir);
    rmSync(file);
    expect(await epicOptions(base, paths, 'E5')).toMatchObject({ opts: { timeoutSeconds: 8 }, from: 'window 8s, action redispatch' });
    mkdirSync(file);
    const first = await epicOptions(base, paths, 'E5');
    expect(first).toMatchObject({ unsettled: 'read error EISDIR', why: expect.stringContaining('could not be read (EISDIR)') });
    expect(await epicOptions(base, paths, 'E5', 'read error EISDIR')).toMatchObject({ opts: { timeoutSeconds: 8 } });
  });

  it("the serve loop: an epic whose watchdog.json is torn at the first scan is not watched with serve's flags; at the next scan, whole, it is watched as its own watchdog ran", async () => {
    const { stateDir, file, whole } = await watchedEpic();
    writeFileSync(file, whole.slice(0, Math.floor(whole.length / 2)));
    const base = await serveFlags(stateDir);
    const clock = new ManualClock(Date.now());
    const ac = new AbortController();
    let err = '';
    const output = { out: () => undefined, err: (t: string) => void (err += t) };
    // Serve's loops share the thread with each other and the receivers: none sleeps in blocking waits (sys/batched-idle.ts).
    let idlesMade = 0;
    const makeIdle = (sleep: (ms: number, signal?: AbortSignal) => Promise<void>) => (idlesMade++, sleep);
    const served = runServe(base, { clock, signal: ac.signal, pid: process.pid, output, shouldWatchStateFile: false, scanMs: 2000, makeIdle });
    try {
      await until(() => err.includes('epic E5 not watched yet'), 20_000, `serve's first scan (${err})`);
      expect(err).not.toContain('watching epic E5');
      // Nothing was taken or judged on that read: no lock, the file as it was.
      expect(() => readFileSync(new StatePaths(stateDir).lockFile('E5'))).toThrow();
      writeFileSync(file, whole);
      clock.advance(2000);
      await until(() => err.includes('watching epic E5 ('), 20_000, `serve's second scan (${err})`);
      expect(err).toContain('watching epic E5 (window 600s, action report, as its own watchdog last ran)');
      expect(err).not.toMatch(/watching epic E5 \(window 8s/);
    } finally {
      ac.abort();
      await served;
    }
    expect(idlesMade).toBe(0);
  });
});
