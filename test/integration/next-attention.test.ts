// `next` says when a person is needed (issue 20 item 4), end to end: a human wait over
// attention.human_wait_seconds and an agent nobody can observe over attention.unobservable_seconds
// each make `next` exit 13 (attention), with what to do; nothing is acted on. In-process, on a
// manual clock. (An orphaned action: test/integration/recover.test.ts and the unit tests of newsOf;
// a reconcile request: nudge-reconcile.test.ts; report mode's stalls: there too.)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NextDocSchema } from '../../src/contracts/next.js';
import { assistant, jsonl, toolUse, user } from '../helpers/claude-lines.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const EPIC = 'E-1';
const S = 1000;
const iso = (ms: number) => new Date(ms).toISOString();

async function next(clock: ManualClock, dir: string) {
  const s = await startSession(
    clock,
    { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 5, json: true },
    { isNext: true, claudeConfigDir: path.join(dir, 'claude') },
  );
  for (let i = 0; i < 100 && !s.isDone(); i++) await s.advance(5 * S);
  return { code: await s.done, doc: NextDocSchema.parse(JSON.parse(s.out.join(''))) };
}

describe('next returns attention when a person is needed', () => {
  it('a question open past attention.human_wait_seconds: exit 13, kind human_wait, and the agent is left alone', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'watchdog.config.yaml'), JSON.stringify({ attention: { human_wait_seconds: 60 } }));
    const at = (s: number) => ({ timestamp: iso(T0 + s * S), sessionId: 's-1' });
    const transcript = path.join(dir, 's-1.jsonl');
    writeFileSync(
      transcript,
      jsonl(user(0, 'Fix ENG-1', at(0)), assistant(1, [toolUse('tu1', 'AskUserQuestion', { questions: [{ question: 'Which name?' }] })], at(1))),
    );
    // A second agent at work keeps the wave open after the attention.
    writeWave(dir, EPIC, iso(T0), [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-1', transcript_path: transcript },
      { task_id: 't2', ticket_id: 'ENG-2', status: 'in_progress', dispatched_at: iso(T0), last_activity_ts: iso(T0 + 3_600_000) },
    ]);
    const clock = new ManualClock(T0 + 2 * S);
    const r = await next(clock, dir);
    expect(r.code).toBe(13);
    expect(r.doc.reason).toBe('attention');
    expect(r.doc.attention).toEqual([
      expect.objectContaining({ kind: 'human_wait', task_id: 't1', ticket_id: 'ENG-1', what_to_do: expect.stringMatching(/answer it in its session/) }),
    ]);
    expect(r.doc.requests).toEqual([]);
    expect(readEvents(dir).filter((e) => e.event === 'attention_needed')).toEqual([expect.objectContaining({ kind: 'human_wait', task_id: 't1' })]);
    expect(readEvents(dir).filter((e) => e.event === 'action_started')).toEqual([]);
  });

  it('an agent with no readable evidence past attention.unobservable_seconds: exit 13, kind unobservable', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'watchdog.config.yaml'), JSON.stringify({ attention: { unobservable_seconds: 40 } }));
    // No dispatched_at (the wave's neither), no transcript to be found, no hook, no pid: nothing to judge it from.
    writeWave(dir, EPIC, undefined as unknown as string, [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', agent_id: 'a0000001' },
      { task_id: 't2', ticket_id: 'ENG-2', status: 'in_progress', dispatched_at: iso(T0), last_activity_ts: iso(T0 + 3_600_000) },
    ]);
    const clock = new ManualClock(T0);
    const r = await next(clock, dir);
    expect(r.code).toBe(13);
    expect(r.doc.attention).toEqual([
      expect.objectContaining({ kind: 'unobservable', task_id: 't1', what_to_do: expect.stringMatching(/cannot see this agent/) }),
    ]);
    expect(readEvents(dir).filter((e) => e.event === 'action_started')).toEqual([]);
  });
});
