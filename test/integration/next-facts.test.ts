// What `next` says follows the facts: a row with a status the watchdog does not know is news for a
// person at once (attention, with the status meant), a replacement never started is not the agent
// to stop (the one still in its row is), and an escalated ticket counts as blocked, not in flight.
import { describe, expect, it } from 'vitest';
import { NextDocSchema, type NextDoc } from '../../src/contracts/next.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { writeWave, type RowSpec } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const EPIC = 'E-1';
const iso = (ms: number) => new Date(ms).toISOString();
const row = (taskId: string, ticketId: string, atMs: number, extra: Partial<RowSpec> = {}): RowSpec => ({
  task_id: taskId,
  ticket_id: ticketId,
  status: 'in_progress',
  dispatched_at: iso(atMs),
  last_activity_ts: iso(atMs),
  ...extra,
});

/** Run `next` (--json unless `isText`) until it exits, moving the clock 5 s at a time. */
async function next(clock: ManualClock, dir: string, isText = false): Promise<{ code: number; doc?: NextDoc; text: string; err: string }> {
  const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 5, json: !isText, maxRedispatches: 2 }, { isNext: true });
  for (let i = 0; i < 100 && !s.isDone(); i++) await s.advance(5000);
  const code = await s.done;
  const text = s.out.join('');
  return { code, text, err: s.err.join(''), ...(isText ? {} : { doc: NextDocSchema.parse(JSON.parse(text)) }) };
}

describe('next follows the facts', () => {
  it("a typo'd status returns attention at once (exit 13) with the status meant and what to do; it is counted apart, not in flight", async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    // A live agent keeps the wave open; the typo'd row is the news.
    writeWave(dir, EPIC, iso(T0), [row('t1', 'P-1', T0, { status: 'in-progress' }), row('t2', 'P-2', T0 + 3_600_000)]);
    const r = await next(clock, dir);
    expect(r.code).toBe(13);
    expect(r.doc!.reason).toBe('attention');
    expect(r.doc!.attention).toEqual([
      expect.objectContaining({
        kind: 'unknown_status',
        task_id: 't1',
        ticket_id: 'P-1',
        detail: expect.stringContaining('status "in-progress" is not one the watchdog knows (did you mean "in_progress"?'),
        what_to_do: expect.stringContaining('Nobody watches this agent'),
      }),
    ]);
    expect(r.doc!.wave).toEqual({ in_flight: 1, terminal: 0, blocked: 0, unknown_status: 1, pending_requests: 0 });
    expect(r.err).toContain('t1 (P-1) cannot be judged');
    // Told once: the next run waits on; a different status written is news again, said as text.
    writeWave(dir, EPIC, iso(T0), [row('t1', 'P-1', T0, { status: 'runing' }), row('t2', 'P-2', T0 + 3_600_000)]);
    const again = await next(clock, dir, true);
    expect(again.code).toBe(13);
    expect(again.text).toMatch(
      /^attention unknown_status E-1:t1:unknown_status@runing: status "runing" is not one the watchdog knows \(did you mean "running"\?.*Nobody watches this agent/m,
    );
    expect(again.text).toContain('wave E-1: 1 in flight, 0 terminal, 0 blocked, 1 with an unknown status (NOT watched), 0 requests pending\n');
  });

  it('a redispatch nobody answered: the next request names the agent still in the row to stop, not the replacement that never started; after the escalation the ticket counts as blocked', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [row('u1', 'ENG-1', T0), row('u2', 'ENG-2', T0 + 3_600_000), { task_id: 'u3', ticket_id: 'ENG-3', status: 'merged' }]);
    const first = await next(clock, dir);
    expect(first.doc!.requests).toEqual([expect.objectContaining({ task_id: 'u1', recovery_task_id: 'u1-r1' })]);
    expect(first.doc!.requests[0]!.stop_task_id).toBeUndefined();
    // Nobody answers: the replacement u1-r1 never starts, and the next request is about it.
    const second = await next(clock, dir, true);
    expect(second.code).toBe(10);
    expect(second.text).toMatch(
      /^request redispatch E-1:u1-r1:redispatch: stop u1 \(ENG-1\) if it still runs \(u1-r1 was never started\), launch u1-r2 with the prompt in the file; .*: Stop the agent of row u1 if it still runs \(u1-r1 was never started\), launch a fresh one with `prompt`, then either add a row with task_id u1-r2 \(and set row u1 to cancelled\), or run `dispatch-watchdog ack E-1:u1-r1:redispatch \[--task-id ID\]`\./m,
    );
    expect(second.text).not.toMatch(/stop u1-r1|row u1-r1/);
    // Nobody answers again: the ticket reaches its cap and is escalated; it is blocked, not in flight.
    const third = await next(clock, dir);
    expect(third.doc!.escalations).toEqual([expect.objectContaining({ ticket_id: 'ENG-1', task_id: 'u1-r2', tracker: 'skipped' })]);
    expect(third.doc!.wave).toEqual({ in_flight: 1, terminal: 3, blocked: 1, unknown_status: 0, pending_requests: 0 });
  });
});
