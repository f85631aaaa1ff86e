// Recovery actions end to end through the real CLI (DESIGN §8, §9): cancel, redispatch and escalate
// with the mailbox and process adapters, the redispatch cap read back from earlier days' logs, the
// guards (an action under way, the circuit breaker, one watchdog per epic) and `dispatch-watchdog recover`.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { renderRecoveryPrompt } from '../../src/act/recovery/checkpoint.js';
import { probeProcess } from '../../src/sys/proc-identity.js';
import { parseCheckpoint } from '../../src/contracts/checkpoint.js';
import { exited, runCli, spawnCli, until, type CliResult } from '../helpers/cli.js';
import { replies, startLinearServer } from '../helpers/linear-server.js';
import { fixture, spawnFixture } from '../helpers/spawn-fixture.js';
import { readEvents, readWatchdogJson, writeWave, type RowSpec } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';
const SECRET = 'lin_api_ACTIONSTEST_s3cr3t_9876543210';
const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();
const NO_KEY = { LINEAR_API_KEY: '' };

/** One check of epic E-1 with a 1 s window. */
const once = (dir: string, args: string[] = [], env: NodeJS.ProcessEnv = NO_KEY) =>
  runCli(['--epic-id', EPIC, '--state-dir', dir, '--once', '--timeout', '1', ...args], { env });

const events = (dir: string, name?: string, key?: string) => readEvents(dir).filter((e) => (!name || e.event === name) && (!key || e.key === key));
const requestFile = (dir: string, key: string, kind: 'cancel' | 'redispatch') =>
  path.join(dir, 'epics', EPIC, 'requests', `${key.replaceAll(':', '__')}.${kind}.json`);
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>;
const config = (dir: string, cfg: object) => writeFileSync(path.join(dir, 'watchdog.config.yaml'), stringify(cfg));
/** A stalled row: silent for `s` seconds. */
const stalled = (taskId: string, ticketId: string, s = 600, extra: Partial<RowSpec> = {}): RowSpec => ({
  task_id: taskId,
  ticket_id: ticketId,
  status: 'in_progress',
  dispatched_at: ago(s),
  last_activity_ts: ago(s),
  ...extra,
});

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? allFiles(p) : [p];
  });
}

/** Append dispatch-log lines to one day's file, as an earlier run would have. */
function logLines(dir: string, day: string, lines: Record<string, unknown>[]) {
  mkdirSync(path.join(dir, 'dispatch-log'), { recursive: true });
  for (const l of lines)
    appendFileSync(
      path.join(dir, 'dispatch-log', `${day}.ndjson`),
      JSON.stringify({ timestamp_utc: `${day}T10:00:00.000Z`, run_id: 'earlier-run', ...l }) + '\n',
    );
}
const ids = (ticket: string, task: string) => ({ ticket_id: ticket, task_id: task, agent_id: task });

describe('cancel', () => {
  it('mailbox: writes one cancel request; the task stays stalled until the orchestrator answers (row terminal)', async () => {
    const dir = tempDir();
    // The answer deadline is the test's, not 2 × the 1 s window a loaded machine can outrun between two runs.
    config(dir, { requests: { deadline_seconds: 3600 } });
    writeWave(dir, EPIC, ago(600), [stalled('t1', 'ENG-1')]);
    const r = await once(dir, ['--action', 'cancel']);
    expect(r.code).toBe(3);
    const key = `${EPIC}:t1:cancel`;
    expect(readJson(requestFile(dir, key, 'cancel'))).toMatchObject({
      schema_version: '1',
      kind: 'cancel',
      key,
      epic_id: EPIC,
      task_id: 't1',
      ticket_id: 'ENG-1',
      reason: expect.stringMatching(/^stalled: inactivity, idle \d+s$/),
    });
    expect(events(dir).map((e) => e.event)).toEqual(['stall_detected', 'action_started', 'agent_killed']);
    expect(events(dir, 'agent_killed')[0]).toMatchObject({ key, adapter: 'mailbox', step: 'cancel', was_forced: false });
    expect(readWatchdogJson(dir, EPIC).stalls_detected[0]).toMatchObject({ task_id: 't1', action_taken: 'cancel' });

    // The orchestrator has not answered yet: t1 is still stalled (never shown as done), the request pending.
    const again = await once(dir, ['--action', 'cancel']);
    expect(again.code).toBe(3);
    expect(again.stdout).toMatch(/^t1 +ENG-1 +STALLED /m);
    expect(again.stdout).toContain(`  t1 (ENG-1): awaiting_orchestrator, attempt 1`);
    expect(again.stdout).toContain(`  pending cancel t1 (ENG-1), answer by `);
    expect(events(dir)).toHaveLength(3);

    // It stops the agent and marks the row: the cancel is answered, the wave done.
    writeWave(dir, EPIC, ago(600), [stalled('t1', 'ENG-1', 600, { status: 'cancelled' })]);
    const third = await once(dir, ['--action', 'cancel']);
    expect(third.code).toBe(0);
    expect(events(dir).slice(3)).toEqual([expect.objectContaining({ event: 'request_answered', key, kind: 'cancel', how: 'terminal', task_id: 't1' })]);
  }, 90_000); // three CLI runs: on a loaded machine each takes seconds

  it('process: stops a real agent with SIGTERM, and one that ignores SIGTERM with SIGKILL (was_forced)', async () => {
    const dir = tempDir();
    const polite = await spawnFixture('sleep-forever.mjs');
    const stubborn = await spawnFixture('ignore-sigterm.mjs');
    // A grace the polite agent cannot outlast however loaded the machine (it is gone as soon as it
    // runs), then a short one for the agent that ignores SIGTERM: two runs, each grace set by the test.
    config(dir, { agents: { adapter: 'process', kill_grace_ms: 60_000 } });
    writeWave(dir, EPIC, ago(3), [stalled('t1', 'ENG-1', 3, { pid: polite.pid })]);
    expect(await once(dir, ['--action', 'cancel'])).toMatchObject({ code: 3, stderr: '' });
    expect(await polite.exited).toEqual({ code: null, signal: 'SIGTERM' });
    config(dir, { agents: { adapter: 'process', kill_grace_ms: 50 } });
    writeWave(dir, EPIC, ago(3), [stalled('t1', 'ENG-1', 3, { pid: polite.pid }), stalled('t2', 'ENG-2', 3, { pid: stubborn.pid })]);
    const r = await once(dir, ['--action', 'cancel']);
    expect(r).toMatchObject({ code: 3, stderr: '' });
    expect(await stubborn.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const killed = events(dir, 'agent_killed');
    expect(killed).toEqual([
      expect.objectContaining({ key: `${EPIC}:t1:cancel`, adapter: 'process', was_forced: false, detail: `process ${polite.pid} stopped after SIGTERM.` }),
      expect.objectContaining({
        key: `${EPIC}:t2:cancel`,
        adapter: 'process',
        was_forced: true,
        detail: `process ${stubborn.pid} ignored SIGTERM for 50 ms and was killed with SIGKILL.`,
      }),
    ]);
    expect(events(dir, 'action_started').map((e) => e.pid)).toEqual([polite.pid, stubborn.pid]);
  });
});

describe('redispatch', () => {
  it('mailbox: a validated checkpoint, a request with its path and the full prompt; t1 → t1-r1 → t1-r2 across runs, then the cap escalates', async () => {
    const dir = tempDir();
    const row = { remaining_work: ['Add the retry test', 'Update the changelog'], completed_items: ['Implement retry'], last_output: 'Running the suite' };
    writeWave(dir, EPIC, ago(900), [stalled('t1', 'ENG-7', 900, row)]);

    // Run 1: t1 → t1-r1.
    expect((await once(dir)).code).toBe(3);
    const key1 = `${EPIC}:t1:redispatch`;
    const cpFile = path.join(dir, 'pipeline_checkpoints', 'ENG-7', 'recovery-1.yaml');
    const cp = parseCheckpoint(readFileSync(cpFile, 'utf8'), cpFile);
    if (!cp.ok) throw new Error(cp.error.describe());
    expect(cp.value).toMatchObject({
      schema_version: '1',
      epic_id: EPIC,
      ticket_id: 'ENG-7',
      task_id: 't1',
      attempt: 1,
      recovery_task_id: 't1-r1',
      stall_reason: 'inactivity',
      completed_work: ['Implement retry'],
      remaining_work: ['Add the retry test', 'Update the changelog'],
      last_output: 'Running the suite',
      supersedes: null,
    });
    const request = readJson(requestFile(dir, key1, 'redispatch'));
    expect(request).toEqual({
      schema_version: '1',
      kind: 'redispatch',
      key: key1,
      epic_id: EPIC,
      task_id: 't1',
      ticket_id: 'ENG-7',
      reason: expect.any(String),
      created_at: expect.any(String),
      redispatch_attempt: 1,
      recovery_task_id: 't1-r1',
      checkpoint_path: cpFile,
      prompt: renderRecoveryPrompt(cp.value, { checkpointPath: cpFile }),
      answer_by: expect.any(String),
      how_to_answer: expect.stringContaining('add a row with task_id t1-r1'),
    });
    // Default deadline: 2 × the base window (1 s here).
    expect(Date.parse(request.answer_by) - Date.parse(request.created_at)).toBe(2000);
    expect(request.prompt).toContain('1. Add the retry test\n2. Update the changelog');
    expect(existsSync(requestFile(dir, key1, 'cancel'))).toBe(true); // the stalled agent is stopped first
    expect(events(dir, 'redispatch', key1)).toEqual([
      expect.objectContaining({
        recovery_task_id: 't1-r1',
        redispatch_attempt: 1,
        max_redispatches: 2,
        checkpoint_path: 'pipeline_checkpoints/ENG-7/recovery-1.yaml',
        remaining_tasks: row.remaining_work,
      }),
    ]);

    // Run 2: the orchestrator started t1-r1 (it still lists t1 as in progress); t1-r1 stalls → t1-r2.
    writeWave(dir, EPIC, ago(900), [stalled('t1', 'ENG-7', 900, row), stalled('t1-r1', 'ENG-7', 300)]);
    expect((await once(dir)).code).toBe(3);
    const key2 = `${EPIC}:t1-r1:redispatch`;
    expect(events(dir, 'action_started').map((e) => e.key)).toEqual([key1, key2]);
    expect(events(dir, 'redispatch', key2)).toEqual([expect.objectContaining({ task_id: 't1-r1', recovery_task_id: 't1-r2', redispatch_attempt: 2 })]);
    const cp2 = readFileSync(path.join(dir, 'pipeline_checkpoints', 'ENG-7', 'recovery-2.yaml'), 'utf8');
    expect(cp2).toContain('supersedes: pipeline_checkpoints/ENG-7/recovery-1.yaml');
    expect(readJson(requestFile(dir, key2, 'redispatch'))).toMatchObject({ task_id: 't1-r1', recovery_task_id: 't1-r2', redispatch_attempt: 2 });

    // Run 3: t1-r2 stalls too; two redispatches are the cap, so the ticket is escalated (no LINEAR_API_KEY: tracker skipped).
    writeWave(dir, EPIC, ago(900), [stalled('t1-r1', 'ENG-7', 300, { status: 'superseded' }), stalled('t1-r2', 'ENG-7', 200)]);
    expect((await once(dir)).code).toBe(3);
    expect(events(dir, 'stall_detected').at(-1)).toMatchObject({ task_id: 't1-r2', redispatch_attempt: 3, max_redispatches: 2, action_taken: 'escalate' });
    expect(events(dir, 'escalated_to_blocked')).toEqual([expect.objectContaining({ key: `${EPIC}:t1-r2:escalate`, attempt_count: 3, tracker: 'skipped' })]);
    expect(events(dir, 'redispatch')).toHaveLength(2);
  });

  it('process: tracks the replacement it launched from its own log, kills it by its recorded identity, and completes the wave', async () => {
    const dir = tempDir();
    const agent = await spawnFixture('sleep-forever.mjs');
    // Replacements are real processes that never make progress, so each one stalls in turn.
    // Every agent here stops on SIGTERM: a grace no loaded machine outlasts pins "stopped after SIGTERM".
    config(dir, {
      agents: { adapter: 'process', kill_grace_ms: 60_000, redispatch_argv: [process.execPath, fixture('sleep-forever.mjs'), '{recovery_task_id}'] },
    });
    writeWave(dir, EPIC, ago(3), [stalled('t1', 'ENG-9', 3, { pid: agent.pid })]);
    onTestFinished(async () => {
      for (const e of events(dir, 'redispatch')) {
        const p = await probeProcess(Number(e.pid));
        if (p.kind === 'alive' && p.identity.startTicks === e.start_ticks) process.kill(Number(e.pid), 'SIGKILL');
      }
    });
    const child = spawnCli(['--epic-id', EPIC, '--state-dir', dir, '--timeout', '1', '--check-interval', '0.5'], { env: NO_KEY });
    onTestFinished(() => void child.kill('SIGKILL'));
    expect(await exited(child)).toEqual({ code: 0, signal: null });

    const [r1, r2] = events(dir, 'redispatch');
    expect(r1).toMatchObject({
      key: `${EPIC}:t1:redispatch`,
      recovery_task_id: 't1-r1',
      pid: expect.any(Number),
      start_ticks: expect.any(Number),
      output_path: 'epics/E-1/agents/t1-r1.log',
    });
    expect(r2).toMatchObject({ key: `${EPIC}:t1-r1:redispatch`, task_id: 't1-r1', recovery_task_id: 't1-r2', redispatch_attempt: 2 });
    expect(events(dir, 'action_started', `${EPIC}:t1-r1:redispatch`)[0]).toMatchObject({ pid: r1!.pid, start_ticks: r1!.start_ticks });
    expect(events(dir, 'agent_killed').map((e) => [e.key, e.detail])).toEqual([
      [`${EPIC}:t1:redispatch`, `process ${agent.pid} stopped after SIGTERM.`],
      [`${EPIC}:t1-r1:redispatch`, `process ${r1!.pid} stopped after SIGTERM.`],
      [`${EPIC}:t1-r2:escalate`, `process ${r2!.pid} stopped after SIGTERM.`],
    ]);
    expect(events(dir, 'escalated_to_blocked')).toEqual([expect.objectContaining({ task_id: 't1-r2', attempt_count: 3, tracker: 'skipped' })]);
    expect(events(dir).at(-1)).toMatchObject({ event: 'watchdog_stopped', reason: 'wave_complete' });
    expect(await agent.exited).toEqual({ code: null, signal: 'SIGTERM' });
    for (const e of [r1!, r2!]) expect((await probeProcess(Number(e.pid))).kind).toBe('gone');
    expect(readFileSync(path.join(dir, 'epics/E-1/agents/t1-r1.prompt.md'), 'utf8')).toContain(
      'Recovery redispatch #1 for ENG-9 (you are t1-r1; you replace t1).',
    );
  });
});

describe('escalation at the cap, which survives restarts (earlier days, any epic, exact ticket match)', () => {
  const CASES: [string, NodeJS.ProcessEnv, boolean, string, number][] = [
    // [name, env, answer 401, tracker, Linear requests]
    ['with LINEAR_API_KEY: moved to Blocked, one comment', { LINEAR_API_KEY: SECRET }, false, 'updated', 5],
    ['without LINEAR_API_KEY: friction note and event, tracker skipped', NO_KEY, false, 'skipped', 0],
    ['Linear answers 401: no retry, the escalation is still recorded', { LINEAR_API_KEY: SECRET }, true, 'failed', 1],
  ];
  it.each(CASES)('%s', async (_name, env, unauthorized, tracker, requestCount) => {
    const dir = tempDir();
    const linear = await startLinearServer();
    if (unauthorized) linear.handle(() => replies.unauthorized());
    config(dir, { linear: { api_url: linear.url } });
    // Two redispatches of ENG-123 by an earlier watchdog of another epic, on two earlier days; ENG-1234's do not count for ENG-123 or ENG-12.
    logLines(dir, '2026-01-01', [
      {
        event: 'stall_detected',
        epic_id: 'E-0',
        ...ids('ENG-123', 't1'),
        stall_reason: 'inactivity',
        idle_seconds: 600,
        bash_timeout_exemption: false,
        redispatch_attempt: 1,
        max_redispatches: 2,
        action_taken: 'redispatch',
      },
      { event: 'redispatch', epic_id: 'E-0', ...ids('ENG-123', 't1'), key: 'E-0:t1:redispatch', redispatch_attempt: 1, recovery_task_id: 't1-r1' },
      { event: 'redispatch', epic_id: 'E-0', ...ids('ENG-1234', 't4'), key: 'E-0:t4:redispatch', redispatch_attempt: 1, recovery_task_id: 't4-r1' },
    ]);
    logLines(dir, '2026-01-02', [
      { event: 'redispatch', epic_id: 'E-0', ...ids('ENG-123', 't1-r1'), key: 'E-0:t1-r1:redispatch', redispatch_attempt: 2, recovery_task_id: 't1-r2' },
      { event: 'redispatch', epic_id: 'E-0', ...ids('ENG-1234', 't4-r1'), key: 'E-0:t4-r1:redispatch', redispatch_attempt: 2, recovery_task_id: 't4-r2' },
    ]);
    writeWave(dir, EPIC, ago(600), [stalled('t1-r2', 'ENG-123'), stalled('t5', 'ENG-12')]);

    const r = await once(dir, [], env);
    expect(r.code).toBe(3);
    const key = `${EPIC}:t1-r2:escalate`;
    expect(events(dir, 'action_started').map((e) => e.key)).toEqual([key, `${EPIC}:t5:redispatch`]);
    expect(events(dir, 'redispatch', `${EPIC}:t5:redispatch`)[0]).toMatchObject({ recovery_task_id: 't5-r1', redispatch_attempt: 1 });
    const [escalated, ...more] = events(dir, 'escalated_to_blocked');
    expect(more).toEqual([]);
    expect(escalated).toMatchObject({
      key,
      ticket_id: 'ENG-123',
      attempt_count: 3,
      tracker,
      friction_path: expect.stringMatching(/^friction\/\d{4}-\d{2}-\d{2}-stall-escalation-eng-123\.md$/),
    });
    const note = readFileSync(path.join(dir, String(escalated!.friction_path)), 'utf8');
    for (const heading of ['## Summary', '## Evidence', '## Root Cause Hypothesis', '## Recommended Action']) expect(note).toContain(heading);
    expect(note).toContain('dispatch-log/2026-01-01.ndjson');

    expect(linear.requests).toHaveLength(requestCount);
    if (tracker === 'updated') {
      expect(linear.ops()).toEqual(['issue', 'workflowStates', 'updateIssue', 'dispatchWatchdogIssueComments', 'createComment']);
      expect(linear.issue('ENG-123')).toMatchObject({ stateId: 'state-blocked', comments: [{ body: expect.stringContaining(`dispatch-watchdog:${key}`) }] });
      // The comment's stall history spans the days: the stall of 2026-01-01 and today's.
      const body = linear.issue('ENG-123').comments[0]!.body;
      expect(body).toContain('| 1 | 2026-01-01T10:00:00.000Z | t1 | 1 | 10m 00s | inactivity |');
      expect(body).toMatch(/\| 2 \| \d{4}-\d{2}-\d{2}T[\d:.]+Z \| t1-r2 \| 3 \| /);
      expect(linear.requests[0]!.headers.authorization).toBe(SECRET); // the key goes to Linear, and only there
    }
    if (tracker === 'skipped') expect(escalated!.tracker_detail).toBe('LINEAR_API_KEY is not set: the ticket was not moved');
    if (tracker === 'failed') expect(escalated!.tracker_detail).toMatch(/^Linear escalation of ENG-123 failed at "look up the issue": /);

    // The key never appears in the output or in any file under the state dir.
    for (const text of [r.stdout, r.stderr, ...allFiles(dir).map((f) => readFileSync(f, 'utf8'))]) expect(text).not.toContain(SECRET);
  });
});

describe('guards', () => {
  it('a stalled task that already has an action under way is never acted on again, whatever the strategy', async () => {
    const dir = tempDir();
    const key = `${EPIC}:t1:redispatch`;
    // An earlier run started a redispatch of t1 and crashed; its start-up recovery reported it as an orphan.
    logLines(dir, '2026-01-03', [
      { event: 'action_started', epic_id: EPIC, ...ids('ENG-1', 't1'), key, action: 'redispatch', redispatch_attempt: 1, recovery_task_id: 't1-r1' },
      { event: 'recovery_summary', epic_id: EPIC, done: [], finished: [], orphans: [key], orphan_count: 1 },
    ]);
    writeWave(dir, EPIC, ago(600), [stalled('t1', 'ENG-1')]);
    const before = events(dir).length;
    for (const args of [[], ['--action', 'cancel'], []]) expect((await once(dir, args)).code).toBe(3);
    expect(events(dir).slice(before)).toEqual([expect.objectContaining({ event: 'stall_detected', task_id: 't1', action_taken: 'already_under_way' })]);
    expect(readWatchdogJson(dir, EPIC).stalls_detected[0]).toMatchObject({ task_id: 't1', action_taken: 'already_under_way' });
    expect(existsSync(path.join(dir, 'epics', EPIC, 'requests'))).toBe(false);
  });

  it('circuit breaker: 3 of 4 in flight stall at once → no action, one mass_stall; a lone stall later is acted on', async () => {
    const dir = tempDir();
    const healthy = (id: string) => ({
      task_id: id,
      ticket_id: `ENG-${id}`,
      status: 'in_progress',
      dispatched_at: ago(600),
      last_activity_ts: new Date(Date.now() + 60_000).toISOString(),
    });
    writeWave(dir, EPIC, ago(600), [stalled('t1', 'ENG-t1'), stalled('t2', 'ENG-t2'), stalled('t3', 'ENG-t3'), healthy('t4')]);
    for (let i = 0; i < 2; i++) expect((await once(dir)).code).toBe(3);
    expect(events(dir, 'mass_stall')).toEqual([expect.objectContaining({ stalled: 3, in_flight: 4, task_ids: ['t1', 't2', 't3'] })]);
    expect(events(dir, 'stall_detected').map((e) => e.action_taken)).toEqual(['held:mass_stall', 'held:mass_stall', 'held:mass_stall']);
    expect(events(dir, 'action_started')).toEqual([]);
    expect(existsSync(path.join(dir, 'epics', EPIC, 'requests'))).toBe(false);

    // t2 and t3 come back; t1 alone is stalled: the breaker lets its redispatch through.
    writeWave(dir, EPIC, ago(600), [stalled('t1', 'ENG-t1'), healthy('t2'), healthy('t3'), healthy('t4')]);
    expect((await once(dir)).code).toBe(3);
    expect(events(dir, 'action_started').map((e) => e.key)).toEqual([`${EPIC}:t1:redispatch`]);
    expect(events(dir, 'mass_stall')).toHaveLength(1);
  });

  it('a second watchdog, or `recover`, is refused while one runs (exit 2 naming its pid)', async () => {
    const dir = tempDir();
    writeWave(dir, EPIC, ago(10), [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', last_activity_ts: new Date(Date.now() + 60_000).toISOString() },
    ]);
    const first = spawnCli(['--epic-id', EPIC, '--state-dir', dir]);
    onTestFinished(() => void first.kill('SIGKILL'));
    await until(() => events(dir, 'watchdog_started').length > 0, 10_000, 'the first watchdog');
    const refused = [await once(dir), await runCli(['recover', '--epic-id', EPIC, '--state-dir', dir])];
    for (const r of refused) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`another dispatch-watchdog (pid ${first.pid}, since `);
    }
    first.kill('SIGTERM');
    expect(await exited(first)).toEqual({ code: 0, signal: null });
    expect(events(dir).map((e) => e.event)).toEqual(['watchdog_started', 'healthy', 'watchdog_stopped']);
  });
});

describe('SIGTERM during an action', () => {
  it('finishes the action in flight, journals it, then stops', async () => {
    const dir = tempDir();
    const stubborn = await spawnFixture('ignore-sigterm.mjs');
    // A long grace, so the signal surely arrives while the agent is being stopped.
    config(dir, { agents: { adapter: 'process', kill_grace_ms: 1500 } });
    writeWave(dir, EPIC, ago(3), [stalled('t1', 'ENG-1', 3, { pid: stubborn.pid })]);
    const child = spawnCli(['--epic-id', EPIC, '--state-dir', dir, '--timeout', '1', '--action', 'cancel']);
    onTestFinished(() => void child.kill('SIGKILL'));
    await until(() => events(dir, 'action_started').length > 0, 10_000, 'the cancel to start');
    child.kill('SIGTERM');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(await stubborn.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(
      events(dir)
        .slice(-3)
        .map((e) => [e.event, e.key ?? e.signal]),
    ).toEqual([
      ['action_started', `${EPIC}:t1:cancel`],
      ['agent_killed', `${EPIC}:t1:cancel`],
      ['watchdog_stopped', 'SIGTERM'],
    ]);
    expect(events(dir, 'agent_killed')[0]).toMatchObject({ was_forced: true });
  });
});

describe('dispatch-watchdog recover', () => {
  it('settles what a crash left: one already done, one finished now; prints it, then has nothing left', async () => {
    const dir = tempDir();
    writeWave(dir, EPIC, ago(600), [stalled('t1', 'ENG-1'), stalled('t2', 'ENG-2')]);
    const cancelKey = `${EPIC}:t1:cancel`;
    const redispatchKey = `${EPIC}:t2:redispatch`;
    logLines(dir, '2026-01-04', [
      { event: 'action_started', epic_id: EPIC, ...ids('ENG-1', 't1'), key: cancelKey, action: 'cancel', adapter: 'mailbox' },
      {
        event: 'action_started',
        epic_id: EPIC,
        ...ids('ENG-2', 't2'),
        key: redispatchKey,
        action: 'redispatch',
        adapter: 'mailbox',
        redispatch_attempt: 1,
        recovery_task_id: 't2-r1',
      },
    ]);
    // The cancel request of t1 was written before the crash; nothing of t2's redispatch was.
    mkdirSync(path.dirname(requestFile(dir, cancelKey, 'cancel')), { recursive: true });
    writeFileSync(requestFile(dir, cancelKey, 'cancel'), JSON.stringify({ schema_version: '1', kind: 'cancel', key: cancelKey }));

    const r: CliResult = await runCli(['recover', '--epic-id', EPIC, '--state-dir', dir]);
    expect(r).toEqual({ code: 0, stdout: `recovery of epic ${EPIC}: 1 already done, 1 finished now, 0 orphaned\n`, stderr: '' });
    expect(
      events(dir)
        .slice(2)
        .map((e) => [e.event, e.key ?? '']),
    ).toEqual([
      ['agent_killed', cancelKey],
      ['agent_killed', redispatchKey],
      ['redispatch', redispatchKey],
      ['recovery_summary', ''],
    ]);
    expect(events(dir, 'recovery_summary')[0]).toMatchObject({ done: [cancelKey], finished: [redispatchKey], orphans: [], orphan_count: 0 });
    expect(readJson(requestFile(dir, cancelKey, 'cancel'))).toEqual({ schema_version: '1', kind: 'cancel', key: cancelKey }); // not rewritten
    expect(readJson(requestFile(dir, redispatchKey, 'redispatch'))).toMatchObject({
      recovery_task_id: 't2-r1',
      checkpoint_path: path.join(dir, 'pipeline_checkpoints/ENG-2/recovery-1.yaml'),
    });

    const json = await runCli(['recover', '--epic-id', EPIC, '--state-dir', dir, '--json']);
    expect(json).toEqual({ code: 0, stdout: '{"done":[],"finished":[],"orphans":[]}\n', stderr: '' });
    expect(events(dir, 'recovery_summary')).toHaveLength(1);
  });
});
