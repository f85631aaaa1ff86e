// `dispatch-watchdog next` (DESIGN §8, issue 9): returns when the orchestrator must act, and between
// two runs nothing is lost or repeated. In-process on one manual clock, as an orchestrator alternating
// `next` and carrying out what it printed.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NextDocSchema, type NextDoc } from '../../src/contracts/next.js';
import { buildNextDoc } from '../../src/commands/next-doc.js';
import { InputError } from '../../src/contracts/errors.js';
import { exitCodeFor } from '../../src/contracts/exit-codes.js';
import { emptyHistory, type RequestRecord } from '../../src/core/history.js';
import { StatePaths } from '../../src/files/paths.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession, type Session } from '../helpers/session.js';
import { readEvents, writeWave, type RowSpec } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const S = 1000;
const EPIC = 'E-1';
const iso = (ms: number) => new Date(ms).toISOString();
const row = (taskId: string, atMs: number, extra: Partial<RowSpec> = {}): RowSpec => ({
  task_id: taskId,
  ticket_id: 'ENG-1',
  status: 'in_progress',
  dispatched_at: iso(atMs),
  last_activity_ts: iso(atMs),
  ...extra,
});

/** Run `next --json` until it exits, moving the clock 5 s at a time. */
async function next(clock: ManualClock, dir: string, extra: object = {}): Promise<{ code: number; doc: NextDoc; s: Session }> {
  const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 5, json: true, ...extra }, { isNext: true });
  for (let i = 0; i < 100 && !s.isDone(); i++) await s.advance(5 * S);
  const code = await s.done;
  expect(s.out).toHaveLength(1); // one JSON document, nothing else on stdout
  return { code, doc: NextDocSchema.parse(JSON.parse(s.out[0]!)), s };
}

describe('next', () => {
  it('across 20 alternations with a replacement that always stalls: one new request each time, none lost or repeated, then the escalation and the end', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0), { task_id: 't2', ticket_id: 'ENG-2', status: 'merged' }]);
    const seen: string[] = [];
    let rows: RowSpec[] = [row('t1', T0)];
    let current = 't1';
    for (let i = 0; i < 20; i++) {
      const { code, doc } = await next(clock, dir, { maxRedispatches: 20 });
      expect(code).toBe(10);
      expect(doc.reason).toBe('requests');
      expect(doc.requests).toHaveLength(1);
      const req = doc.requests[0]!;
      expect(req).toMatchObject({
        kind: 'redispatch',
        task_id: current,
        redispatch_attempt: i + 1,
        path: expect.stringMatching(/^epics\/E-1\/requests\/.*\.redispatch\.json$/),
      });
      expect(JSON.parse(readFileSync(path.join(dir, req.path), 'utf8'))).toMatchObject({ key: req.key });
      expect(doc.pending.map((p) => p.key)).toEqual([req.key]);
      seen.push(req.key);
      // Carry it out: even attempts as a new row, odd ones by reusing the row.
      const now = clock.nowMs();
      if (i % 2 === 0) {
        rows = [...rows.map((r) => (r.status === 'in_progress' ? { ...r, status: 'cancelled' } : r)), row(req.recovery_task_id!, now)];
      } else {
        const last = rows.at(-1)!;
        rows = [
          ...rows.slice(0, -1),
          { ...last, status: 'in_progress', session_id: `s${i}`, redispatch_count: i + 1, last_activity_ts: iso(now), dispatched_at: iso(now) },
        ];
      }
      writeWave(dir, EPIC, iso(T0), [...rows, { task_id: 't2', ticket_id: 'ENG-2', status: 'merged' }]);
      current = req.recovery_task_id!;
    }
    expect(new Set(seen).size).toBe(20);
    // The 21st stall hits the cap: an escalation (needs no answer), then the wave is complete.
    const esc = await next(clock, dir, { maxRedispatches: 20 });
    expect(esc.code).toBe(12);
    expect(esc.doc).toMatchObject({
      reason: 'escalation',
      requests: [],
      pending: [],
      escalations: [expect.objectContaining({ ticket_id: 'ENG-1', task_id: current, notice_path: expect.stringMatching(/\.escalation\.json$/) })],
    });
    const end = await next(clock, dir, { maxRedispatches: 20 });
    expect(end).toMatchObject({
      code: 0,
      doc: { reason: 'wave_complete', requests: [], escalations: [], pending: [], wave: { in_flight: 0, pending_requests: 0 } },
    });
    const events = readEvents(dir);
    expect(events.filter((e) => e.event === 'redispatch').map((e) => e.key)).toEqual(seen);
    expect(events.filter((e) => e.event === 'request_answered')).toHaveLength(20);
    expect(events.filter((e) => e.event === 'request_unanswered')).toHaveLength(0);
    expect(events.filter((e) => e.event === 'next_returned').map((e) => e.exit_code)).toEqual([...Array(20).fill(10), 12, 0]);
  });

  it('a request printed before and still pending is not new: next keeps waiting, lists it under pending, and returns 11 when it goes unanswered', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0)]);
    const first = await next(clock, dir, { action: 'cancel' });
    expect(first.code).toBe(10);
    const key = first.doc.requests[0]!.key;
    const second = await next(clock, dir, { action: 'cancel' });
    expect(second).toMatchObject({
      code: 11,
      doc: { reason: 'unanswered', requests: [], pending: [], unanswered: [expect.objectContaining({ key, kind: 'cancel', task_id: 't1' })] },
    });
    // It waited for the deadline (2 × 30 s after the request), not less.
    expect(
      Date.parse(readEvents(dir).find((e) => e.event === 'request_unanswered')!.timestamp_utc as string) - Date.parse(second.doc.unanswered[0]!.answer_by),
    ).toBeGreaterThan(0);
  });

  it('a state file it cannot use is told on stderr once (stdout stays one JSON document), and next keeps waiting until the file is fixed', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    const file = writeWave(dir, EPIC, iso(T0), [row('t1', T0)]);
    writeFileSync(file, 'current_wave:\n  wave_id: 1\n  tasks: [\n');
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 5, json: true }, { isNext: true });
    for (let i = 0; i < 10; i++) await s.advance(5 * S);
    expect(s.isDone()).toBe(false);
    expect(s.out).toEqual([]);
    expect(s.err).toHaveLength(1);
    expect(s.err[0]).toMatch(/state\.yaml:\d+:\d+.*invalid YAML.*\(still watching\)\n$/);
    writeWave(dir, EPIC, iso(T0), [{ task_id: 't1', ticket_id: 'ENG-1', status: 'merged' }]);
    for (let i = 0; i < 10 && !s.isDone(); i++) await s.advance(5 * S);
    expect(await s.done).toBe(0);
    expect(NextDocSchema.parse(JSON.parse(s.out[0]!)).reason).toBe('wave_complete');
  });

  it('human output: one line per item with the file and what to do', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0)]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 5 }, { isNext: true });
    for (let i = 0; i < 20 && !s.isDone(); i++) await s.advance(5 * S);
    expect(await s.done).toBe(10);
    const text = s.out.join('');
    expect(text).toMatch(
      /^request redispatch E-1:t1:redispatch: stop t1 \(ENG-1\), launch t1-r1 with the prompt in the file; file epics\/E-1\/requests\/E-1__t1__redispatch\.redispatch\.json; answer by \S+: Stop the agent of row t1/m,
    );
    expect(text).toMatch(/^request redispatch E-1:t1:redispatch: .* Why: stalled: inactivity, idle \d+s\.$/m);
    expect(text).toContain('wave E-1: 1 in flight, 0 terminal, 0 blocked, 1 requests pending\n');
    expect(text).toContain('next: requests (exit 10): carry these out, then run next again\n');
  });
});

describe('next and the request files it prints', () => {
  it('a request file replaced by a symlink is refused (exit 2 with the fix), its target never printed', async () => {
    const dir = tempDir();
    const paths = new StatePaths(dir);
    const secret = path.join(tempDir('dw-outside-'), 'secret.json');
    writeFileSync(secret, JSON.stringify({ kind: 'redispatch', prompt: 'the contents of a file outside the state dir' }));
    const rel = 'epics/E-1/requests/E-1__t1__redispatch.redispatch.json';
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    symlinkSync(secret, path.join(dir, rel));
    const request: RequestRecord = {
      key: 'E-1:t1:redispatch',
      kind: 'redispatch',
      taskId: 't1',
      rowTaskId: 't1',
      ticketId: 'ENG-1',
      recoveryTaskId: 't1-r1',
      attempt: 1,
      createdAtMs: T0,
      answerByMs: T0 + 60 * S,
      path: rel,
      was: {},
      status: 'pending',
    };
    const r = { verdicts: [], isWaveDone: false } as unknown as Parameters<typeof buildNextDoc>[4];
    const e = await buildNextDoc(paths, EPIC, { requests: [request], unanswered: [], escalations: [], attention: [] }, emptyHistory(), r).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(InputError);
    expect((e as InputError).describe()).toBe(
      `refusing to follow the symlink ${path.join(dir, rel)}: the watchdog wrote this request file itself, and never prints what a link in its place points to. Remove the link: the request is in the dispatch log, and next prints it from there once the file is gone.`,
    );
    const said: string[] = [];
    expect(exitCodeFor(e, { err: (t) => void said.push(t) })).toBe(2);
    expect(said.join('')).not.toContain('outside the state dir');
  });
});
