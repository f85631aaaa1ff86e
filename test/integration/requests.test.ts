// The request lifecycle (DESIGN §8, issue 9): a request is pending until the orchestrator answers it
// (a row for the recovery task, the same row reused, `ack`, a cancelled row turning terminal), and
// unanswered after its deadline; the loop watches while any is pending. In-process, on a manual clock.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { printStatus } from '../../src/commands/status.js';
import { StatePaths } from '../../src/files/paths.js';
import { foldHistory } from '../../src/core/history.js';
import { readDispatchLog } from '../../src/journal/dispatch-log.js';
import { loadHistory } from '../../src/journal/log-summary.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { readEvents, readWatchdogJson, writeWave, type RowSpec } from '../helpers/state.js';
import { comparableHistory } from '../../bench/history-compare.js';
import { tempDir } from '../helpers/temp-dir.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const S = 1000;
const EPIC = 'E-1';
const iso = (ms: number) => new Date(ms).toISOString();
const flags = (dir: string, extra: object = {}) => ({ epicId: EPIC, stateDir: dir, timeout: 60, checkInterval: 10, ...extra });
const events = (dir: string, name: string) => readEvents(dir).filter((e) => e.event === name);
const row = (taskId: string, atMs: number, extra: Partial<RowSpec> = {}): RowSpec => ({
  task_id: taskId,
  ticket_id: 'ENG-1',
  status: 'in_progress',
  dispatched_at: iso(atMs),
  last_activity_ts: iso(atMs),
  ...extra,
});
const requestJson = (dir: string, key: string, kind = 'redispatch') =>
  JSON.parse(readFileSync(path.join(dir, 'epics', EPIC, 'requests', `${key.replaceAll(':', '__')}.${kind}.json`), 'utf8')) as Record<string, any>;

/** Run the CLI in-process (for `ack`). */
async function cli(args: string[], clock: ManualClock) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main({
    argv: args,
    env: {},
    cwd: process.cwd(),
    output: { out: (t) => void out.push(t), err: (t) => void err.push(t) },
    watchDeps: { clock, signal: new AbortController().signal, pid: process.pid },
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('a pending request keeps the loop watching', () => {
  it('answered by a row for the recovery task: the replacement is watched, stalls and is recovered in turn', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0)]);
    const s = await startSession(clock, flags(dir));
    await s.advance(61 * S);
    const key = `${EPIC}:t1:redispatch`;
    expect(events(dir, 'redispatch')).toEqual([
      expect.objectContaining({ key, request_path: `epics/${EPIC}/requests/E-1__t1__redispatch.redispatch.json`, answer_by: '2026-04-02T10:03:00.050Z' }),
    ]);
    // The last task in flight was replaced by a request: the wave is not complete while it is pending.
    await s.advance(10 * S);
    expect(s.isDone()).toBe(false);
    expect(readWatchdogJson(dir, EPIC).tasks[0]).toMatchObject({ task_id: 't1', verdict: 'stalled' });
    expect(readWatchdogJson(dir, EPIC).requests).toEqual([expect.objectContaining({ key, status: 'pending', recovery_task_id: 't1-r1' })]);

    // The orchestrator stops t1 and adds t1-r1.
    writeWave(dir, EPIC, iso(T0), [row('t1', T0, { status: 'cancelled' }), row('t1-r1', T0 + 75 * S)]);
    await s.advance(10 * S);
    expect(events(dir, 'request_answered')).toEqual([
      expect.objectContaining({ key, kind: 'redispatch', how: 'row', task_id: 't1', recovery_task_id: 't1-r1', answered_by_task_id: 't1-r1' }),
    ]);
    // t1-r1 goes silent: it is watched like any row, and recovered.
    await s.advance(60 * S);
    expect(events(dir, 'redispatch').map((e) => e.key)).toEqual([key, `${EPIC}:t1-r1:redispatch`]);
    expect(s.isDone()).toBe(false);
    writeWave(dir, EPIC, iso(T0), [
      row('t1', T0, { status: 'cancelled' }),
      row('t1-r1', T0, { status: 'cancelled' }),
      row('t1-r2', T0, { status: 'completed' }),
    ]);
    await s.advance(10 * S);
    expect(await s.done).toBe(0);
    expect(events(dir, 'request_answered').map((e) => e.how)).toEqual(['row', 'row']);
    expect(readEvents(dir).at(-1)).toMatchObject({ event: 'watchdog_stopped', reason: 'wave_complete' });
  });

  it('answered by reusing the same row: the row carries the new instance (never "superseded") until it finishes', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0, { session_id: 's0' })]);
    const s = await startSession(clock, flags(dir));
    await s.advance(61 * S);
    // Same row, new session and the attempt number.
    writeWave(dir, EPIC, iso(T0), [row('t1', T0 + 70 * S, { session_id: 's1', redispatch_count: 1 })]);
    await s.advance(10 * S);
    expect(events(dir, 'request_answered')).toEqual([expect.objectContaining({ key: `${EPIC}:t1:redispatch`, how: 'row_reused', answered_by_task_id: 't1' })]);
    expect(readWatchdogJson(dir, EPIC).tasks).toEqual([
      expect.objectContaining({ task_id: 't1-r1', row_task_id: 't1', status: 'in_progress', verdict: 'healthy' }),
    ]);
    expect(s.isDone()).toBe(false);

    // The reused row stalls: the next request is about instance t1-r1 in row t1.
    await s.advance(60 * S);
    const key2 = `${EPIC}:t1-r1:redispatch`;
    expect(requestJson(dir, key2)).toMatchObject({ task_id: 't1-r1', row_task_id: 't1', recovery_task_id: 't1-r2', redispatch_attempt: 2, session_id: 's1' });
    // Only a new identity answers it: the same session with a newer activity is still the stalled agent.
    writeWave(dir, EPIC, iso(T0), [row('t1', T0 + 70 * S, { session_id: 's1', redispatch_count: 1 })]);
    await s.advance(10 * S);
    expect(events(dir, 'request_answered')).toHaveLength(1);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0 + 150 * S, { session_id: 's2', redispatch_count: 2, status: 'completed' })]);
    await s.advance(10 * S);
    expect(await s.done).toBe(0);
    expect(events(dir, 'request_answered').map((e) => [e.key, e.how])).toEqual([
      [`${EPIC}:t1:redispatch`, 'row_reused'],
      [key2, 'row_reused'],
    ]);
    // Nothing vanished: the row carries another instance, it was never lost (not even on a first read).
    expect(events(dir, 'state_rows_lost')).toEqual([]);

    // A start from the derived log summary knows the same requests and reused rows as a whole fold.
    const paths = new StatePaths(dir);
    const whole = foldHistory((await readDispatchLog(paths)).events, EPIC);
    expect(whole.rowInstance).toEqual(new Map([['t1', 't1-r2']]));
    for (const from of ['rebuilt', 'summary']) {
      const loaded = await loadHistory(paths, EPIC, { isWritable: true });
      expect(loaded.stats.from).toBe(from);
      expect(comparableHistory(loaded.history)).toEqual(comparableHistory(whole));
    }
  });

  it('answered with `dispatch-watchdog ack`: 0 answered, 0 already, 2 unknown key; the loop records it at its next check', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0)]);
    const s = await startSession(clock, flags(dir, { action: 'cancel' }));
    await s.advance(61 * S);
    const key = `${EPIC}:t1:cancel`;
    expect(requestJson(dir, key, 'cancel')).toMatchObject({
      key,
      kind: 'cancel',
      answer_by: '2026-04-02T10:03:00.050Z',
      how_to_answer: expect.stringContaining(`dispatch-watchdog ack ${key}`),
    });

    expect(await cli(['ack', `${EPIC}:t9:cancel`, '--state-dir', dir], clock)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`no request with key ${EPIC}:t9:cancel`),
    });
    expect(await cli(['ack', 'nonsense', '--state-dir', dir], clock)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('is not of the form <epic>:<task_id>:<cancel|redispatch|nudge|reconcile>'),
    });
    expect(await cli(['ack', key, '--state-dir', dir], clock)).toEqual({
      code: 0,
      stdout: `${key}: answered; the watchdog records it at its next check.\n`,
      stderr: '',
    });
    expect(await cli(['ack', key, '--state-dir', dir], clock)).toMatchObject({
      code: 0,
      stdout: `${key}: already acknowledged; the watchdog records it at its next check.\n`,
    });
    await s.advance(10 * S);
    expect(events(dir, 'request_answered')).toEqual([expect.objectContaining({ key, kind: 'cancel', how: 'ack' })]);
    // Answered and cancelled by our log: nothing left to watch.
    expect(await s.done).toBe(0);
    expect(await cli(['ack', key, '--state-dir', dir], clock)).toMatchObject({ code: 0, stdout: `${key}: already answered (ack); nothing to do.\n` });
  });
});

describe('a request nobody answers', () => {
  it('is logged once as unanswered, counts as a failed attempt, and ends in an escalation with a notice (not silence)', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0)]);
    const s = await startSession(clock, flags(dir));
    await s.advance(61 * S); // stalled when its deadline woke the loop (T0+60.05 s) → request 1, answer by T0+180.05 s
    expect(clock.nextWakeMs()).toBe(T0 + 70_050);
    for (let i = 0; i < 11; i++) await s.advance(10 * S);
    await s.advance(9 * S); // T0+180 s: not yet past
    expect(events(dir, 'request_unanswered')).toHaveLength(0);
    await s.advance(1 * S);
    expect(events(dir, 'request_unanswered')).toEqual([
      expect.objectContaining({ key: `${EPIC}:t1:redispatch`, kind: 'redispatch', task_id: 't1', recovery_task_id: 't1-r1' }),
    ]);
    // The replacement that never started is a failed attempt: attempt 2 is requested.
    expect(events(dir, 'stall_detected').at(-1)).toMatchObject({
      task_id: 't1-r1',
      stall_reason: 'request_unanswered',
      redispatch_attempt: 2,
      action_taken: 'redispatch',
    });
    expect(requestJson(dir, `${EPIC}:t1-r1:redispatch`)).toMatchObject({ recovery_task_id: 't1-r2', redispatch_attempt: 2 });
    // Nobody to stop: no cancel request for an agent that was never started.
    expect(existsSync(path.join(dir, 'epics', EPIC, 'requests', `${EPIC}__t1-r1__redispatch.cancel.json`))).toBe(false);

    for (let i = 0; i < 20 && !s.isDone(); i++) await s.advance(10 * S);
    expect(await s.done).toBe(0);
    expect(events(dir, 'request_unanswered').map((e) => e.key)).toEqual([`${EPIC}:t1:redispatch`, `${EPIC}:t1-r1:redispatch`]);
    const [esc] = events(dir, 'escalated_to_blocked');
    expect(esc).toMatchObject({ key: `${EPIC}:t1-r2:escalate`, attempt_count: 3, tracker: 'skipped' });
    const notice = JSON.parse(readFileSync(path.join(dir, 'epics', EPIC, 'requests', `${EPIC}__t1-r2__escalate.escalation.json`), 'utf8'));
    expect(notice).toMatchObject({
      kind: 'escalation',
      key: `${EPIC}:t1-r2:escalate`,
      ticket_id: 'ENG-1',
      needs_answer: false,
      friction_path: esc!.friction_path,
    });
    expect(readEvents(dir).at(-1)).toMatchObject({ event: 'watchdog_stopped', reason: 'wave_complete' });
  });

  it('--once shows it, in status too, and exits 3', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0 + 61 * S);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0)]);
    const first = await startSession(clock, flags(dir, { once: true, action: 'cancel' }));
    expect(await first.done).toBe(3);
    clock.advance(121 * S);
    const second = await startSession(clock, flags(dir, { once: true, action: 'cancel' }));
    expect(await second.done).toBe(3);
    const line = `  UNANSWERED cancel t1 (ENG-1), answer by 2026-04-02T10:03:01Z: epics/${EPIC}/requests/E-1__t1__cancel.cancel.json`;
    expect(second.out.join('')).toContain(line);
    expect(events(dir, 'request_unanswered')).toHaveLength(1);
    const out: string[] = [];
    await printStatus(new StatePaths(dir), EPIC, { isJson: false, nowMs: clock.nowMs() }, { out: (t) => void out.push(t), err: () => {} });
    expect(out.join('')).toContain(line);
    // Logged once: a third check does not log it again.
    const third = await startSession(clock, flags(dir, { once: true, action: 'cancel' }));
    await third.done;
    expect(events(dir, 'request_unanswered')).toHaveLength(1);
  });
});
