// `next` says a person is needed when an agent waits on a subagent nothing can be seen of (issue 19
// item 3, issue 20 item 4): the parent is unknown past its window, never acted on, and `next` exits
// 13 (attention, kind unobservable_child) at once, its detail naming the child. Once the child's
// hook activity shows up, the parent is judged by it instead. In-process, on a manual clock.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHook } from '../../src/commands/hook.js';
import { assistant, jsonl, payload, toolUse, user } from '../helpers/claude-lines.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { nextOnClock, startSession } from '../helpers/session.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';
const S = 1000;
const T0 = Date.parse('2026-04-02T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** A lead whose foreground Agent call opened at T0 + 1 s; its child's transcript is nowhere. */
function waitingLead(dir: string): string {
  const at = (s: number) => ({ timestamp: iso(T0 + s * S), sessionId: 's-1' });
  const file = path.join(dir, 's-1.jsonl');
  writeFileSync(
    file,
    jsonl(user(0, 'Fix ENG-1', at(0)), assistant(1, [toolUse('p1', 'Agent', { description: 'fix', prompt: 'p', subagent_type: 'general-purpose' })], at(1))),
  );
  return file;
}

const next = (clock: ManualClock, dir: string) => nextOnClock(clock, dir, EPIC, 20);

describe('next, for a parent waiting on a subagent nothing can be seen of', () => {
  it('returns attention at once past the window, naming the child; nothing is acted on', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0 + 3 * S);
    writeWave(dir, EPIC, iso(T0), [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-1', transcript_path: waitingLead(dir) },
    ]);
    const { code, doc } = await next(clock, dir);
    expect(code).toBe(13);
    expect(doc.reason).toBe('attention');
    expect(doc.attention).toEqual([expect.objectContaining({ kind: 'unobservable_child', task_id: 't1', ticket_id: 'ENG-1', since: '2026-04-02T10:01:01Z' })]);
    expect(doc.attention[0].detail).toMatch(/^waits on \(the subagent of Agent call p1\), which cannot be observed: /);
    expect(doc.attention[0].what_to_do).toMatch(/^The agent waits on a subagent the watchdog cannot see/);
    // Within one window past the deadline, not five.
    expect(clock.nowMs() - (T0 + 61 * S)).toBeLessThanOrEqual(20 * S);
    expect(readEvents(dir).filter((e) => ['stall_detected', 'action_started'].includes(e.event as string))).toEqual([]);
  });

  it('a child whose hooks show it at work is no attention: the parent is judged by them', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0 + 3 * S);
    writeWave(dir, EPIC, iso(T0), [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-1', transcript_path: waitingLead(dir) },
    ]);
    const hook = (s: number, event: string, extra: Record<string, unknown>) =>
      runHook(JSON.stringify(payload(event, { session_id: 's-1', agent_id: 'a0123456789abcdef', ...extra })), { stateDir: dir, nowMs: T0 + s * S });
    await hook(2, 'SubagentStart', {});
    await hook(3, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'npm run e2e', timeout: 600_000 }, tool_use_id: 'c1' });
    const s = await startSession(
      clock,
      { epicId: EPIC, stateDir: dir, timeout: 60, checkInterval: 10, json: true },
      { isNext: true, claudeConfigDir: path.join(dir, 'claude') },
    );
    for (let i = 0; i < 12 && !s.isDone(); i++) await s.advance(10 * S);
    expect(s.isDone()).toBe(false);
    s.stop();
    await s.done;
    expect(readEvents(dir).filter((e) => e.event === 'attention_needed' || e.event === 'stall_detected')).toEqual([]);
  });
});
