// No verdict before evidence (issue 33 item 2): a row's first-seen last_output proves nothing
// about output growth, so it is never reported stalled, in any --action, until it was watched
// for its window; such a stall is acted on at that deadline (not a check interval later) and its
// line says the action taken; a held action, once taken, gets a line of its own; and a human
// wait's limit wakes the loop. In-process, on a manual clock.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assistant, jsonl, toolUse, user } from '../helpers/claude-lines.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { readEvents, writeWave, type RowSpec } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const S = 1000;
const EPIC = 'E1';
const iso = (ms: number) => new Date(ms).toISOString();
const PAST = T0 - 29_246_490 * S; // the row: last activity long ago, output moving now
const row = (extra: Partial<RowSpec> = {}): RowSpec => ({
  task_id: 't1',
  ticket_id: 'ENG-1',
  status: 'in_progress',
  dispatched_at: iso(PAST),
  last_activity_ts: iso(PAST),
  ...extra,
});
const stalls = (dir: string) => readEvents(dir).filter((e) => e.event === 'stall_detected');

describe('a row whose last_output is seen for the first time', () => {
  it('next --action report: an output that changes every second is never stalled; once it holds still for the window, it is (exit 13)', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(PAST), [row({ last_output: 'line 0' })]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 3, checkInterval: 30, action: 'report', json: true }, { isNext: true });
    let lastWriteMs = T0;
    for (let i = 1; i <= 8; i++) {
      writeWave(dir, EPIC, iso(PAST), [row({ last_output: `line ${i}` })]);
      lastWriteMs = clock.nowMs();
      await s.advance(S);
    }
    expect(s.isDone()).toBe(false);
    expect(stalls(dir)).toEqual([]);
    // The text stops changing: stalled one window after the last check that saw it change.
    for (let i = 0; i < 10 && !s.isDone(); i++) await s.advance(S);
    expect(await s.done).toBe(13);
    const [stall] = stalls(dir);
    expect(stall).toMatchObject({ task_id: 't1', action_taken: 'report' });
    expect(Date.parse(String(stall!.timestamp_utc)) - lastWriteMs).toBeLessThanOrEqual(6 * S);
    expect(stall!.idle_seconds).toBeLessThan(10);
  });

  it('the loop (redispatch): an unchanged last_output is acted on one window after its first sight, and the line says the action taken', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(PAST), [row({ last_output: 'waiting' })]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 5, checkInterval: 30 });
    expect(stalls(dir)).toEqual([]);
    await s.advance(6 * S);
    expect(stalls(dir)).toEqual([expect.objectContaining({ task_id: 't1', action_taken: 'redispatch', timestamp_utc: iso(T0 + 5 * S + 1) })]);
    expect(
      readEvents(dir)
        .filter((e) => e.event === 'action_started')
        .map((e) => e.action),
    ).toContain('redispatch');
    s.stop();
    await s.done;
  });

  it('--once still judges by time alone: it has one sight only', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(PAST), [row({ last_output: 'waiting' })]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 5, checkInterval: 30, action: 'report', once: true });
    expect(await s.done).toBe(3);
  });
});

describe('an action held for a second look', () => {
  it('gets a stall_detected line of its own when it is finally taken', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), last_activity_ts: iso(T0), branch: 'eng-1' },
    ]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 5, checkInterval: 10 });
    await s.advance(2 * S);
    // The row loses a field as it stalls: held as last trusted until later reads confirm it.
    writeWave(dir, EPIC, iso(T0), [{ task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), last_activity_ts: iso(T0) }]);
    for (let i = 0; i < 6; i++) await s.advance(10 * S);
    const lines = stalls(dir)
      .filter((e) => e.task_id === 't1')
      .map((e) => e.action_taken);
    expect(lines[0]).toBe('held:unconfirmed_read');
    expect(lines.at(-1)).toBe('redispatch');
    expect(lines).toHaveLength(2);
    s.stop();
    await s.done;
  });
});

describe('a human wait', () => {
  it('its limit is a wake-up: the attention is logged at the limit, not a check interval later', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'watchdog.config.yaml'), JSON.stringify({ attention: { human_wait_seconds: 60 } }));
    const at = (s: number) => ({ timestamp: iso(T0 + s * S), sessionId: 's-1' });
    const transcript = path.join(dir, 's-1.jsonl');
    writeFileSync(
      transcript,
      jsonl(user(0, 'Fix ENG-1', at(0)), assistant(1, [toolUse('tu1', 'AskUserQuestion', { questions: [{ question: 'Which name?' }] })], at(1))),
    );
    writeWave(dir, EPIC, iso(T0), [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-1', transcript_path: transcript },
    ]);
    const clock = new ManualClock(T0 + 2 * S);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 25 }, { claudeConfigDir: path.join(dir, 'claude') });
    await s.advance(70 * S);
    const attention = readEvents(dir).filter((e) => e.event === 'attention_needed');
    expect(attention).toEqual([expect.objectContaining({ kind: 'human_wait', task_id: 't1' })]);
    expect(Date.parse(String(attention[0]!.timestamp_utc))).toBeLessThan(T0 + 63 * S);
    expect(readFileSync(transcript, 'utf8')).toContain('AskUserQuestion');
    s.stop();
    await s.done;
  });
});
