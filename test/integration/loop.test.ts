import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvents, readWatchdogJson, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startWatch, type Harness } from '../helpers/watch-harness.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const S = 1000;

const names = (dir: string) => readEvents(dir).map((e) => `${e.event}${e.task_id ? ':' + e.task_id : ''}`);

describe('the watch loop (report mode)', () => {
  it('re-reads the state file each check, logs changes not ticks, and stops when every task is terminal', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', iso(T0), [
      { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) },
      { task_id: 't2', ticket_id: 'P-2', status: 'in_progress', last_activity_ts: iso(T0) },
    ]);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', timeout: 120, checkInterval: 30 }, T0);
    expect(names(dir)).toEqual(['watchdog_started', 'healthy:t1', 'healthy:t2']);

    // Ticks while healthy add no lines.
    await h.advance(30 * S);
    await h.advance(30 * S);
    expect(names(dir)).toHaveLength(3);

    // t2 keeps working (the orchestrator updates its row); t1 goes silent and stalls.
    writeWave(dir, 'E-1', iso(T0), [
      { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) },
      { task_id: 't2', ticket_id: 'P-2', status: 'in_progress', last_activity_ts: iso(T0 + 100 * S) },
    ]);
    await h.advance(61 * S); // T0+121s: woken at the deadline, T0+120.001s
    expect(names(dir).slice(3)).toEqual(['stall_detected:t1']);
    const stall = readEvents(dir)[3]!;
    expect(stall).toMatchObject({
      ticket_id: 'P-1',
      agent_id: 't1',
      stall_reason: 'inactivity',
      idle_seconds: 120,
      bash_timeout_exemption: false,
      redispatch_attempt: 1,
      max_redispatches: 2,
      action_taken: 'report',
    });
    const doc = readWatchdogJson(dir, 'E-1');
    expect(doc.stalls_detected).toHaveLength(1);
    expect(doc.healthy_tasks).toEqual(['t2']);

    // Still stalled: nothing new. Then it recovers: one healthy line with recovered.
    await h.advance(30 * S);
    expect(names(dir)).toHaveLength(4);
    writeWave(dir, 'E-1', iso(T0), [
      { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0 + 150 * S) },
      { task_id: 't2', ticket_id: 'P-2', status: 'in_progress', last_activity_ts: iso(T0 + 150 * S) },
    ]);
    await h.advance(30 * S);
    expect(readEvents(dir).at(-1)).toMatchObject({ event: 'healthy', task_id: 't1', recovered: true });

    // Everything terminal: the loop stops by itself.
    writeWave(dir, 'E-1', iso(T0), [
      { task_id: 't1', ticket_id: 'P-1', status: 'merged' },
      { task_id: 't2', ticket_id: 'P-2', status: 'failed' },
    ]);
    await h.advance(30 * S);
    expect(await h.done).toBe(0);
    expect(readEvents(dir).at(-1)).toMatchObject({ event: 'watchdog_stopped', reason: 'wave_complete' });
  });

  it('wakes at the earliest stall deadline, not only every check interval', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0 - 100 * S) }]);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', timeout: 120, checkInterval: 600 }, T0);
    // Deadline = T0-100s+120s = T0+20s; a stall is idle > window, so one ms later.
    expect(h.clock.nextWakeMs()).toBe(T0 + 20 * S + 1);
    await h.advance(20 * S + 1);
    expect(names(dir).at(-1)).toBe('stall_detected:t1');
    h.stop();
    await h.done;
  });

  it('logs one input_error per distinct problem, keeps checking, and never overwrites watchdog.json with garbage', async () => {
    const dir = tempDir();
    const file = writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) }]);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', timeout: 120, checkInterval: 10 }, T0);
    const good = readFileSync(file.replace('state.yaml', 'watchdog.json'), 'utf8');

    writeFileSync(file, 'current_wave:\n  tasks: [\n'); // an orchestrator mid-write
    await h.advance(10 * S);
    await h.advance(10 * S);
    await h.advance(10 * S);
    writeFileSync(file, 'current_wave:\n  tasks:\n    - ticket_id: P-1\n      pid: "many"\n');
    await h.advance(10 * S);
    await h.advance(10 * S);
    const errors = readEvents(dir).filter((e) => e.event === 'input_error');
    expect(errors.map((e) => e.code)).toEqual(['yaml_syntax', 'wrong_type']);
    expect(errors[1]!.message).toContain('state.yaml:4:12 current_wave.tasks[0].pid: expected number, got "many".');
    expect(readFileSync(file.replace('state.yaml', 'watchdog.json'), 'utf8')).toBe(good);
    expect(h.err.join('')).toContain('(still watching)');

    writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'completed' }]);
    await h.advance(10 * S);
    expect(await h.done).toBe(0);
  });

  it('a check that fails for another reason (a file it cannot write) is reported once and the loop keeps watching', async () => {
    const dir = tempDir();
    const file = writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) }]);
    const jsonPath = file.replace('state.yaml', 'watchdog.json');
    mkdirSync(path.join(jsonPath, 'blocker'), { recursive: true }); // watchdog.json cannot be replaced now
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', checkInterval: 10 }, T0);
    await h.advance(10 * S);
    await h.advance(10 * S);
    expect(h.err.filter((l) => l.includes('a check failed'))).toHaveLength(1);
    rmSync(jsonPath, { recursive: true });
    writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'completed' }]);
    await h.advance(10 * S);
    expect(await h.done).toBe(0);
    expect(readWatchdogJson(dir, 'E-1').summary.terminal).toBe(1);
  });

  it('on a signal, finishes the check, writes watchdog_stopped and exits 0', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) }]);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report' }, T0);
    h.stop('SIGINT');
    expect(await h.done).toBe(0);
    expect(readEvents(dir).at(-1)).toMatchObject({ event: 'watchdog_stopped', reason: 'signal', signal: 'SIGINT', checks: 1 });
  });

  it('after a restart it does not log the same healthy task again', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) }]);
    for (let i = 0; i < 2; i++) {
      const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report' }, T0 + i * S);
      h.stop();
      await h.done;
    }
    expect(names(dir).filter((n) => n === 'healthy:t1')).toHaveLength(1);
  });
});

describe('time the process stood still in a check', () => {
  it("is no one's silence either: a pause the pause meter saw, the loop on time, moves the stall on by as much", async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) }]);
    let lost = 0;
    const meter = {
      read: () => {
        const ms = lost;
        lost = 0;
        return ms;
      },
      stop: () => undefined,
    };
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', timeout: 120, checkInterval: 30 }, T0, { makePauseMeter: () => meter });
    await h.advance(90 * S);
    // The process stood still 30 s inside a check (the wake after it was on time).
    lost = 30 * S;
    await h.advance(40 * S); // T0+130 s: 130 s by the clock, 100 s of it watched
    const stalls = () => readEvents(dir).filter((e) => e.event === 'stall_detected');
    expect(stalls()).toEqual([]);
    expect(readWatchdogJson(dir, 'E-1').tasks[0].reason).toContain('30s of it the watchdog did not see pass');
    await h.advance(21 * S);
    expect(stalls()).toEqual([expect.objectContaining({ task_id: 't1', idle_seconds: 150 })]);
    h.stop();
    await h.done;
  });
});

describe("the watch loop's sleep", () => {
  it('goes through makeIdle when the deps give one (the busy-wave sleep of real runs), made from the clock', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) }]);
    const idles: number[] = [];
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', timeout: 120, checkInterval: 30 }, T0, {
      makeIdle: (sleep) => (ms, signal) => (idles.push(ms), sleep(ms, signal)),
    });
    await h.advance(30 * S);
    await h.advance(30 * S);
    expect(idles).toEqual([30 * S, 30 * S, 30 * S]);
    h.stop();
    await h.done;
  });
});

describe('the watch loop with actions', () => {
  it("after the machine slept, the time asleep is no one's silence: a stall is acted on once a window of it was watched", async () => {
    const { realActionDeps } = await import('../../src/wiring.js');
    const dir = tempDir();
    writeWave(dir, 'E-1', iso(T0), [
      { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) },
      { task_id: 't2', ticket_id: 'P-2', status: 'in_progress', last_activity_ts: iso(T0) },
    ]);
    // The adapters share the harness's manual clock (created inside startWatch, so reached lazily).
    let h: Harness | undefined;
    const clock = { nowMs: () => (h ? h.clock.nowMs() : T0), sleep: (ms: number, s?: AbortSignal) => h!.clock.sleep(ms, s) };
    h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'redispatch', checkInterval: 30 }, T0, realActionDeps({ clock, env: {} }));
    // The machine slept for 10 minutes (the clock jumps; the loop wakes 570 s late): t1 has been
    // silent 600 s by the clock, 30 s of it watched.
    writeWave(dir, 'E-1', iso(T0), [
      { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) },
      { task_id: 't2', ticket_id: 'P-2', status: 'in_progress', last_activity_ts: iso(T0 + 599 * S) },
    ]);
    h.clock.advance(600 * S);
    await new Promise((r) => setImmediate(r));
    await h.settled();
    const t1 = () =>
      readEvents(dir)
        .filter((e) => e.task_id === 't1')
        .map((e) => `${e.event}${e.action_taken ? ':' + e.action_taken : ''}`);
    expect(t1()).toEqual(['healthy']);
    expect(readWatchdogJson(dir, 'E-1').healthy_tasks).toContain('t1');
    // Watched silence reaches the window 90 s later: then it is a stall, acted on at once.
    await h.advance(89 * S);
    expect(t1()).toEqual(['healthy']);
    writeWave(dir, 'E-1', iso(T0), [
      { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) },
      { task_id: 't2', ticket_id: 'P-2', status: 'in_progress', last_activity_ts: iso(T0 + 688 * S) },
    ]);
    await h.advance(3 * S);
    expect(t1()).toEqual(['healthy', 'stall_detected:redispatch', 'action_started', 'agent_killed', 'redispatch']);
    const stall = readEvents(dir).find((e) => e.event === 'stall_detected')!;
    expect(stall.reason).toContain('570s of it the watchdog did not see pass');
    h.stop();
    await h.done;
  });
});
