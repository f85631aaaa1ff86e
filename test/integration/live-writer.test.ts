// Beside a live orchestrator (issue 8, DESIGN §3): a real writer rewrites state.yaml in place, line
// by line, over and over, while the real CLI watches with the process adapter and real agents.
// Torn reads must never get a healthy agent signalled, a request written, or the wave ended.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { exited, spawnCli } from '../helpers/cli.js';
import { fixture, isRunning, spawnFixture, waitFor } from '../helpers/spawn-fixture.js';
import { readEvents } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

/** How long the writer rewrites the file (the fault campaign ran 30 s; it tore within 2 s). */
const CAMPAIGN_MS = 15_000;
const HEALTHY = 5;

describe('a non-atomic writer beside a running watchdog', () => {
  it(
    'never signals a healthy agent, never writes a false request, never ends the wave early; the real stall is still acted on',
    async () => {
      const dir = tempDir('dw-live-');
      const healthy = await Promise.all(Array.from({ length: HEALTHY }, () => spawnFixture('sleep-forever.mjs')));
      const stalled = await spawnFixture('sleep-forever.mjs');
      // Dispatched now (every agent started before it, within the identity tolerance).
      const at = new Date().toISOString();
      const rows = (epic: string, withPids: boolean) =>
        [
          ...healthy.map((a, i) => ({
            task_id: `t${i + 1}`,
            ticket_id: `P-${i + 1}`,
            status: 'in_progress',
            dispatched_at: at,
            ...(withPids ? { pid: a.pid } : {}),
            fresh: true,
          })),
          { task_id: 'stuck', ticket_id: 'P-99', status: 'in_progress', dispatched_at: at, ...(withPids ? { pid: stalled.pid } : {}), last_activity_ts: at },
        ].map((r) => ({ ...r, task_id: `${epic}-${r.task_id}` }));

      const config = path.join(dir, 'process.config.yaml');
      writeFileSync(
        config,
        stringify({
          agents: { adapter: 'process', kill_grace_ms: 50, redispatch_argv: [process.execPath, fixture('sleep-forever.mjs')] },
          max_redispatches: 1,
        }),
      );
      const watch = (epic: string, extra: string[]) => {
        const child = spawnCli(['--epic-id', epic, '--state-dir', dir, '--timeout', '4', '--check-interval', '1', '--action', 'redispatch', ...extra]);
        onTestFinished(() => void child.kill('SIGKILL'));
        return child;
      };
      const writers = await Promise.all(
        (
          [
            ['PROC', true],
            ['MAIL', false],
          ] as const
        ).map(([epic, withPids]) => {
          const file = path.join(dir, 'epics', epic, 'state.yaml');
          mkdirSync(path.dirname(file), { recursive: true });
          return spawnFixture('torn-writer.mjs', [file, String(CAMPAIGN_MS), JSON.stringify(rows(epic, withPids))]);
        }),
      );
      const proc = watch('PROC', ['--config', config]);
      const mail = watch('MAIL', []);

      await Promise.all(writers.map((w) => w.exited));
      // The loop never ended by itself while the wave was in flight.
      expect(proc.exitCode, proc.output()).toBeNull();
      expect(mail.exitCode, mail.output()).toBeNull();

      // The one real stall was acted on (the tool still works under a live writer) ...
      await waitFor('the stalled agent to be stopped', () => (isRunning(stalled.pid) ? undefined : true), 10_000);
      const mailRequests = path.join(dir, 'epics', 'MAIL', 'requests');
      await waitFor('the stalled task to be requested', () => (existsSync(mailRequests) && readdirSync(mailRequests).length > 0 ? true : undefined), 10_000);
      proc.kill('SIGTERM');
      mail.kill('SIGTERM');
      expect((await exited(proc)).code).toBe(0);
      expect((await exited(mail)).code).toBe(0);

      // ... and nothing else was: every healthy agent still runs, and no request names a healthy task.
      for (const a of healthy) expect(isRunning(a.pid), `healthy agent ${a.pid} was signalled`).toBe(true);
      expect(
        readdirSync(mailRequests).every((f) => f.includes('MAIL-stuck')),
        readdirSync(mailRequests).join(' '),
      ).toBe(true);
      const events = readEvents(dir);
      const acted = events.filter((e) => e.event === 'action_started').map((e) => String(e.task_id));
      expect(acted.filter((id) => !/-stuck(-r\d+)?$/.test(id))).toEqual([]);
      expect(acted).toEqual(expect.arrayContaining(['PROC-stuck', 'MAIL-stuck']));
      const stops = events.filter((e) => e.event === 'watchdog_stopped');
      expect(stops.map((e) => `${e.epic_id}:${e.reason}`).sort()).toEqual(['MAIL:signal', 'PROC:signal']);
      // Torn reads are told, a bounded number of times; input errors do not flood the log.
      expect(events.filter((e) => e.event === 'input_error').length).toBeLessThan(20);
    },
    CAMPAIGN_MS + 40_000,
  );
});
