// A torn state file at rest is never trusted (issue 24 item 1, DESIGN §3): a writer truncates the
// file, writes part of it, pauses, then finishes. Each step is taken by the test between checks
// of the real `next`/watch commands on a manual clock, with the mailbox adapter and with the
// process adapter over real agent processes; none of the harms the fault campaign found happens.
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { fixture, isRunning, spawnFixture } from '../helpers/spawn-fixture.js';
import { readEvents } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const S = 1000;
const EPIC = 'E-1';
/** The guard's timing as the harness sets it; the confirm window is two check intervals (20 s). */
const FAST = { intervalMs: 5, maxWaitMs: 1000, restMs: 5 };
type Row = Record<string, unknown>;

const stateFile = (dir: string) => path.join(dir, 'epics', EPIC, 'state.yaml');
const shapeA = (rows: Row[]) => stringify({ current_wave: { wave_id: 1, tasks: rows } });
const shapeC = (rows: Row[]) =>
  stringify({
    waves: [
      { wave_id: 0, completed_at: '2026-01-01T00:00:00Z', tasks: [{ ticket_id: 'P-0', status: 'merged' }] },
      { wave_id: 1, tasks: rows },
    ],
  });
/** The file as a writer that truncated it and wrote every line before `marker` left it. */
const cutBefore = (text: string, marker: string) => {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`no ${marker} in ${text}`);
  return text.slice(0, text.lastIndexOf('\n', at) + 1);
};
function write(dir: string, text: string) {
  mkdirSync(path.dirname(stateFile(dir)), { recursive: true });
  writeFileSync(stateFile(dir), text);
}
const requests = (dir: string) => (existsSync(path.join(dir, 'epics', EPIC, 'requests')) ? readdirSync(path.join(dir, 'epics', EPIC, 'requests')) : []);
const acted = (dir: string) => readEvents(dir).filter((e) => e.event === 'action_started');

/** Rows at `nowMs`: t1 healthy (fresh activity), t2 completed (its status written last). */
const rowsAt = (nowMs: number): Row[] => [
  {
    task_id: 't1',
    ticket_id: 'P-1',
    status: 'in_progress',
    dispatched_at: new Date(nowMs - 600 * S).toISOString(),
    last_activity_ts: new Date(nowMs - 5 * S).toISOString(),
  },
  { task_id: 't2', ticket_id: 'P-2', dispatched_at: new Date(nowMs - 600 * S).toISOString(), status: 'completed' },
];

describe('a running watchdog beside a writer that tears the file and pauses', () => {
  it.each([
    ['current_wave, t2 cut before its status (reads in flight)', shapeA, 'status: completed'],
    ['current_wave, t1 cut away whole (the rest is terminal)', (rows: Row[]) => shapeA([rows[1]!, rows[0]!]), '- task_id: t1'],
    ['waves, the open wave cut away (every wave reads completed)', shapeC, '- wave_id: 1'],
  ])('next (mailbox): %s: no request, no wave_complete; the finished file is judged as written', async (_name, shape, marker) => {
    const T0 = Date.parse('2026-04-02T10:00:00Z');
    const dir = tempDir();
    const clock = new ManualClock(T0);
    const full = shape(rowsAt(T0));
    write(dir, full);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, action: 'redispatch', timeout: 120, checkInterval: 10 }, { isNext: true, settle: FAST });
    onTestFinished(() => s.stop());
    expect(s.isDone()).toBe(false);
    // Truncate + part of it, then a pause spanning a check and a half (the confirm window is 20 s).
    write(dir, cutBefore(full, marker));
    await s.advance(10 * S);
    await s.advance(5 * S);
    expect(s.isDone(), s.out.join('')).toBe(false);
    expect(requests(dir)).toEqual([]);
    // The writer finishes.
    write(dir, full);
    await s.advance(10 * S);
    await s.advance(10 * S);
    expect(s.isDone(), s.out.join('')).toBe(false);
    expect(requests(dir)).toEqual([]);
    expect(acted(dir)).toEqual([]);
    // The torn reads were told, unconfirmed, never as a confirmed loss.
    const lost = readEvents(dir).filter((e) => e.event === 'state_rows_lost');
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.every((e) => e.is_confirmed === false)).toBe(true);
  });

  it('a row really gone is believed once reads two check intervals apart agree (bounded), then the wave ends', async () => {
    const T0 = Date.parse('2026-04-02T10:00:00Z');
    const dir = tempDir();
    const clock = new ManualClock(T0);
    const rows = rowsAt(T0);
    write(dir, shapeA(rows));
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, action: 'redispatch', timeout: 120, checkInterval: 10 }, { isNext: true, settle: FAST });
    onTestFinished(() => s.stop());
    write(dir, shapeA([rows[1]!]));
    await s.advance(10 * S);
    await s.advance(10 * S);
    expect(s.isDone()).toBe(false);
    await s.advance(10 * S);
    expect(await s.done).toBe(0);
    expect(
      readEvents(dir)
        .filter((e) => e.event === 'state_rows_lost')
        .map((e) => e.is_confirmed),
    ).toEqual([false, true]);
  });

  it('process adapter over real agents: an exempt agent whose tool fields are torn off is not signalled, a completed row cut before its status is not replaced', async () => {
    const dir = tempDir();
    const exempt = await spawnFixture('sleep-forever.mjs');
    const done = await spawnFixture('sleep-forever.mjs');
    onTestFinished(() => {
      for (const p of [exempt, done]) if (isRunning(p.pid)) process.kill(p.pid, 'SIGKILL');
    });
    const at = new Date().toISOString();
    // The watchdog's clock runs 10 minutes ahead of the rows: both agents dispatched 10 minutes ago.
    const clock = new ManualClock(Date.now() + 600 * S);
    const rows: Row[] = [
      { task_id: 't2', ticket_id: 'P-2', pid: done.pid, dispatched_at: at, status: 'completed' },
      {
        task_id: 't1',
        ticket_id: 'P-1',
        status: 'in_progress',
        pid: exempt.pid,
        dispatched_at: at,
        last_activity_ts: at,
        last_tool_name: 'Bash',
        last_tool_timeout_ms: 3_600_000,
      },
    ];
    const config = path.join(dir, 'process.config.yaml');
    writeFileSync(config, stringify({ agents: { adapter: 'process', kill_grace_ms: 50, redispatch_argv: [process.execPath, fixture('sleep-forever.mjs')] } }));
    const full = shapeA(rows);
    write(dir, full);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, config, action: 'redispatch', timeout: 120, checkInterval: 10 }, { settle: FAST });
    onTestFinished(() => s.stop());
    for (const marker of ['last_tool_name: Bash', 'status: completed']) {
      write(dir, cutBefore(full, marker));
      await s.advance(10 * S);
      await s.advance(5 * S);
      write(dir, full);
      await s.advance(10 * S);
    }
    expect(acted(dir)).toEqual([]);
    expect(isRunning(exempt.pid)).toBe(true);
    expect(readdirSync(dir)).not.toContain('launches');
    s.stop();
    expect(await s.done).toBe(0);
  });
});

describe('a watchdog started while the torn file rests', () => {
  it.each([
    ['t2 cut before its status (reads in flight, dispatched 10 minutes ago)', 'status: completed'],
    ['t1 cut before its activity (reads never started)', 'last_activity_ts'],
  ])('next (mailbox), %s: waits for the file to rest, and judges the finished file', async (_name, marker) => {
    const dir = tempDir();
    const now = Date.now();
    const clock = new ManualClock(now);
    const full = shapeA(rowsAt(now));
    write(dir, cutBefore(full, marker));
    // The writer pauses 1 s, then finishes: during the first check's wait for the file to rest
    // (8 s here, so a loaded machine that freezes this process for seconds still sees the finish).
    const finish = setTimeout(() => write(dir, full), 1000);
    onTestFinished(() => clearTimeout(finish));
    const s = await startSession(
      clock,
      { epicId: EPIC, stateDir: dir, action: 'redispatch', timeout: 120, checkInterval: 10 },
      { isNext: true, settle: { intervalMs: 100, maxWaitMs: 2000, restMs: 8000 } },
    );
    onTestFinished(() => s.stop());
    expect(s.isDone(), s.out.join('')).toBe(false);
    expect(requests(dir)).toEqual([]);
    expect(acted(dir)).toEqual([]);
  });
});

describe('a writer that renames a fresh state file over it every 60 ms', () => {
  it('never lets the file hold still, yet a renamed file is whole: the real stall is acted on', async () => {
    const dir = tempDir();
    const now = Date.now();
    const clock = new ManualClock(now);
    const stale = new Date(now - 600 * S).toISOString();
    const rows: Row[] = [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: stale, last_activity_ts: stale }];
    let n = 0;
    const renameOne = () => {
      const tmp = `${stateFile(dir)}.tmp-${n++}`;
      writeFileSync(tmp, shapeA(rows) + `# rewrite ${n}\n`);
      renameSync(tmp, stateFile(dir));
    };
    write(dir, shapeA(rows));
    renameOne();
    const writer = setInterval(renameOne, 60);
    onTestFinished(() => clearInterval(writer));
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, action: 'cancel', timeout: 120, checkInterval: 10 }, { isNext: true });
    onTestFinished(() => s.stop());
    expect(await s.done, s.err.join('')).toBe(10);
    expect(requests(dir)).toEqual([expect.stringMatching(/t1__cancel\.cancel\.json$/)]);
    expect(readEvents(dir).filter((e) => e.event === 'input_error')).toEqual([]);
  });
});
