// Nudge, reconcile, attention through `next` (DESIGN §8): a session whose turn ended while its row
// still says in progress is nudged once (a request the orchestrator carries out), given its grace,
// then its owner is asked to reconcile the row (next: attention, exit 13); updating the row answers
// it. Nothing is ever stopped or relaunched for it. In-process, on a manual clock.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { printStatus } from '../../src/commands/status.js';
import { runMain } from '../helpers/in-process-cli.js';
import { StatePaths } from '../../src/files/paths.js';
import { assistant, jsonl, system, text, user } from '../helpers/claude-lines.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { nextOnClock, startSession } from '../helpers/session.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';
const S = 1000;
const T0 = Date.parse('2026-04-02T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const events = (dir: string, name: string) => readEvents(dir).filter((e) => e.event === name);

/** A session that answered and ended its turn (a definite turn end) at T0 + 2 s. */
function endedTranscript(dir: string): string {
  const at = (s: number) => ({ timestamp: iso(T0 + s * S), sessionId: 's-1' });
  const file = path.join(dir, 's-1.jsonl');
  writeFileSync(file, jsonl(user(0, 'Fix ENG-1', at(0)), assistant(1, [text('I looked at it.')], at(1)), system(2, 'turn_duration', at(2))));
  return file;
}

const next = (clock: ManualClock, dir: string) => nextOnClock(clock, dir, EPIC, 30);

describe('a row its agent disagrees with', () => {
  it('is nudged once, then reconciled by its owner; next says when a person is needed; nothing is stopped', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0 + 3 * S);
    const row = { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-1', transcript_path: endedTranscript(dir) };
    writeWave(dir, EPIC, iso(T0), [row]);

    // 1. After the reconcile grace (one window): one nudge, as a request (mailbox), route resume.
    const first = await next(clock, dir);
    expect(first.code).toBe(10);
    expect(first.doc.requests).toEqual([expect.objectContaining({ kind: 'nudge', key: `${EPIC}:t1:nudge`, route: 'resume', session_id: 's-1' })]);
    expect(first.doc.requests[0].message).toMatch(/^Your turn ended, but ENG-1 \(task t1\) is still in progress/);
    expect(events(dir, 'nudge_sent')).toEqual([expect.objectContaining({ key: `${EPIC}:t1:nudge`, route: 'resume' })]);

    // 2. The nudge changed nothing: after its grace, a reconcile request; next returns attention (13).
    const second = await next(clock, dir);
    expect(second.code).toBe(13);
    expect(second.doc.reason).toBe('attention');
    const key = `${EPIC}:t1:reconcile`;
    expect(second.doc.requests).toEqual([expect.objectContaining({ kind: 'reconcile', key, disagreement: 'agent_finished', row_status: 'in_progress' })]);
    expect(second.doc.requests[0].what_disagrees).toMatch(/agent finished \(turn ended\) but the row still says "in_progress"/);
    expect(second.doc.requests[0].how_to_answer).toMatch(/Nothing is stopped or relaunched for it/);
    const file = path.join(dir, second.doc.requests[0].path);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ kind: 'reconcile', key });
    const status: string[] = [];
    await printStatus(new StatePaths(dir), EPIC, { isJson: false, nowMs: clock.nowMs() }, { out: (t) => void status.push(t), err: () => undefined });
    expect(status.join('')).toMatch(/pending reconcile t1 \(ENG-1\)/);
    // Never destructive, never twice.
    expect(events(dir, 'action_started').map((e) => e.action)).toEqual(['nudge', 'reconcile']);
    expect(events(dir, 'agent_killed')).toEqual([]);

    // 3. The owner updates the row: the request is answered and the wave is complete.
    writeWave(dir, EPIC, iso(T0), [{ ...row, status: 'completed' }]);
    const third = await next(clock, dir);
    expect(third.code).toBe(0);
    expect(events(dir, 'request_answered')).toEqual(expect.arrayContaining([expect.objectContaining({ key, kind: 'reconcile', how: 'resolved' })]));
  });

  it('a nudge the skill acks as it sends it, then a row its owner ended: answered terminal, and friction counts it as worked', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0 + 3 * S);
    const row = { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-1', transcript_path: endedTranscript(dir) };
    writeWave(dir, EPIC, iso(T0), [row]);
    const first = await next(clock, dir);
    expect(first.doc.requests).toEqual([expect.objectContaining({ kind: 'nudge' })]);
    // The lead sends the nudge, acks it (SKILL.md), reads the agent's answer and records how it ended; then next.
    const key = `${EPIC}:t1:nudge`;
    expect((await runMain(['ack', key, '--state-dir', dir])).code).toBe(0);
    writeWave(dir, EPIC, iso(T0), [{ ...row, status: 'completed' }]);
    expect((await next(clock, dir)).code).toBe(0);
    expect(events(dir, 'request_answered')).toEqual([expect.objectContaining({ key, kind: 'nudge', how: 'terminal' })]);
    const friction = await runMain(['friction', '--state-dir', dir, '--json', '--since', '3650d']);
    expect(JSON.parse(friction.stdout).nudges).toEqual({ sent: 1, worked: 1 });
  });

  it('report mode: next returns attention on every new stall instead of staying silent', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [{ task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), last_activity_ts: iso(T0) }]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 60, checkInterval: 10, json: true, action: 'report' }, { isNext: true });
    for (let i = 0; i < 10 && !s.isDone(); i++) await s.advance(10 * S);
    expect(await s.done).toBe(13);
    const doc = JSON.parse(s.out.join(''));
    expect(doc.attention).toEqual([expect.objectContaining({ kind: 'stall_reported', task_id: 't1', ticket_id: 'ENG-1' })]);
    expect(doc.attention[0].what_to_do).toMatch(/^Report mode acts on nothing/);
    expect(events(dir, 'next_returned')).toEqual([expect.objectContaining({ reason: 'attention', exit_code: 13, attention: [doc.attention[0].key] })]);
  });
});
