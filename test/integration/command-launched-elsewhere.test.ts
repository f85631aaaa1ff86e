// The command adapter's replacement launched elsewhere (issue 33 item 4): a redispatch command that
// hands the replacement to another runner and exits 0 leaves no process here. The replacement is
// awaited like a request: the wave is not complete while it waits; a row listing it answers it
// and it is watched from there; an answer-by that passes counts as a failed attempt (the usual
// unanswered path). `next` never asks the lead to launch it again. In-process, on a manual clock.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const S = 1000;
const EPIC = 'E-CMD';
const iso = (ms: number) => new Date(ms).toISOString();
const PAST = T0 - 600 * S;

function setup() {
  const dir = tempDir();
  // Both commands succeed and start nothing on this machine (the replacement goes to another runner).
  const ok = [process.execPath, '-e', '0'];
  writeFileSync(
    path.join(dir, 'watchdog.config.yaml'),
    stringify({ agents: { adapter: 'command', cancel_argv: [...ok], redispatch_argv: [...ok] }, requests: { deadline_seconds: 60 } }),
  );
  writeWave(dir, EPIC, iso(PAST), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: iso(PAST), last_activity_ts: iso(PAST) }]);
  return dir;
}
const events = (dir: string, name: string) => readEvents(dir).filter((e) => e.event === name);

describe('a replacement the command launched elsewhere', () => {
  it('keeps the wave open until a row lists it, then is watched from that row', async () => {
    const dir = setup();
    const clock = new ManualClock(T0);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 5, checkInterval: 10 });
    for (let i = 0; i < 4 && events(dir, 'redispatch').length === 0; i++) await s.advance(10 * S);
    expect(events(dir, 'redispatch')).toEqual([
      expect.objectContaining({ task_id: 't1', recovery_task_id: 't1-r1', adapter: 'command', answer_by: expect.any(String) }),
    ]);
    for (let i = 0; i < 3; i++) await s.advance(10 * S);
    expect(s.isDone()).toBe(false); // was: "wave complete" a second after the launch
    writeWave(dir, EPIC, iso(PAST), [
      { task_id: 't1', ticket_id: 'P-1', status: 'cancelled', dispatched_at: iso(PAST) },
      { task_id: 't1-r1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: iso(clock.nowMs()), last_activity_ts: iso(clock.nowMs()) },
    ]);
    await s.advance(10 * S);
    expect(events(dir, 'request_answered')).toEqual([expect.objectContaining({ key: `${EPIC}:t1:redispatch`, how: 'row' })]);
    // The replacement's row is judged like any other: it stalls after its window.
    for (let i = 0; i < 3 && events(dir, 'stall_detected').length < 2; i++) await s.advance(10 * S);
    expect(events(dir, 'stall_detected').map((e) => e.task_id)).toEqual(['t1', 't1-r1']);
    s.stop();
    await s.done;
  });

  it('unlisted past its answer-by: a failed attempt, as an unanswered request; next reports that (11), never asks for the launch (10)', async () => {
    const dir = setup();
    const clock = new ManualClock(T0);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 5, checkInterval: 10, json: true }, { isNext: true });
    for (let i = 0; i < 12 && !s.isDone(); i++) await s.advance(10 * S);
    expect(await s.done).toBe(11);
    const doc = JSON.parse(s.out.join(''));
    expect(doc.requests).toEqual([]);
    expect(doc.unanswered).toEqual([expect.objectContaining({ key: `${EPIC}:t1:redispatch`, recovery_task_id: 't1-r1' })]);
    expect(events(dir, 'request_unanswered')).toEqual([expect.objectContaining({ key: `${EPIC}:t1:redispatch` })]);
  });
});
