// OWNER_RECONCILE for a row that says terminal while its agent still runs (issue 20 item 3): the
// row says completed, its agent's process (a real child process) is alive past the reconcile grace;
// a `reconcile` request says what disagrees and how to answer, `next` returns attention (13), and
// nothing is stopped. Once the process is gone the row and the agent agree: the request is
// answered (resolved) and the wave completes. In-process, on a manual clock.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { nextOnClock } from '../helpers/session.js';
import { spawnFixture } from '../helpers/spawn-fixture.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';
const S = 1000;
const T0 = Date.parse('2026-04-02T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const events = (dir: string, name: string) => readEvents(dir).filter((e) => e.event === name);

const next = (clock: ManualClock, dir: string) => nextOnClock(clock, dir, EPIC, 30);

describe('a row that says completed while its agent still runs', () => {
  it('is a reconcile request after the grace (attention), never a stop; the agent ending answers it', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0 + 3 * S);
    const agent = await spawnFixture('sleep-forever.mjs');
    writeWave(dir, EPIC, iso(T0), [{ task_id: 't1', ticket_id: 'ENG-1', status: 'completed', dispatched_at: iso(T0), pid: agent.pid }]);

    const first = await next(clock, dir);
    expect(first.code).toBe(13);
    expect(first.doc.reason).toBe('attention');
    const key = `${EPIC}:t1:reconcile`;
    expect(first.doc.requests).toEqual([expect.objectContaining({ kind: 'reconcile', key, disagreement: 'agent_running', row_status: 'completed', pid: agent.pid })]);
    expect(first.doc.requests[0].what_disagrees).toBe(`the row says "completed" but its agent is still running: its process ${agent.pid} is alive and nothing says it finished`);
    expect(first.doc.requests[0].how_to_answer).toMatch(/^Row t1 says its work is over but its agent is still at work: if the work goes on, set row t1 back to in_progress; if the row is right, stop the agent yourself \(the watchdog never does\)/);
    expect(events(dir, 'truth_inconsistent')).toEqual([expect.objectContaining({ task_id: 't1' })]);
    expect(events(dir, 'action_started').map((e) => e.action)).toEqual(['reconcile']);
    expect(agent.child.exitCode).toBeNull(); // never stopped by the watchdog

    // The agent ends: the row was right after all; the request is answered and the wave completes.
    agent.child.kill('SIGKILL');
    await agent.exited;
    const second = await next(clock, dir);
    expect(second.code).toBe(0);
    expect(second.doc.reason).toBe('wave_complete');
    expect(events(dir, 'request_answered')).toEqual([expect.objectContaining({ key, kind: 'reconcile', how: 'resolved' })]);
  });

  it('a completed row whose process is gone is simply terminal: the wave completes at once', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0 + 3 * S);
    const agent = await spawnFixture('sleep-forever.mjs');
    agent.child.kill('SIGKILL');
    await agent.exited;
    writeWave(dir, EPIC, iso(T0), [{ task_id: 't1', ticket_id: 'ENG-1', status: 'completed', dispatched_at: iso(T0), pid: agent.pid }]);
    const { code } = await next(clock, dir);
    expect(code).toBe(0);
    expect(events(dir, 'reconcile_requested')).toEqual([]);
    expect(clock.nowMs() - (T0 + 3 * S)).toBeLessThan(60 * S);
  });
});
