// Reading under a live writer (DESIGN §3), in-process: one read never ends the wave or does harm;
// rows that vanish or lose fields are reported once, never taken as done or as never started.
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitUntilSettled } from '../../src/observe/read/settle.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startWatch } from '../helpers/watch-harness.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const S = 1000;
const names = (dir: string) => readEvents(dir).map((e) => `${e.event}${e.task_id ? ':' + e.task_id : ''}`);

describe('a state file read without rows', () => {
  it.each([['current_wave: {wave_id: 1}\n'], ['current_wave:\n  wave_id: 1\n  tasks: []\n'], ['wave_tasks: []\n']])(
    'never ends supervision: %j',
    async (text) => {
      const dir = tempDir();
      const file = writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) }]);
      const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', checkInterval: 10 }, T0);
      writeFileSync(file, text);
      await h.advance(10 * S);
      await h.advance(10 * S);
      expect(names(dir)).not.toContain('watchdog_stopped');
      // The vanished in-flight row is reported once, held (not yet believed), not taken as done.
      expect(readEvents(dir).filter((e) => e.event === 'state_rows_lost')).toEqual([expect.objectContaining({ vanished: ['t1'], is_confirmed: false })]);
      writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'merged' }]);
      await h.advance(10 * S);
      expect(await h.done).toBe(0);
    },
  );

  it('ends when every wave of shape C is completed', async () => {
    const dir = tempDir();
    const file = writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) }]);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', checkInterval: 10 }, T0);
    writeFileSync(file, `waves:\n  - { wave_id: 0, completed_at: "${iso(T0)}", tasks: [ { ticket_id: P-1, status: merged } ] }\n`);
    // Row t1 is gone with it: believed only once reads two check intervals apart agree.
    await h.advance(10 * S);
    await h.advance(10 * S);
    expect(names(dir)).not.toContain('watchdog_stopped');
    await h.advance(10 * S);
    expect(await h.done).toBe(0);
  });
});

describe('a row that loses fields', () => {
  it('keeps the activity an earlier read showed (never "never started"), and says so once', async () => {
    const dir = tempDir();
    const row = { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: iso(T0 - 300 * S) };
    writeWave(dir, 'E-1', iso(T0 - 300 * S), [{ ...row, last_activity_ts: iso(T0) }]);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'redispatch', timeout: 120, checkInterval: 10 }, T0);
    // The orchestrator's rewrite drops last_activity_ts: dispatched 300 s ago would read as never started.
    writeWave(dir, 'E-1', iso(T0 - 300 * S), [row]);
    await h.advance(10 * S);
    await h.advance(10 * S);
    expect(names(dir)).toEqual(['watchdog_started', 'healthy:t1', 'state_rows_lost']);
    expect(readEvents(dir)[2]).toMatchObject({ vanished: [], fields_lost: [{ task_id: 't1', fields: ['last_activity_ts'] }], is_confirmed: false });
    // Two check intervals later the rewrite is believed, and told once more as confirmed.
    await h.advance(10 * S);
    expect(names(dir)).toEqual(['watchdog_started', 'healthy:t1', 'state_rows_lost', 'state_rows_lost']);
    expect(readEvents(dir)[3]).toMatchObject({ fields_lost: [{ task_id: 't1', fields: ['last_activity_ts'] }], is_confirmed: true });
    // Real silence still stalls, counted from the last activity seen.
    await h.advance(91 * S);
    expect(readEvents(dir).find((e) => e.event === 'stall_detected')).toMatchObject({ task_id: 't1', stall_reason: 'inactivity', idle_seconds: 120 });
    h.stop();
    await h.done;
  });
});

describe('waitUntilSettled', () => {
  it('waits while a writer appends, gives up after maxWaitMs, and returns once the file holds still', async () => {
    const file = path.join(tempDir(), 'state.yaml');
    writeFileSync(file, 'a\n');
    const writer = setInterval(() => appendFileSync(file, 'x\n'), 2);
    try {
      expect(await waitUntilSettled(file, { intervalMs: 100, maxWaitMs: 300 })).toBeUndefined();
    } finally {
      clearInterval(writer);
    }
    const signature = await waitUntilSettled(file, { intervalMs: 30, maxWaitMs: 1000 });
    expect(signature).toMatch(/^\d+:\d+:\d+:\d+:\d+$/);
  });
});

describe('input_error under a writer that keeps tearing the file', () => {
  it('one problem is told once whatever its line and column, and at most 5 a minute in all', async () => {
    const dir = tempDir();
    const file = writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) }]);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', checkInterval: 5 }, T0);
    for (let i = 0; i < 12; i++) {
      // The same torn field at another place each time (a different column and line), then a good file.
      writeFileSync(file, `current_wave:\n${' '.repeat(i % 2)}  tasks:\n${'\n'.repeat(i)}    - { ticket_id: P-1, ${' '.repeat(i)}pid: "torn" }\n`);
      await h.advance(5 * S);
      writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) }]);
      await h.advance(5 * S);
      writeFileSync(file, `current_wave:\n  tasks:\n    - { ticket_id: P-${i}, status: in_progress, redispatch_count: -${i + 1} }\n`);
      await h.advance(5 * S);
    }
    const errors = readEvents(dir).filter((e) => e.event === 'input_error');
    // 36 checks over 3 minutes, 24 of them bad: a few lines a minute, not one per bad check.
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.length).toBeLessThanOrEqual(5 * 3);
    h.stop();
    await h.done;
  });
});
