// A wave nothing changed stays the same object through every stage a check derives it by (issue
// 23): what is built from a wave (tasks by id, rows of agents) is then built once, and two reads
// that are one object compare without a pass over their rows. A stage that does change a task
// still changes it, and only it.
import { describe, expect, it } from 'vitest';
import type { DispatchEvent } from '../../src/contracts/events.js';
import type { Task, Wave } from '../../src/contracts/state-file.js';
import { emptyHistory, foldHistory } from '../../src/core/history.js';
import { overlayWave } from '../../src/core/overlay.js';
import { carryActivityForward, compareReads } from '../../src/core/read-diff.js';
import { applyRowOutputProgress } from '../../src/core/row-output.js';
import { guardRows } from '../../src/core/row-trust.js';
import { agentRows, tasksById, withTasks } from '../../src/core/wave-index.js';
import { makeTask, T0 } from '../helpers/builders.js';

const waveOf = (tasks: Task[]): Wave => ({ shape: 'current_wave', waveId: '1', tasks }) as Wave;
const rows = () =>
  waveOf(
    [0, 1, 2].map((k) =>
      makeTask({ taskId: `t${k}`, ticketId: `P-${k}`, agentId: `a${k}`, lastActivityMs: T0 + k, lastOutput: `out ${k}`, raw: { task_id: `t${k}` } }),
    ),
  );
const env = { timestamp_utc: '2026-04-02T10:00:00Z', epic_id: 'E-1', run_id: 'r' };

describe('a steady wave keeps its identity', () => {
  it('withTasks gives the wave itself for its own tasks, and a new wave for any other task or order', () => {
    const w = rows();
    expect(withTasks(w, [...w.tasks])).toBe(w);
    const swapped = withTasks(w, [w.tasks[1]!, w.tasks[0]!, w.tasks[2]!]);
    expect(swapped).not.toBe(w);
    expect(swapped.waveId).toBe('1');
    expect(withTasks(w, w.tasks.slice(0, 2)).tasks).toHaveLength(2);
  });

  it('each stage gives back the wave it was given when it changes no task', () => {
    const w = rows();
    expect(guardRows(w, w, new Map(), T0, 1000).wave).toBe(w);
    expect(carryActivityForward(w, w)).toBe(w);
    expect(carryActivityForward(rows(), w)).toBe(w);
    const seen = new Map();
    expect(applyRowOutputProgress(w, seen, T0)).toBe(w);
    expect(applyRowOutputProgress(w, seen, T0 + 1000)).toBe(w);
    expect(overlayWave(w, emptyHistory(), 'E-1', '/s', new Map())).toBe(w);
    expect(compareReads(w, w)).toEqual({ vanished: [], fieldsLost: [] });
  });

  it('a stage that derives a task every check hands on the same wave while it derives the same tasks', () => {
    // A watching run takes a row's last_output, first seen, as activity at that sight: the row
    // becomes a derived task, every check. The wave it hands on must stay one object too, or
    // everything keyed by it (tasks by id, the comparison of two reads) is built again each check.
    const w = rows();
    const seen = new Map();
    const a = applyRowOutputProgress(w, seen, T0 + 60_000, true);
    expect(a).not.toBe(w);
    expect(a.tasks[0]).toMatchObject({ taskId: 't0', lastActivityMs: T0 + 60_000 });
    const b = applyRowOutputProgress(w, seen, T0 + 62_000, true);
    expect(b).toBe(a);
    expect(tasksById(b.tasks)).toBe(tasksById(a.tasks));
    // A change of one row's text still makes a new wave, with that row's new time.
    const changed = waveOf(w.tasks.map((t, i) => (i === 1 ? { ...t, lastOutput: 'further on' } : t)));
    const c = applyRowOutputProgress(changed, seen, T0 + 64_000, true);
    expect(c).not.toBe(a);
    expect(c.tasks[1]).toMatchObject({ taskId: 't1', lastActivityMs: T0 + 64_000 });
    expect(c.tasks[0]).toBe(a.tasks[0]);
    // And a wave given other tasks than last time is another wave.
    expect(withTasks(w, [w.tasks[2]!])).not.toBe(withTasks(w, [w.tasks[1]!]));
  });

  it('carrying activity forward answers a second ask with the same two waves from memory, and another pair anew', () => {
    // The judged wave of the last check carries a later activity time for t1 than the row read now.
    // Its rows counted as they are read: the remembered answer reads none.
    let reads = 0;
    const plain = rows();
    const w = waveOf(new Proxy(plain.tasks, { get: (t, k, r) => (reads++, Reflect.get(t, k, r)) }));
    const judged = waveOf(plain.tasks.map((t, i) => (i === 1 ? { ...t, lastActivityMs: T0 + 5_000 } : t)));
    const a = carryActivityForward(judged, w);
    expect(reads).toBeGreaterThan(0);
    expect(a).not.toBe(w);
    expect(a.tasks[1]).toMatchObject({ taskId: 't1', lastActivityMs: T0 + 5_000 });
    expect(a.tasks[0]).toBe(w.tasks[0]);
    // The same pair: the same wave, not a visit of every row (a steady check at 10,000 agents).
    reads = 0;
    expect(carryActivityForward(judged, w)).toBe(a);
    expect(reads).toBe(0);
    // Another judged wave with the same read: its own answer, not the remembered one.
    const later = waveOf(w.tasks.map((t, i) => (i === 2 ? { ...t, lastActivityMs: T0 + 9_000 } : t)));
    const b = carryActivityForward(later, w);
    expect(b.tasks[1]).toBe(w.tasks[1]);
    expect(b.tasks[2]).toMatchObject({ taskId: 't2', lastActivityMs: T0 + 9_000 });
    expect(carryActivityForward(judged, w).tasks[1]).toMatchObject({ lastActivityMs: T0 + 5_000 });
  });

  it('the overlay still changes the task our own log acted on, and no other', () => {
    const w = rows();
    const done = [
      { ...env, event: 'action_started', ticket_id: 'P-1', task_id: 't1', agent_id: 'a1', key: 'E-1:t1:cancel', action: 'cancel' },
      { ...env, event: 'agent_killed', ticket_id: 'P-1', task_id: 't1', agent_id: 'a1', key: 'E-1:t1:cancel' },
      // Another epic's action on a task of the same id changes nothing here.
      { ...env, epic_id: 'E-2', event: 'action_started', ticket_id: 'P-2', task_id: 't2', agent_id: 'a2', key: 'E-2:t2:cancel', action: 'cancel' },
    ] as DispatchEvent[];
    const out = overlayWave(w, foldHistory(done, 'E-1'), 'E-1', '/s', new Map());
    expect(out).not.toBe(w);
    expect(out.tasks[0]).toBe(w.tasks[0]);
    expect(out.tasks[1]).toMatchObject({ taskId: 't1', status: 'cancelled', statusClass: 'terminal' });
    expect(out.tasks[2]).toBe(w.tasks[2]);
  });

  it('a row carried as a reused instance is the same task object from one check to the next', () => {
    const w = rows();
    const h = foldHistory(
      [
        {
          ...env,
          event: 'redispatch_requested',
          ticket_id: 'P-0',
          task_id: 't0',
          agent_id: 'a0',
          key: 'E-1:t0:redispatch',
          recovery_task_id: 't0-r1',
          answer_by: '2026-04-02T10:05:00Z',
          path: 'requests/x.json',
        } as unknown as DispatchEvent,
      ],
      'E-1',
    );
    h.rowInstance.set('t0', 't0-r1');
    const a = overlayWave(w, h, 'E-1', '/s', new Map());
    const b = overlayWave(w, h, 'E-1', '/s', new Map());
    expect(a.tasks[0]).toMatchObject({ taskId: 't0-r1', rowTaskId: 't0' });
    expect(b.tasks[0]).toBe(a.tasks[0]);
  });

  it("tasks by id and agents' rows are built once per tasks array, as a Map of them would be", () => {
    const w = rows();
    const byId = tasksById(w.tasks);
    expect(tasksById(w.tasks)).toBe(byId);
    expect([...byId.keys()]).toEqual(['t0', 't1', 't2']);
    expect(byId.get('t1')).toBe(w.tasks[1]);
    const terminal = waveOf([...w.tasks, makeTask({ taskId: 't3', agentId: 'a3', status: 'merged', statusClass: 'terminal' })]);
    expect([...agentRows(terminal.tasks)]).toEqual([
      ['a0', 't0'],
      ['a1', 't1'],
      ['a2', 't2'],
    ]);
  });
});
