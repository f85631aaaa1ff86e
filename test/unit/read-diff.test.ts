import { describe, expect, it } from 'vitest';
import { parseStateFile, type Task, type Wave } from '../../src/contracts/state-file.js';
import type { Verdict } from '../../src/core/assess.js';
import { foldHistory } from '../../src/core/history.js';
import { planCheck } from '../../src/core/plan.js';
import { carryActivityForward, compareReads, keepUnchangedRows } from '../../src/core/read-diff.js';
import { readSaysWaveDone } from '../../src/check.js';
import { recoveryTaskId } from '../../src/contracts/ids.js';
import { makeTask, T0 } from '../helpers/builders.js';

const wave = (text: string): Wave => {
  const r = parseStateFile(text, 'state.yaml');
  if (!r.ok) throw r.error;
  return r.value;
};
const full = `current_wave:
  wave_id: 1
  dispatched_at: "2026-04-02T09:00:00Z"
  tasks:
    - { task_id: t1, ticket_id: P-1, status: in_progress, last_activity_ts: "2026-04-02T10:00:00Z" }
    - { task_id: t2, ticket_id: P-2, status: in_progress, pid: 42, last_activity_ts: "2026-04-02T10:00:00Z" }
    - { task_id: t3, ticket_id: P-3, status: merged }
`;

describe('keepUnchangedRows', () => {
  it('keeps the task object of every row a rewrite left as it was, and only those', () => {
    const before = wave(full);
    const after = wave(full.replace('pid: 42', 'pid: 43'));
    const kept = keepUnchangedRows(before, after);
    expect(kept.tasks[0]).toBe(before.tasks[0]);
    expect(kept.tasks[1]).toBe(after.tasks[1]);
    expect(kept.tasks[1]!.pid).toBe(43);
    expect(kept.tasks[2]).toBe(before.tasks[2]);
    expect(kept).toEqual(after);
    // A field added to a row is a change too.
    const added = keepUnchangedRows(before, wave(full.replace('status: merged', 'status: merged, pr_url: x')));
    expect(added.tasks[2]).not.toBe(before.tasks[2]);
  });
});

describe('compareReads', () => {
  it('names in-flight rows that vanished and fields an in-flight row lost', () => {
    const torn = wave(`current_wave:\n  wave_id: 1\n  tasks:\n    - { task_id: t2, ticket_id: P-2, status: in_progress }\n`);
    expect(compareReads(wave(full), torn)).toEqual({ vanished: ['t1'], fieldsLost: [{ task_id: 't2', fields: ['last_activity_ts', 'pid'] }] });
  });

  it('a finished row that vanishes, or a new wave, is not a loss', () => {
    const next = wave(
      `current_wave:\n  wave_id: 1\n  tasks:\n    - { task_id: t1, ticket_id: P-1, status: in_progress, last_activity_ts: "2026-04-02T10:00:00Z" }\n    - { task_id: t2, ticket_id: P-2, status: in_progress, pid: 42, last_activity_ts: "2026-04-02T10:00:00Z" }\n`,
    );
    expect(compareReads(wave(full), next)).toEqual({ vanished: [], fieldsLost: [] });
    expect(compareReads(wave(full), wave(`current_wave:\n  wave_id: 2\n  tasks: []\n`))).toEqual({ vanished: [], fieldsLost: [] });
  });
});

describe('compareReads with reused rows and never-started replacements', () => {
  const raw = { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', pid: 7 };
  const row = makeTask({ raw });
  const reused = makeTask({ taskId: 't1-r1', rowTaskId: 't1', raw: { ...raw, pid: 8 } });
  const unstarted = makeTask({ taskId: 't1-r1', raw: undefined, unansweredRequest: { key: 'E:t1:redispatch', createdAtMs: T0, answerByMs: T0 + 1 } });
  const w = (...tasks: Task[]): Wave => ({ shape: 'current_wave', tasks });

  it('a row that now carries the replacement instance (t1-r1 in row t1) did not vanish, either way round', () => {
    expect(compareReads(w(row), w(reused))).toEqual({ vanished: [], fieldsLost: [] });
    expect(compareReads(w(reused), w(row))).toEqual({ vanished: [], fieldsLost: [] });
  });

  it('a replacement asked for and never started is no row: it neither vanishes nor hides the row named like it', () => {
    const rowR1 = makeTask({ taskId: 't1-r2', rowTaskId: 't1-r1', raw: { ...raw, task_id: 't1-r1' } });
    expect(compareReads(w(unstarted), w())).toEqual({ vanished: [], fieldsLost: [] });
    expect(compareReads(w(rowR1), w(rowR1, { ...unstarted, status: 'superseded', statusClass: 'terminal' }))).toEqual({ vanished: [], fieldsLost: [] });
  });

  it('a reused row that really vanished is named by its row id', () => {
    expect(compareReads(w(reused), w())).toEqual({ vanished: ['t1'], fieldsLost: [] });
  });
});

describe('carryActivityForward', () => {
  it('keeps the newest activity of the same attempt, and of a row that lost its dispatched_at', () => {
    const before: Wave = { shape: 'current_wave', tasks: [makeTask({ lastActivityMs: T0 + 50, raw: { dispatched_at: 'x' } })] };
    expect(carryActivityForward(before, { ...before, tasks: [makeTask({ raw: { dispatched_at: 'x' } })] }).tasks[0]!.lastActivityMs).toBe(T0 + 50);
    expect(
      carryActivityForward(before, { ...before, tasks: [makeTask({ lastActivityMs: T0 + 99, raw: { dispatched_at: 'x' } })] }).tasks[0]!.lastActivityMs,
    ).toBe(T0 + 99);
    expect(carryActivityForward(before, { ...before, tasks: [makeTask({ dispatchedAtMs: T0 - 999, raw: {} })] }).tasks[0]).toMatchObject({
      lastActivityMs: T0 + 50,
      dispatchedAtMs: T0,
    });
  });

  it('a new attempt (another dispatched_at) starts afresh', () => {
    const before: Wave = { shape: 'current_wave', tasks: [makeTask({ lastActivityMs: T0 + 50, raw: { dispatched_at: 'x' } })] };
    const next = makeTask({ dispatchedAtMs: T0 + 1000, raw: { dispatched_at: 'y' } });
    expect(carryActivityForward(before, { ...before, tasks: [next] }).tasks[0]!.lastActivityMs).toBeUndefined();
  });
});

describe('readSaysWaveDone', () => {
  const v = (kind: Verdict['kind']) => ({ kind }) as Verdict;
  it.each([
    ['no rows', [], false],
    ['all terminal or blocked', [v('terminal'), v('blocked')], true],
    ['one in flight', [v('terminal'), v('healthy')], false],
  ] as const)('%s → %s', (_name, verdicts, done) => {
    expect(readSaysWaveDone({ shape: 'current_wave', tasks: [] }, verdicts)).toBe(done);
  });
  it('shape C with every wave completed is done without rows', () => {
    expect(readSaysWaveDone(wave(`waves:\n  - { wave_id: 0, completed_at: "2026-04-02T10:00:00Z", tasks: [] }\n`), [])).toBe(true);
    expect(readSaysWaveDone(wave(`waves: []\n`), [])).toBe(false);
  });
});

describe('planCheck with confirmedActionKeys', () => {
  it('holds an action an earlier read did not also plan', () => {
    const vs: Verdict[] = ['t1', 't2'].map((taskId) => ({
      kind: 'stalled',
      taskId,
      ticketId: `P-${taskId}`,
      effectiveTimeoutMs: 1,
      exemptions: [],
      hasShellTimeoutExemption: false,
      sources: ['row'],
      reason: 'x',
      idleMs: 2,
      stallReason: 'never_started',
    }));
    const tasks = new Map(vs.map((v) => [v.taskId, makeTask({ taskId: v.taskId, ticketId: v.ticketId })]));
    const opts = {
      epicId: 'E',
      strategy: 'redispatch',
      maxRedispatches: 2,
      shouldActOnLooping: false,
      circuitBreaker: { minStalled: 3, fraction: 0.5 },
      isLagged: false,
    } as const;
    const p = planCheck(vs, tasks, foldHistory([], 'E'), { ...opts, confirmedActionKeys: new Set(['E:t1:redispatch']) });
    expect(p.actions.map((a) => a.key)).toEqual(['E:t1:redispatch']);
    expect(p.stalls.get('t2')).toMatchObject({ actionTaken: 'held:unconfirmed_read' });
  });
});

describe('recoveryTaskId never gives a task its own id back', () => {
  it.each([
    ['fix-r1', 1, 'fix-r1-r1'],
    ['fix-r1-r1', 2, 'fix-r1-r2'],
    ['t-r2', 1, 't-r2-r1'],
    ['t1-r1', 2, 't1-r2'],
  ] as const)('recoveryTaskId(%s, %i) = %s', (id, n, want) => {
    expect(recoveryTaskId(id, n)).toBe(want);
    expect(recoveryTaskId(id, n)).not.toBe(id);
  });
});
