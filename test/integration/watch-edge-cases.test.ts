// The watch command end to end in the cases a trial found mishandled, each shown failing before its
// fix: --dry-run and --now, a missing state dir, seed-shaped log lines, one agent per ticket with the
// process adapter, checkpoints carrying work over, progress seen in the row, a transcript that never
// appears, and the circuit breaker's hold.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { main } from '../../src/cli.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { runCli } from '../helpers/cli.js';
import { spawnFixture, fixture } from '../helpers/spawn-fixture.js';
import { startSession } from '../helpers/session.js';
import { readEvents, readWatchdogJson, writeWave, type RowSpec } from '../helpers/state.js';
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

async function cli(args: string[], opts: { stdin?: string } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main({
    argv: args,
    env: {},
    cwd: process.cwd(),
    output: { out: (t) => void out.push(t), err: (t) => void err.push(t) },
    stdin: Readable.from([opts.stdin ?? '']),
    watchDeps: { clock: new ManualClock(T0), signal: new AbortController().signal, pid: process.pid },
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** Every file under `dir` with its bytes, to show nothing was touched. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[path.relative(dir, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('--dry-run and --now', () => {
  it('--dry-run without --once watches, prints each check, writes nothing, and ends with the wave', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0)]);
    const before = snapshot(dir);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 10, dryRun: true });
    for (let i = 0; i < 4; i++) await s.advance(10 * S);
    expect(s.out.join('')).toMatch(/^t1 +ENG-1 +STALLED /m);
    expect(s.out.join('')).toContain('  t1 (ENG-1): dry_run:redispatch');
    writeWave(dir, EPIC, iso(T0), [row('t1', T0, { status: 'completed' })]);
    const after = snapshot(dir);
    await s.advance(10 * S);
    expect(await s.done).toBe(0);
    expect(s.err).toEqual([]);
    expect(Object.keys(after)).toEqual(Object.keys(before));
    expect(snapshot(dir)).toEqual(after);
  });

  it('--now beside a live watchdog: no lock taken, its watchdog.json and everything else untouched, the result printed', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0)]);
    const live = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 120, checkInterval: 10, action: 'report' });
    const before = snapshot(dir);
    expect(before[`epics/${EPIC}/watchdog.json`]).toBeDefined();
    const r = await cli(['--epic-id', EPIC, '--state-dir', dir, '--now', '2026-04-02T11:00:00Z', '--timeout', '120']);
    expect(r).toMatchObject({ code: 3, stderr: '' });
    expect(r.stdout).toMatch(/^t1 +ENG-1 +STALLED /m);
    expect(snapshot(dir)).toEqual(before);
    live.stop();
    expect(await live.done).toBe(0);
  });
});

describe('a state dir that does not exist', () => {
  const commands: [string, (d: string) => string[]][] = [
    ['watch --once', (d) => ['--epic-id', EPIC, '--once', '--state-dir', d]],
    ['watch', (d) => ['--epic-id', EPIC, '--state-dir', d]],
    ['next', (d) => ['next', '--epic-id', EPIC, '--state-dir', d]],
    ['recover', (d) => ['recover', '--epic-id', EPIC, '--state-dir', d]],
    ['status', (d) => ['status', '--epic-id', EPIC, '--state-dir', d]],
    ['friction', (d) => ['friction', '--state-dir', d]],
    ['ack', (d) => ['ack', `${EPIC}:t1:cancel`, '--state-dir', d]],
    ['prune', (d) => ['prune', '--state-dir', d]],
  ];
  it.each(commands)('%s: exit 2 naming it, and nothing is created', async (_, args) => {
    const missing = path.join(tempDir(), 'typo');
    const r = await cli(args(missing));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${missing}: the state dir does not exist (from --state-dir).`);
    expect(existsSync(missing)).toBe(false);
  });

  it('hook stays silent and exits 0', async () => {
    const missing = path.join(tempDir(), 'typo');
    expect(await cli(['hook', '--state-dir', missing], { stdin: '{"hook_event_name":"Stop","session_id":"s1"}' })).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('seed-shaped dispatch-log lines', () => {
  it('are read and count toward the cap: two seed redispatches of a ticket make its next stall an escalation', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'dispatch-log'));
    // The seed's own shapes (seeds/dispatch-watchdog.md): no epic_id, run_id or task_id.
    const seed = [
      {
        timestamp_utc: '2026-04-01T14:30:00Z',
        event: 'stall_detected',
        ticket_id: 'ENG-1',
        agent_id: 'task-abc123',
        stall_reason: 'inactivity',
        idle_seconds: 145,
        bash_timeout_exemption: false,
        redispatch_attempt: 1,
        max_redispatches: 2,
        action_taken: 'redispatch',
      },
      { timestamp_utc: '2026-04-01T14:30:01Z', event: 'agent_killed', ticket_id: 'ENG-1', agent_id: 'task-abc123' },
      { timestamp_utc: '2026-04-01T14:30:02Z', event: 'redispatch', ticket_id: 'ENG-1', redispatch_attempt: 1, remaining_tasks: ['a'] },
      { timestamp_utc: '2026-04-01T15:30:02Z', event: 'redispatch', ticket_id: 'ENG-1', redispatch_attempt: 2, remaining_tasks: ['a'] },
      { timestamp_utc: '2026-04-01T15:40:00Z', event: 'healthy', ticket_id: 'ENG-2', agent_id: 'task-x', idle_seconds: 3 },
      {
        timestamp_utc: '2026-04-01T15:50:00Z',
        event: 'escalated_to_blocked',
        ticket_id: 'ENG-3',
        attempt_count: 3,
        friction_path: '.onex_state/friction/2026-04-01-stall-escalation-eng-3.md',
      },
    ];
    writeFileSync(path.join(dir, 'dispatch-log', '2026-04-01.ndjson'), seed.map((l) => JSON.stringify(l) + '\n').join(''));
    writeWave(dir, EPIC, iso(T0), [row('t1', T0)]);
    const clock = new ManualClock(T0 + 200 * S);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 120, once: true });
    expect(await s.done).toBe(3);
    expect(s.err).toEqual([]); // no "corrupt line" warnings
    const ours = readEvents(dir).filter((e) => e.run_id !== undefined);
    expect(ours.find((e) => e.event === 'stall_detected')).toMatchObject({ task_id: 't1', redispatch_attempt: 3, action_taken: 'escalate' });
    expect(ours.filter((e) => e.event === 'escalated_to_blocked')).toEqual([expect.objectContaining({ key: `${EPIC}:t1:escalate`, attempt_count: 3 })]);
    // And we keep writing our superset.
    expect(ours.every((e) => e.epic_id === EPIC && typeof e.run_id === 'string')).toBe(true);
    // The note's count and its table agree: 3 stalls counted, 2 stall lines, and it says why.
    const note = readFileSync(path.join(dir, ours.find((e) => e.event === 'escalated_to_blocked')!.friction_path as string), 'utf8');
    expect(note).toContain('Agent stalled 3 times');
    expect(note.match(/^\| \d+ \|/gm)).toHaveLength(2);
    expect(note).toContain(
      'The table lists 2 of these 3 stalls: one attempt was counted from a redispatch line with no stall line of its own in the dispatch log.',
    );
  });
});

describe('process adapter', () => {
  it('never leaves two agents on one ticket: an agent started after the wave, in a row without dispatched_at, is neither called exited nor replaced', async () => {
    const dir = tempDir();
    const agent = await spawnFixture('sleep-forever.mjs');
    onTestFinished(() => void agent.child.kill('SIGKILL'));
    writeFileSync(
      path.join(dir, 'watchdog.config.yaml'),
      stringify({ agents: { adapter: 'process', kill_grace_ms: 50, redispatch_argv: [process.execPath, fixture('sleep-forever.mjs'), '{recovery_task_id}'] } }),
    );
    // The wave was dispatched 10 minutes ago; this agent started seconds ago (a late start, not a reused pid).
    const waveAt = Date.now() - 600 * S;
    writeWave(dir, EPIC, iso(waveAt), [{ task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', pid: agent.pid, last_activity_ts: iso(waveAt) }]);
    const r = await runCli(['--epic-id', EPIC, '--state-dir', dir, '--once', '--timeout', '1'], { env: { LINEAR_API_KEY: '' } });
    expect(r.code).toBe(3);
    const names = readEvents(dir).map((e) => e.event);
    expect(names).not.toContain('redispatch');
    expect(names).not.toContain('agent_killed');
    const failed = readEvents(dir).find((e) => e.event === 'action_failed')!;
    expect(failed.error).toContain(`not killed, and no replacement launched beside it: cannot verify that pid ${agent.pid} is still task t1`);
    expect(failed.error).toContain("the row has no dispatched_at of its own, so it may be the agent itself; write the row's own dispatched_at");
    expect(existsSync(path.join(dir, 'epics', EPIC, 'agents'))).toBe(false);
    expect(() => process.kill(agent.pid, 0)).not.toThrow();
  });
});

describe('recovery checkpoints', () => {
  it('carry remaining and completed work over from checkpoint N to N+1 when the replacement row does not repeat it (mailbox)', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    const work = { remaining_work: ['Add the retry test', 'Update the changelog'], completed_items: ['Implement retry'] };
    writeWave(dir, EPIC, iso(T0), [row('t1', T0, work)]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 10 });
    for (let i = 0; i < 4; i++) await s.advance(10 * S);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0, { ...work, status: 'cancelled' }), row('t1-r1', clock.nowMs())]);
    for (let i = 0; i < 5; i++) await s.advance(10 * S);
    const cp2 = readFileSync(path.join(dir, 'pipeline_checkpoints', 'ENG-1', 'recovery-2.yaml'), 'utf8');
    expect(cp2).toContain('remaining_work:\n  - Add the retry test\n  - Update the changelog\n');
    expect(cp2).toContain('completed_work:\n  - Implement retry\n');
    const request = JSON.parse(readFileSync(path.join(dir, 'epics', EPIC, 'requests', `${EPIC}__t1-r1__redispatch.redispatch.json`), 'utf8'));
    expect(request.prompt).toContain('1. Add the retry test\n2. Update the changelog');
    expect(request.prompt).not.toContain('not recorded');
    s.stop();
    await s.done;
  });
});

describe('progress seen in the row', () => {
  it("a change of the row's last_output is progress; the same text for a window is not", async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0, { last_output: 'step 1' })]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 10, action: 'report' });
    await s.advance(10 * S);
    await s.advance(10 * S);
    writeWave(dir, EPIC, iso(T0), [row('t1', T0, { last_output: 'step 2' })]); // only the output moved
    for (let i = 0; i < 3; i++) await s.advance(10 * S); // T0+50s: 30 s after the change at T0+30s is not over
    expect(readEvents(dir).filter((e) => e.event === 'stall_detected')).toHaveLength(0);
    await s.advance(10 * S); // T0+60s: 30 s since the change, not more
    expect(readEvents(dir).filter((e) => e.event === 'stall_detected')).toHaveLength(0);
    await s.advance(10 * S); // the deadline wakes the loop a moment later
    expect(readEvents(dir).filter((e) => e.event === 'stall_detected')).toEqual([
      expect.objectContaining({ task_id: 't1', idle_seconds: 30, timestamp_utc: '2026-04-02T10:01:00.050Z' }),
    ]);
    s.stop();
    await s.done;
  });
});

describe('progress seen in the row: the first sight', () => {
  it('a row idle past its window but whose last_output then changes is never acted on at the first check; unchanged for its window, it is', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    const past = T0 - 600 * S; // idle 10 minutes already: stalled by time alone
    writeWave(dir, EPIC, iso(past), [row('t1', past, { last_output: 'step 1' }), row('t2', past, { ticket_id: 'ENG-2', last_output: 'waiting' })]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 10 });
    const started = () =>
      readEvents(dir)
        .filter((e) => e.event === 'action_started')
        .map((e) => e.task_id);
    expect(started()).toEqual([]); // whether the output grows is not known at its first sight
    expect(readEvents(dir).filter((e) => e.event === 'stall_detected')).toEqual([]); // nor is it called stalled (issue 33)
    writeWave(dir, EPIC, iso(past), [row('t1', past, { last_output: 'step 2' }), row('t2', past, { ticket_id: 'ENG-2', last_output: 'waiting' })]);
    await s.advance(10 * S);
    expect(readWatchdogJson(dir, EPIC).tasks.find((t: { task_id: string }) => t.task_id === 't1').verdict).toBe('healthy');
    expect(started()).toEqual([]);
    // t2's text held still for its whole window since it was first seen: no growth, acted on at that deadline.
    await s.advance(21 * S);
    expect(started()).toEqual(['t2']);
    expect(readEvents(dir).find((e) => e.event === 'stall_detected')).toMatchObject({
      task_id: 't2',
      action_taken: 'redispatch',
      timestamp_utc: iso(T0 + 30 * S + 50),
    }); // the interval's check at +30 s was a ms early; the deadline wakes it (at least 50 ms later)
    s.stop();
    await s.done;
  });
});

describe('a transcript that never appears', () => {
  it('is starting within the window (judged from dispatch, never "unknown"), then stalled never_started naming where we looked', async () => {
    const dir = tempDir();
    const claude = tempDir();
    const clock = new ManualClock(T0);
    const missing = path.join(claude, 'nowhere.jsonl');
    writeWave(dir, EPIC, iso(T0), [{ task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), transcript_path: missing }]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 10, action: 'report' }, { claudeConfigDir: claude });
    expect(readEvents(dir).find((e) => e.event === 'task_unknown')).toBeUndefined();
    expect(readWatchdogJson(dir, EPIC).tasks[0]).toMatchObject({
      verdict: 'healthy',
      reason: expect.stringMatching(/^starting: dispatched 0s ago, no record yet \(window 30s; transcript: /),
    });
    for (let i = 0; i < 4 && !s.isDone(); i++) await s.advance(10 * S);
    const stall = readEvents(dir).find((e) => e.event === 'stall_detected')!;
    expect(stall).toMatchObject({ task_id: 't1', stall_reason: 'never_started' });
    expect(stall.reason).toContain(missing);
    s.stop();
    await s.done;
  });

  it("a new row's transcript is found at the next check once it appears, not 30 s later", async () => {
    const dir = tempDir();
    const claude = tempDir();
    const clock = new ManualClock(T0);
    const project = path.join(claude, 'projects', '-work-repo');
    mkdirSync(path.join(project, 'sess-1', 'subagents'), { recursive: true });
    writeWave(dir, EPIC, iso(T0), [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), session_id: 'sess-1', agent_id: 'ag1' },
    ]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 120, checkInterval: 5, action: 'report' }, { claudeConfigDir: claude });
    // Starting, not unknown: a fresh agent has no transcript for its first seconds (issue 21).
    expect(readEvents(dir).at(-1)).toMatchObject({ event: 'healthy', task_id: 't1', recovered: false });
    expect(readWatchdogJson(dir, EPIC).tasks[0].reason).toMatch(/^starting: /);
    const line = JSON.stringify({
      isSidechain: true,
      sessionId: 'sess-1',
      agentId: 'ag1',
      version: '2.1.39',
      timestamp: iso(T0 + 3 * S),
      type: 'assistant',
      message: { role: 'assistant', type: 'message', content: [{ type: 'text', text: 'Reading the code' }], stop_reason: null },
    });
    writeFileSync(path.join(project, 'sess-1', 'subagents', 'agent-ag1.jsonl'), line + '\n');
    await s.advance(5 * S);
    expect(readWatchdogJson(dir, EPIC).tasks[0]).toMatchObject({
      verdict: 'healthy',
      sources: expect.arrayContaining(['transcript']),
      reason: expect.stringMatching(/^active /),
    });
    // ... and no "healthy again" for an agent that was never anything else.
    expect(readEvents(dir).filter((e) => e.event === 'healthy' && e.recovered)).toEqual([]);
    s.stop();
    await s.done;
  });
});

describe('the circuit breaker', () => {
  it('holds a mass stall for circuit_breaker.max_hold_seconds at most, then escalates the episode once with a friction note and acts again', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    writeFileSync(path.join(dir, 'watchdog.config.yaml'), stringify({ circuit_breaker: { max_hold_seconds: 60 } }));
    writeWave(
      dir,
      EPIC,
      iso(T0),
      ['t1', 't2', 't3'].map((id, i) => row(id, T0, { ticket_id: `ENG-${i + 1}` })),
    );
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 30, checkInterval: 10 });
    for (let i = 0; i < 4; i++) await s.advance(10 * S); // all three stalled at their deadline (T0+30.05s) → held (the episode starts)
    expect(readEvents(dir).filter((e) => e.event === 'mass_stall')).toHaveLength(1);
    expect(readEvents(dir).filter((e) => e.event === 'action_started')).toHaveLength(0);
    for (let i = 0; i < 6; i++) await s.advance(10 * S); // T0+100s: the check at T0+90.05s held 60 s, not more
    expect(readEvents(dir).filter((e) => e.event === 'mass_stall_escalated')).toHaveLength(0);
    await s.advance(10 * S);
    const escalated = readEvents(dir).filter((e) => e.event === 'mass_stall_escalated');
    expect(escalated).toEqual([
      expect.objectContaining({
        episode_started_at: '2026-04-02T10:00:30.050Z',
        task_ids: ['t1', 't2', 't3'],
        friction_path: 'friction/2026-04-02-mass-stall-e-1-100030.md',
      }),
    ]);
    expect(readFileSync(path.join(dir, escalated[0]!.friction_path as string), 'utf8')).toContain('# Mass stall held too long: E-1');
    expect(
      readEvents(dir)
        .filter((e) => e.event === 'action_started')
        .map((e) => e.task_id),
    ).toEqual(['t1', 't2', 't3']);
    expect(s.out.join('')).toContain(
      'circuit breaker held actions for 70s: ESCALATED (friction note friction/2026-04-02-mass-stall-e-1-100030.md); acting on stalls again',
    );
    for (let i = 0; i < 3; i++) await s.advance(10 * S);
    expect(readEvents(dir).filter((e) => e.event === 'mass_stall_escalated')).toHaveLength(1);
    s.stop();
    await s.done;
  });
});
