// OWNER_RECONCILE for a row that says terminal while its agent still runs (issue 20 item 3): the
// row says completed, its agent's process (a real child process) is alive past the reconcile grace;
// a `reconcile` request says what disagrees and how to answer, `next` returns attention (13), and
// nothing is stopped. Once the process is gone the row and the agent agree: the request is
// answered (resolved) and the wave completes. In-process, on a manual clock.
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assistant, jsonl, toolResult, toolUse, user } from '../helpers/claude-lines.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { nextOnClock, startSession } from '../helpers/session.js';
import { spawnFixture } from '../helpers/spawn-fixture.js';
import { readEvents, readWatchdogJson, writeWave } from '../helpers/state.js';
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
    // On this manual clock the row was dispatched in April, and the real process started today: it is
    // not provably the row's agent, so the request withholds its pid and says why (issue 36 item 5).
    expect(first.doc.requests).toEqual([
      expect.objectContaining({
        kind: 'reconcile',
        key,
        disagreement: 'agent_running',
        row_status: 'completed',
        pid_withheld: expect.stringContaining(`pid ${agent.pid} `),
      }),
    ]);
    expect(first.doc.requests[0].pid).toBeUndefined();
    expect(first.doc.requests[0].what_disagrees).toBe(
      `the row says "completed" but its agent is still running: its process ${agent.pid} is alive and nothing says it finished`,
    );
    expect(first.doc.requests[0].how_to_answer).toMatch(
      /^Row t1 says its work is over but its agent is still at work: if the work goes on, set row t1 back to in_progress; if the row is right, stop the agent yourself \(the watchdog never does\)/,
    );
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

describe('a row cancelled for a resume that another row carries on', () => {
  it("is not asked about: the session at work is the new row's (same session_id), never a reconcile of the old one", async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0 + 3 * S);
    const file = path.join(dir, 's-1.jsonl');
    const rec = (s: number) => ({ timestamp: iso(T0 + s * S), sessionId: 's-1' });
    writeFileSync(
      file,
      jsonl(user(0, 'Fix ENG-1', rec(0)), assistant(1, [toolUse('tu1', 'Bash', { command: 'make' })], rec(1)), user(2, [toolResult('tu1', 'ok')], rec(2))),
    );
    // The orchestrator answered a resume by adding the recovery row (SKILL.md: "or add the recovery_task_id row"):
    // the resumed run writes on in the same session's transcript.
    writeWave(dir, EPIC, iso(T0), [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'cancelled', dispatched_at: iso(T0), session_id: 's-1', transcript_path: file },
      { task_id: 't1-r1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0 + 3 * S), session_id: 's-1', transcript_path: file },
    ]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 10, checkInterval: 5 }, { claudeConfigDir: path.join(dir, 'claude') });
    for (let i = 1; i <= 12; i++) {
      const at = 3 + 5 * i;
      appendFileSync(
        file,
        jsonl(assistant(at, [toolUse(`tu${at}`, 'Bash', { command: `step ${at}` })], rec(at)), user(at, [toolResult(`tu${at}`, 'ok')], rec(at))),
      );
      await s.advance(5 * S);
    }
    s.stop();
    await s.done;
    expect(events(dir, 'truth_inconsistent')).toEqual([]);
    expect(events(dir, 'reconcile_requested')).toEqual([]);
    expect(readWatchdogJson(dir, EPIC).tasks.map((t: { task_id: string; verdict: string }) => [t.task_id, t.verdict])).toEqual([
      ['t1', 'terminal'],
      ['t1-r1', 'healthy'],
    ]);
  });
});
