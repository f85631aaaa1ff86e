// The seed's whole cycle with real processes and the default mailbox adapter: the examples/
// orchestrator dispatches four `claude -p` (a fake that works or stalls as planned), one ticket
// stalls → request → its session resumed (silent mid-answer: the link to the API) → the resumed
// run stalls → a fresh redispatch (a second stall in a row is not the link's) → stalls again →
// escalation to Blocked on a fake Linear → the wave completes and `next` says so by itself.
// The same cycle survives a kill -9 of the watchdog at a random moment; an orchestrator that
// never answers ends in request_unanswered and an escalation, not silence.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN, REPO_ROOT, exited, runCli, until } from '../helpers/cli.js';
import { startLinearServer, type LinearServer } from '../helpers/linear-server.js';
import { readEvents } from '../helpers/state.js';
import { killFakeClaudes } from '../helpers/spawn-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'PROJ-1000';
const FAKE_CLAUDE = path.join(REPO_ROOT, 'test', 'fixtures', 'procs', 'fake-claude.mjs');
const ORCHESTRATOR = path.join(REPO_ROOT, 'dist', 'examples', 'orchestrator.js');
const TICKETS = ['PROJ-1001', 'PROJ-1002', 'PROJ-1003', 'PROJ-1004'];
/** Short windows so the cycle runs in seconds: a stall is 1 s of silence, checks at least every 0.25 s. */
const NEXT_FLAGS = ['--timeout', '1', '--check-interval', '0.25'];

interface World {
  dir: string;
  state: string;
  env: NodeJS.ProcessEnv;
  launches: () => { ticket: string; launch: number; behaviour: string }[];
}

/** A state dir with a config (fake Linear, answer deadline), a tickets file and the fake claude's plan. */
function world(linear: LinearServer, plan: Record<string, string[]>, deadlineSeconds: number): World {
  const dir = tempDir('dw-e2e-');
  const state = path.join(dir, '.onex_state');
  mkdirSync(state);
  writeFileSync(path.join(state, 'watchdog.config.yaml'), `linear:\n  api_url: ${linear.url}\nrequests:\n  deadline_seconds: ${deadlineSeconds}\n`);
  writeFileSync(path.join(dir, 'tickets.json'), JSON.stringify(TICKETS.map((t) => ({ ticket_id: t, prompt: `Implement ${t}: make the tests pass.` }))));
  writeFileSync(path.join(dir, 'plan.json'), JSON.stringify(plan));
  const launchLog = path.join(dir, 'launches.ndjson');
  const env = {
    FAKE_CLAUDE_PLAN: path.join(dir, 'plan.json'),
    FAKE_CLAUDE_LOG: launchLog,
    FAKE_CLAUDE_WORK_MS: '1200',
    LINEAR_API_KEY: 'lin_api_e2e',
    CLAUDE_CONFIG_DIR: path.join(dir, 'no-claude'),
    ONEX_STATE_DIR: state,
  };
  const launches = () =>
    existsSync(launchLog)
      ? readFileSync(launchLog, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
      : [];
  // A failed run must not leave stalled fakes behind: they never exit by themselves.
  onTestFinished(() => killFakeClaudes((launches() as { pid: number }[]).map((l) => l.pid)));
  return { dir, state, env, launches };
}

/** Start the examples/ orchestrator; `output()` is everything it printed. */
function startOrchestrator(w: World) {
  const args = [
    ORCHESTRATOR,
    '--epic-id',
    EPIC,
    '--tickets',
    path.join(w.dir, 'tickets.json'),
    '--state-dir',
    w.state,
    '--claude',
    FAKE_CLAUDE,
    '--watchdog',
    BIN,
    '--',
    ...NEXT_FLAGS,
  ];
  const child = spawn(process.execPath, args, { cwd: w.dir, env: { ...process.env, ...w.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.on('data', (d) => (text += d));
  child.stderr.on('data', (d) => (text += d));
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return Object.assign(child, { output: () => text });
}

const linearFor = () => startLinearServer({ issues: TICKETS.map((identifier, n) => ({ id: `issue-${n + 1}`, identifier })) });

/** Everything the seed cycle must leave behind, whatever happened to the watchdog on the way. */
async function expectSeedCycle(w: World, linear: LinearServer) {
  const events = readEvents(w.state).filter((e) => e.epic_id === EPIC);
  const of = (name: string) => events.filter((e) => e.event === name);

  // Exactly one request per stalled task instance: t2 and its first replacement were redispatched
  // once each; the second replacement was escalated, not redispatched.
  // (A key's files are its steps: the stop (.cancel.json) and the launch or the notice.)
  const keys = [...new Set(readdirSync(path.join(w.state, 'epics', EPIC, 'requests')).map((f) => f.split('.')[0]))].sort();
  expect(keys).toEqual(['PROJ-1000__t2-r1__redispatch', 'PROJ-1000__t2-r2__escalate', 'PROJ-1000__t2__redispatch']);
  // The first silence came after the fake's first words: resumed (unless a loaded machine kept it from writing them within the window: never started, fresh).
  const isResume = of('stall_detected').find((e) => e.task_id === 't2')?.stall_reason === 'inactivity';
  expect(of('redispatch').map((e) => [e.task_id, e.recovery_task_id])).toEqual([
    ['t2', 't2-r1'],
    ['t2-r1', 't2-r2'],
  ]);
  const modes = of('redispatch').map((e) => e.mode);
  expect(modes[0]).toBe(isResume ? 'resume' : undefined);
  if (isResume) expect(modes[1]).toBeUndefined(); // a second stall in a row gets a fresh agent
  expect(of('escalated_to_blocked').map((e) => [e.ticket_id, e.task_id])).toEqual([['PROJ-1002', 't2-r2']]);

  // Every replacement was watched: each was seen stalling, by its own task id.
  const stalled = new Set(of('stall_detected').map((e) => e.task_id));
  expect([...stalled].sort()).toEqual(['t2', 't2-r1', 't2-r2']);

  // Both requests were answered by the rows the orchestrator wrote; none went unanswered.
  expect(
    of('request_answered')
      .map((e) => [e.key, e.how])
      .sort(),
  ).toEqual([
    ['PROJ-1000:t2-r1:redispatch', 'row'],
    ['PROJ-1000:t2:redispatch', 'row'],
  ]);
  expect(of('request_unanswered')).toEqual([]);

  // The fake claude ran 3 times for PROJ-1002 and once for every other ticket: no extra launch.
  const counts = Object.fromEntries(TICKETS.map((t) => [t, w.launches().filter((l) => l.ticket === t).length]));
  expect(counts).toEqual({ 'PROJ-1001': 1, 'PROJ-1002': 3, 'PROJ-1003': 1, 'PROJ-1004': 1 });

  // Linear: PROJ-1002 moved to Blocked once, one comment.
  expect(linear.issue('PROJ-1002').stateId).toBe('state-blocked');
  expect(linear.issue('PROJ-1002').comments).toHaveLength(1);
  expect(linear.ops().filter((op) => op === 'updateIssue')).toHaveLength(1);

  // The rows as the orchestrator left them.
  const rows = (
    JSON.parse(readFileSync(path.join(w.state, 'epics', EPIC, 'state.yaml'), 'utf8')) as { current_wave: { tasks: { task_id: string; status: string }[] } }
  ).current_wave.tasks;
  expect(Object.fromEntries(rows.map((r) => [r.task_id, r.status]))).toEqual({
    t1: 'completed',
    t2: 'cancelled',
    t3: 'completed',
    t4: 'completed',
    't2-r1': 'cancelled',
    't2-r2': 'blocked',
  });

  // Nothing is left pending, and a new `next` agrees at once that the wave is complete.
  const again = await runCli(['next', '--epic-id', EPIC, '--json', ...NEXT_FLAGS], { env: w.env, cwd: w.dir });
  expect(again.code, again.stderr).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ reason: 'wave_complete', requests: [], pending: [], wave: { in_flight: 0, pending_requests: 0 } });
}

describe('the seed cycle, end to end', () => {
  it('stall → redispatch → stall → redispatch → stall → escalation → the wave completes', async () => {
    const linear = await linearFor();
    const w = world(linear, { 'PROJ-1002': ['stall', 'stall', 'stall'] }, 30);
    const orch = startOrchestrator(w);
    const { code } = await exited(orch);
    expect(code, orch.output()).toBe(0);
    expect(orch.output()).toMatch(/wave complete: t1=completed t2=cancelled t3=completed t4=completed t2-r1=cancelled t2-r2=blocked/);
    await expectSeedCycle(w, linear);
  }, 90_000);

  // The moment is random on purpose: printed, so a failure can be replayed with DW_KILL_MS=<ms>.
  const killAfterMs = Number(process.env.DW_KILL_MS) || 300 + Math.floor(Math.random() * 3700);
  it(`changes nothing when the watchdog is killed -9 at a random moment (${killAfterMs} ms after the first next)`, async () => {
    const linear = await linearFor();
    const w = world(linear, { 'PROJ-1002': ['stall', 'stall', 'stall'] }, 30);
    const orch = startOrchestrator(w);
    await until(() => /next pid \d+/.test(orch.output()), 20_000, 'the first next');
    await new Promise((r) => setTimeout(r, killAfterMs));
    const pids = [...orch.output().matchAll(/next pid (\d+)/g)].map((m) => Number(m[1]));
    const victim = pids.at(-1)!;
    let killed = false;
    try {
      process.kill(victim, 'SIGKILL');
      killed = true;
    } catch {
      // That next had just exited: the orchestrator is between two runs; kill the one it starts.
    }
    if (!killed && orch.exitCode === null) {
      await until(() => [...orch.output().matchAll(/next pid (\d+)/g)].length > pids.length, 20_000, 'the following next');
      process.kill(Number([...orch.output().matchAll(/next pid (\d+)/g)].at(-1)![1]), 'SIGKILL');
    }
    const timer = setTimeout(
      () => console.log(`still running after 60 s:\n${orch.output()}\nrequests: ${readdirSync(path.join(w.state, 'epics', EPIC, 'requests')).join(' ')}`),
      60_000,
    );
    const { code } = await exited(orch);
    clearTimeout(timer);
    expect(code, orch.output()).toBe(0);
    expect(orch.output()).toContain('next was killed by SIGKILL; running it again');
    await expectSeedCycle(w, linear);
  }, 90_000);
});

describe('an orchestrator that never answers', () => {
  it('ends with request_unanswered and an escalation, not silence', async () => {
    const linear = await linearFor();
    const w = world(linear, { 'PROJ-1002': ['stall'] }, 2);
    // It dispatches (the fake claude, as the orchestrator would) and then only reads what next says.
    const now = new Date().toISOString();
    const rows = TICKETS.map((ticket, n) => {
      const out = path.join(w.dir, `t${n + 1}.jsonl`);
      const child = spawn(FAKE_CLAUDE, ['-p', `Implement ${ticket}.`, '--output-format', 'stream-json', '--verbose'], {
        env: { ...process.env, ...w.env },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      child.stdout.on('data', (d) => writeFileSync(out, d, { flag: 'a' }));
      return { task_id: `t${n + 1}`, ticket_id: ticket, status: 'in_progress', dispatched_at: now, pid: child.pid, transcript_path: out, child };
    });
    const file = path.join(w.state, 'epics', EPIC, 'state.yaml');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ current_wave: { wave_id: 1, dispatched_at: now, tasks: rows.map(({ child: _, ...r }) => r) } }));
    try {
      const codes: number[] = [];
      const deadline = Date.now() + 60_000;
      // Run next until it reports the escalation; each run must return by itself.
      for (;;) {
        const r = await runCli(['next', '--epic-id', EPIC, '--json', ...NEXT_FLAGS], { env: w.env, cwd: w.dir });
        codes.push(r.code);
        // 13: the agents that finished while their rows stayed in_progress bring reconcile requests.
        expect([10, 11, 12, 13], r.stderr).toContain(r.code);
        if ((JSON.parse(r.stdout) as { escalations: unknown[] }).escalations.length > 0) break;
        expect(Date.now(), `next codes so far: ${codes.join(', ')}`).toBeLessThan(deadline);
      }
      expect(codes[0]).toBe(10);
      expect(codes).toContain(11);
      const events = readEvents(w.state).filter((e) => e.epic_id === EPIC);
      // Each unanswered redispatch counts as a failed attempt: t2's, then the one for its would-be
      // replacement; the cap reached, the ticket is escalated.
      expect(events.filter((e) => e.event === 'request_unanswered' && e.kind === 'redispatch').map((e) => e.key)).toEqual([
        'PROJ-1000:t2:redispatch',
        'PROJ-1000:t2-r1:redispatch',
      ]);
      // Never answered either: the reconcile requests about rows whose agents finished; they cost no attempt.
      expect(events.filter((e) => e.event === 'request_unanswered' && e.kind !== 'redispatch').every((e) => e.kind === 'reconcile')).toBe(true);
      expect(events.filter((e) => e.event === 'escalated_to_blocked').map((e) => e.ticket_id)).toEqual(['PROJ-1002']);
      expect(linear.issue('PROJ-1002').stateId).toBe('state-blocked');
    } finally {
      for (const r of rows) r.child.kill('SIGKILL');
    }
  }, 90_000);
});
