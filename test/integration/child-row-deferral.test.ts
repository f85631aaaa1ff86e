// One stall, one action: a lead waiting on a subagent that has a row of its own is not acted on
// as well (killing the lead would kill its foreground child, and two replacements would start).
// The subagent's row is judged and recovered; the lead is judged again once that row is no longer
// in flight. In-process `next` on a manual clock, transcripts in a fake Claude config dir.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYamlText } from 'yaml';
import { assistant, jsonl, text, toolUse, user } from '../helpers/claude-lines.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { readEvents, readWatchdogJson, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';
const S = 1000;
const T0 = Date.parse('2026-04-02T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const SUB = 'a0123456789abcdef';

/** A lead (session s-1) whose Agent call is open, and its subagent, both silent since T0 + 5 s. */
function transcripts(dir: string): string {
  const claude = path.join(dir, 'claude');
  const project = path.join(claude, 'projects', '-work-p');
  mkdirSync(path.join(project, 's-1', 'subagents'), { recursive: true });
  const lead = { timestamp: iso(T0), sessionId: 's-1' };
  writeFileSync(
    path.join(project, 's-1.jsonl'),
    jsonl(
      user(0, 'run the wave', lead),
      assistant(1, [toolUse('p1', 'Agent', { description: 'ticket', prompt: 'do P-1' })], { ...lead, timestamp: iso(T0 + S) }),
    ),
  );
  const child = { sessionId: 's-1', agentId: SUB, isSidechain: true };
  writeFileSync(
    path.join(project, 's-1', 'subagents', `agent-${SUB}.jsonl`),
    jsonl(
      user(2, 'do P-1', { ...child, timestamp: iso(T0 + 2 * S) }),
      assistant(5, [toolUse('c1', 'Read', { file_path: '/x' })], { ...child, timestamp: iso(T0 + 5 * S) }),
      user(6, [{ tool_use_id: 'c1', type: 'tool_result', content: 'ok' }], { ...child, timestamp: iso(T0 + 6 * S) }),
    ),
  );
  return claude;
}

/** The wave: the lead (by session) and its subagent's own row (by agent id), in `subStatus`. */
function rows(dir: string, subStatus: string): void {
  writeWave(dir, EPIC, iso(T0), [
    { task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-1' },
    { task_id: 'sub', ticket_id: 'P-1', status: subStatus, dispatched_at: iso(T0), agent_id: SUB },
  ]);
}

async function next(clock: ManualClock, dir: string, claude: string) {
  const s = await startSession(
    clock,
    { epicId: EPIC, stateDir: dir, timeout: 60, checkInterval: 10, action: 'redispatch', json: true },
    { isNext: true, claudeConfigDir: claude },
  );
  for (let i = 0; i < 30 && !s.isDone(); i++) await s.advance(10 * S);
  if (!s.isDone()) s.stop();
  return { code: await s.done, doc: JSON.parse(s.out.join('') || '{}') as Record<string, any> };
}

describe('a lead waiting on a subagent with a row of its own', () => {
  it('is not acted on with it: one stall, one redispatch request, for the subagent; the lead says why it waits', async () => {
    const dir = tempDir();
    const claude = transcripts(dir);
    rows(dir, 'in_progress');
    const { code, doc } = await next(new ManualClock(T0 + 10 * S), dir, claude);
    expect(code).toBe(10);
    expect(doc.requests.map((r: { task_id: string }) => r.task_id)).toEqual(['sub']);
    const stalls = readEvents(dir).filter((e) => e.event === 'stall_detected');
    expect(stalls.map((e) => e.task_id)).toEqual(['sub']);
    const lead = readWatchdogJson(dir, EPIC).tasks.find((t: { task_id: string }) => t.task_id === 'lead');
    expect(lead).toMatchObject({ verdict: 'healthy' });
    expect(lead.reason).toContain(`waiting on subagent ${SUB}, idle`);
    expect(lead.reason).toContain(`${SUB} is row sub, judged and recovered on its own`);
  });

  it('is judged again once that row is no longer in flight: then its own silence is a stall', async () => {
    const dir = tempDir();
    const claude = transcripts(dir);
    rows(dir, 'cancelled');
    const { code, doc } = await next(new ManualClock(T0 + 10 * S), dir, claude);
    expect(code).toBe(10);
    expect(doc.requests.map((r: { task_id: string }) => r.task_id)).toEqual(['lead']);
    expect(readEvents(dir).find((e) => e.event === 'stall_detected' && e.task_id === 'lead')?.reason).toContain(`waiting on subagent ${SUB}, which stalled`);
  });
});

/** The session's run ended (Claude Code's SessionEnd, as the hook records it) at `atMs`. */
function sessionEnd(dir: string, atMs: number): void {
  mkdirSync(path.join(dir, 'activity'), { recursive: true });
  writeFileSync(path.join(dir, 'activity', 's-1.ndjson'), `${JSON.stringify({ ts: iso(atMs), event: 'SessionEnd', session_id: 's-1', reason: 'other' })}\n`);
}

/** A pid no process has any more (a child that ran and was reaped). */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('a run that ended (issue 38: SessionEnd, the lead process gone)', () => {
  it('orphans the subagent row at once (run_ended, not a window later) and defers the lead to it even with its process gone: one redispatch for one failure', async () => {
    const dir = tempDir();
    const claude = transcripts(dir);
    sessionEnd(dir, T0 + 7 * S);
    writeWave(dir, EPIC, iso(T0), [
      { task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-1', pid: deadPid() },
      { task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', dispatched_at: iso(T0), agent_id: SUB },
    ]);
    const { code, doc } = await next(new ManualClock(T0 + 10 * S), dir, claude);
    expect(code).toBe(10);
    expect(doc.requests.map((r: { task_id: string }) => r.task_id)).toEqual(['sub']);
    const stalls = readEvents(dir).filter((e) => e.event === 'stall_detected');
    expect(stalls.map((e) => [e.task_id, e.stall_reason])).toEqual([['sub', 'run_ended']]);
    // At the first check (10 s in, a 60 s window): dead at once.
    expect(Date.parse(String(stalls[0]!.timestamp_utc))).toBeLessThan(T0 + 20 * S);
    expect(String(stalls[0]!.reason)).toContain('its run ended before the agent finished (SessionEnd (other)');
    const lead = readWatchdogJson(dir, EPIC).tasks.find((t: { task_id: string }) => t.task_id === 'lead');
    expect(lead).toMatchObject({ verdict: 'healthy' });
    expect(lead.reason).toContain(`its run ended (SessionEnd`);
    expect(lead.reason).toContain(`${SUB} is row sub, judged and recovered on its own`);
  });

  it("recovers the lead after its child's row, and its replacement is told the child's ticket has an agent already: one ticket, one agent", async () => {
    const dir = tempDir();
    const claude = transcripts(dir);
    sessionEnd(dir, T0 + 7 * S);
    const lead = { task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-1', pid: deadPid() };
    writeWave(dir, EPIC, iso(T0), [lead, { task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', dispatched_at: iso(T0), agent_id: SUB }]);
    const clock = new ManualClock(T0 + 10 * S);
    const first = await next(clock, dir, claude);
    expect(first.doc.requests.map((r: { task_id: string }) => r.task_id)).toEqual(['sub']);
    // The orchestrator answers: the child's row ends and its replacement's row starts.
    writeWave(dir, EPIC, iso(T0), [
      lead,
      { task_id: 'sub', ticket_id: 'P-1', status: 'failed', dispatched_at: iso(T0), agent_id: SUB },
      { task_id: 'sub-r1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: iso(clock.nowMs()) },
    ]);
    const second = await next(clock, dir, claude);
    expect(second.doc.requests.map((r: { task_id: string }) => r.task_id)).toEqual(['lead']);
    const checkpoint = parseYamlText(readFileSync(path.join(dir, 'pipeline_checkpoints', 'P-0', 'recovery-1.yaml'), 'utf8'));
    expect(checkpoint.stall_reason).toBe('run_ended');
    expect(checkpoint.recovered_subagents).toEqual([{ agent_id: SUB, ticket_id: 'P-1', task_id: 'sub', recovered_by: 'redispatch' }]);
    const requestFile = String(second.doc.requests[0].path);
    const request = parseYamlText(readFileSync(path.isAbsolute(requestFile) ? requestFile : path.join(dir, requestFile), 'utf8'));
    expect(request.prompt).toContain('- Do NOT dispatch, start or redo the work of P-1: it is not yours.');
  });

  it('a lead alone whose run ended is dead at once too (run_ended)', async () => {
    const dir = tempDir();
    const claude = transcripts(dir);
    sessionEnd(dir, T0 + 7 * S);
    writeWave(dir, EPIC, iso(T0), [{ task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-1' }]);
    const { code } = await next(new ManualClock(T0 + 10 * S), dir, claude);
    expect(code).toBe(10);
    const stalls = readEvents(dir).filter((e) => e.event === 'stall_detected');
    expect(stalls.map((e) => [e.task_id, e.stall_reason])).toEqual([['lead', 'run_ended']]);
    expect(Date.parse(String(stalls[0]!.timestamp_utc))).toBeLessThan(T0 + 20 * S);
  });

  it("a row's pid that exits while its agent writes on (a wrapper's) is no run's end: the agent is judged on its records", async () => {
    const dir = tempDir();
    const project = path.join(dir, 'claude', 'projects', '-work-w');
    mkdirSync(project, { recursive: true });
    const file = path.join(project, 's-2.jsonl');
    const rec = { sessionId: 's-2' };
    writeFileSync(file, jsonl(user(0, 'do P-9', { ...rec, timestamp: iso(T0) }), assistant(1, [text('on it')], { ...rec, timestamp: iso(T0 + S) })));
    // The pid of a process that has exited (no sessions file names the session: the row's pid decides).
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeWave(dir, EPIC, iso(T0), [{ task_id: 'w', ticket_id: 'P-9', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-2', pid: gone }]);
    const clock = new ManualClock(T0 + 10 * S);
    const s = await startSession(
      clock,
      { epicId: EPIC, stateDir: dir, timeout: 60, checkInterval: 10, action: 'redispatch', json: true },
      { isNext: true, claudeConfigDir: path.join(dir, 'claude') },
    );
    // Seen gone at T0 + 10 s; its agent writes at T0 + 15 s, 25 s; the pid's grace is over at T0 + 20 s.
    appendFileSync(file, jsonl(assistant(2, [text('still at it')], { ...rec, timestamp: iso(T0 + 15 * S) })));
    await s.advance(10 * S);
    appendFileSync(file, jsonl(assistant(3, [text('nearly done')], { ...rec, timestamp: iso(T0 + 25 * S) })));
    await s.advance(10 * S);
    const stalls = () => readEvents(dir).filter((e) => e.event === 'stall_detected');
    expect(stalls()).toEqual([]);
    expect(readWatchdogJson(dir, EPIC).tasks[0]).toMatchObject({ task_id: 'w', verdict: 'healthy' });
    // Its silence is a stall a window after its last record (T0 + 85 s), not before.
    for (let i = 0; i < 10 && !s.isDone(); i++) await s.advance(10 * S);
    expect(stalls().map((e) => [e.task_id, e.stall_reason])).toEqual([['w', 'inactivity']]);
    expect(Date.parse(String(stalls()[0]!.timestamp_utc))).toBeGreaterThan(T0 + 85 * S);
  });
});
