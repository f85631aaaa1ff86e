// Crash safety (DESIGN §8, STYLE §8): the real CLI SIGKILLs itself at every step boundary of cancel,
// redispatch and escalate (DISPATCH_WATCHDOG_TEST_CRASH, see src/sys/crash-point.ts), then a
// restart settles what it left. Whatever the crash point, each run ends with exactly one kill of the
// real agent process, one launch of a replacement (counted by the fake agent itself), one Linear state
// change and one comment (the fake server's request log), and an orphan reported once and never fired.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { probeProcess } from '../../src/sys/proc-identity.js';
import { exited, runCli, spawnCli, type CliResult } from '../helpers/cli.js';
import { startLinearServer } from '../helpers/linear-server.js';
import { fixture, spawnFixture, waitFor } from '../helpers/spawn-fixture.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';
const TICKET = 'ENG-123';
const SECRET = 'lin_api_CRASHTEST_s3cr3t_0123456789';

type Strategy = 'cancel' | 'redispatch' | 'resume' | 'escalate';
const STRATEGY_ARGS: Record<Strategy, string[]> = {
  cancel: ['--action', 'cancel'],
  redispatch: [],
  resume: [], // a redispatch whose stall is transport (a frozen stream): agents.resume_argv
  escalate: ['--max-redispatches', '0'], // the cap is reached at the first stall
};
const KEY = (s: Strategy) => `${EPIC}:t1:${s === 'resume' ? 'redispatch' : s}`;
const OUTCOME: Record<Strategy, string> = { cancel: 'agent_killed', redispatch: 'redispatch', resume: 'redispatch', escalate: 'escalated_to_blocked' };

const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();

/** Every file under `dir`, recursively. */
function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? allFiles(p) : [p];
  });
}

/** A stalled task t1 whose agent is a real child process, the process adapter, and a fake Linear. */
async function scene(strategy: Strategy = 'redispatch') {
  const dir = tempDir('dw-crash-');
  const launches = path.join(tempDir('dw-launches-'), 'launches.ndjson');
  const linear = await startLinearServer();
  const agent = await spawnFixture('sleep-forever.mjs');
  writeFileSync(
    path.join(dir, 'watchdog.config.yaml'),
    stringify({
      agents: {
        adapter: 'process',
        kill_grace_ms: 60_000,
        redispatch_argv: [process.execPath, fixture('fake-agent.mjs'), launches, '{recovery_task_id}', '{attempt}'],
        resume_argv: [process.execPath, fixture('fake-agent.mjs'), launches, '--resume', '{session_id}'],
      },
      linear: { api_url: linear.url },
    }),
  );
  // Dispatched 3 s ago (the agent started within the 5 s identity tolerance), silent since: stalled at --timeout 1.
  // For a resume, its transcript too: the last record a tool result, then silence (the model's answer never came).
  const transcript = path.join(dir, 's-1.jsonl');
  const rec = (type: string, content: unknown) => JSON.stringify({ type, timestamp: ago(3), sessionId: 's-1', message: { role: type, content } });
  if (strategy === 'resume')
    writeFileSync(
      transcript,
      [
        rec('user', 'fix it'),
        rec('assistant', [{ type: 'tool_use', id: 'tu1', name: 'Bash', input: {} }]),
        rec('user', [{ type: 'tool_result', tool_use_id: 'tu1', content: 'ok' }]),
      ].join('\n') + '\n',
    );
  const resume = strategy === 'resume' ? { session_id: 's-1', transcript_path: transcript } : {};
  writeWave(dir, EPIC, ago(3), [
    { task_id: 't1', ticket_id: TICKET, status: 'in_progress', pid: agent.pid, dispatched_at: ago(3), last_activity_ts: ago(3), ...resume },
  ]);
  const outputs: string[] = [];
  const env = { LINEAR_API_KEY: SECRET };
  const base = (s: Strategy) => ['--epic-id', EPIC, '--state-dir', dir, '--timeout', '1', ...STRATEGY_ARGS[s]];
  return {
    dir,
    agent,
    linear,
    outputs,
    /** Run the watchdog once with the crash point set; resolves once it has SIGKILLed itself. */
    async crash(s: Strategy, point: string) {
      const child = spawnCli([...base(s), '--once'], { env: { ...env, DISPATCH_WATCHDOG_TEST_CRASH: point } });
      onTestFinished(() => void child.kill('SIGKILL'));
      const end = await exited(child);
      outputs.push(child.output());
      return end;
    },
    async once(s: Strategy): Promise<CliResult> {
      const r = await runCli([...base(s), '--once'], { env });
      outputs.push(r.stdout, r.stderr);
      return r;
    },
    async recover(): Promise<CliResult> {
      const r = await runCli(['recover', '--epic-id', EPIC, '--state-dir', dir], { env });
      outputs.push(r.stdout, r.stderr);
      return r;
    },
    launched: () =>
      readFileSync(launches, { encoding: 'utf8', flag: 'a+' })
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { argv: string[]; key: string; hasLinearKey: boolean }),
    events: (name?: string, key?: string) => readEvents(dir).filter((e) => (!name || e.event === name) && (!key || e.key === key)),
    /** Wait until a process we did not start (a launched replacement) has exited; a zombie counts as exited. */
    gone: (pid: number) => waitFor(`pid ${pid} to exit`, async () => ((await probeProcess(pid)).kind === 'gone' ? true : undefined)),
    /** How the stalled agent (our child) ended. */
    agentEnd: async () => (await agent.exited).signal,
  };
}

/** What a restart classifies the crashed action as. */
type Settled = 'finished' | 'done' | 'nothing_open';

// [strategy, crash point, how the restart classifies the action, restart with]
const CASES: [Strategy, string, Settled, 'recover' | 'once'][] = [
  ['cancel', 'after:action_started', 'finished', 'recover'],
  ['cancel', 'before:agent_killed', 'done', 'once'], // the agent is dead, the line is missing
  ['redispatch', 'after:action_started', 'finished', 'once'],
  ['redispatch', 'after:checkpoint', 'finished', 'recover'],
  ['redispatch', 'before:agent_killed', 'finished', 'once'],
  ['redispatch', 'after:agent_killed', 'finished', 'once'],
  ['redispatch', 'before:redispatch', 'done', 'once'], // launched, the line is missing
  ['redispatch', 'after:redispatch', 'nothing_open', 'recover'],
  ['resume', 'before:redispatch', 'done', 'once'], // the session resumed, the line is missing: never resumed twice
  ['escalate', 'after:action_started', 'finished', 'once'],
  ['escalate', 'before:agent_killed', 'finished', 'once'],
  ['escalate', 'after:agent_killed', 'finished', 'once'],
  ['escalate', 'after:linear', 'finished', 'once'], // Blocked and commented, no friction note yet
  ['escalate', 'before:escalated_to_blocked', 'done', 'recover'],
];

// Three real CLI runs per case (crash, recover, once): at load 25 one took over 30 s.
describe('SIGKILL at every step boundary, then a restart', { timeout: 90_000 }, () => {
  it.each(CASES)('%s, crash %s: the restart classifies it %s (restart: %s) and every side effect happened once', async (strategy, point, settled, restart) => {
    const s = await scene(strategy);
    const key = KEY(strategy);

    // 1. The crash happened exactly at the boundary.
    expect(await s.crash(strategy, point)).toEqual({ code: null, signal: 'SIGKILL' });
    const [when, name] = point.split(':') as ['before' | 'after', string];
    if (when === 'after' && !['checkpoint', 'linear'].includes(name)) expect(s.events().at(-1)).toMatchObject({ event: name, key });
    if (when === 'before') expect(s.events(name, key)).toEqual([]);
    expect(s.events('action_started', key)).toHaveLength(1);

    // 2. Restart: `recover` (then a normal check), or a normal run that recovers at start-up.
    if (restart === 'recover') {
      const r = await s.recover();
      expect(r.code).toBe(0);
      const counts = { finished: [0, 1], done: [1, 0], nothing_open: [0, 0] }[settled];
      expect(r.stdout).toBe(`recovery of epic ${EPIC}: ${counts[0]} already done, ${counts[1]} finished now, 0 orphaned\n`);
    }
    const last = await s.once(strategy);
    expect(last.stderr).toBe('');

    // 3. One start-up summary (none when nothing was open), never an orphan, never a failure.
    const summaries = s.events('recovery_summary');
    if (settled === 'nothing_open') expect(summaries).toEqual([]);
    else
      expect(summaries).toEqual([
        expect.objectContaining({ done: settled === 'done' ? [key] : [], finished: settled === 'finished' ? [key] : [], orphans: [], orphan_count: 0 }),
      ]);
    expect(s.events('action_failed')).toEqual([]);

    // 4. Exactly once: one start, one outcome, one stop of the real agent.
    expect(s.events('action_started')).toHaveLength(1);
    expect(s.events(OUTCOME[strategy], key)).toHaveLength(1);
    expect(s.events('agent_killed', key)).toHaveLength(1);
    expect(await s.agentEnd()).toBe('SIGTERM');

    // One launch of the replacement, by the fake agent's own count (read once it has exited), without the Linear key in its env.
    if (strategy === 'redispatch' || strategy === 'resume') {
      const [redispatch] = s.events('redispatch', key);
      expect(redispatch).toMatchObject({
        recovery_task_id: 't1-r1',
        redispatch_attempt: 1,
        pid: expect.any(Number),
        ...(strategy === 'resume' ? { mode: 'resume' } : {}),
      });
      await s.gone(Number(redispatch!.pid));
      expect(s.launched()).toEqual([{ argv: strategy === 'resume' ? ['--resume', 's-1'] : ['t1-r1', '1'], key, hasLinearKey: false }]);
    } else expect(s.launched()).toEqual([]);

    // One state change and one comment in Linear; none for the other strategies.
    const ops = s.linear.ops();
    if (strategy === 'escalate') {
      expect(ops.filter((o) => o === 'updateIssue')).toHaveLength(1);
      expect(ops.filter((o) => o === 'createComment')).toHaveLength(1);
      expect(s.linear.issue(TICKET)).toMatchObject({ stateId: 'state-blocked', comments: [{ body: expect.stringContaining(`dispatch-watchdog:${key}`) }] });
      expect(s.events('escalated_to_blocked', key)[0]).toMatchObject({ tracker: expect.stringMatching(/^(updated|already_blocked)$/) });
      expect(allFiles(path.join(s.dir, 'friction')).filter((f) => f.includes('stall-escalation'))).toHaveLength(1);
    } else expect(ops).toEqual([]);

    // The Linear key is nowhere: not in any output, not in any file under the state dir.
    for (const text of [...s.outputs, ...allFiles(s.dir).map((f) => readFileSync(f, 'utf8'))]) expect(text).not.toContain(SECRET);
  });
});

// Issue 36 item 4: a crash anywhere between the launch marker and the launch (before the spawn, or
// after it and before the marker is completed, the replacement already gone) is settled at the next
// start from evidence the launch leaves (a spawn token the replacement removes as it starts): exactly
// one replacement, never an orphan that leaves the ticket with no agent.
describe('a crash between the launch marker and the launch', { timeout: 90_000 }, () => {
  it.each([
    ['after:launching', 'recover'],
    ['after:launching', 'once'],
    ['after:spawned', 'recover'],
    ['after:spawned', 'once'],
  ] as const)('crash %s, restart by %s: exactly one replacement, no orphan', async (point, restart) => {
    const s = await scene();
    const key = KEY('redispatch');
    expect(await s.crash('redispatch', point)).toEqual({ code: null, signal: 'SIGKILL' });
    const marker = JSON.parse(readFileSync(path.join(s.dir, 'epics', EPIC, 'launches', 'E-1__t1__redispatch.redispatch.json'), 'utf8'));
    expect(marker).toMatchObject({ key, status: 'launching', recovery_task_id: 't1-r1' });
    if (point === 'after:spawned') {
      // The replacement ran and exited while the watchdog was down: the restart must not launch another.
      await waitFor('the first replacement to run', async () => (s.launched().length === 1 ? true : undefined));
    }
    if (restart === 'recover') {
      const r = await s.recover();
      expect(r).toMatchObject({
        code: 0,
        stdout: `recovery of epic ${EPIC}: ${point === 'after:spawned' ? '1 already done, 0 finished now' : '0 already done, 1 finished now'}, 0 orphaned\n`,
      });
    }
    const last = await s.once('redispatch');
    expect(last.stderr).toBe('');
    expect(s.events('recovery_summary')).toEqual([expect.objectContaining({ orphans: [], orphan_count: 0 })]);
    expect(s.events('action_started')).toHaveLength(1);
    expect(s.events('action_failed')).toEqual([]);
    const redispatches = s.events('redispatch', key);
    expect(redispatches).toHaveLength(1);
    if (redispatches[0]!.pid !== undefined) await s.gone(Number(redispatches[0]!.pid));
    await waitFor('the replacement to run', async () => (s.launched().length >= 1 ? true : undefined));
    expect(s.launched()).toEqual([{ argv: ['t1-r1', '1'], key, hasLinearKey: false }]);
    expect(s.events('agent_killed', key)).toHaveLength(1);
    expect(await s.agentEnd()).toBe('SIGTERM');
    // Later runs launch nothing more.
    await s.recover();
    expect(s.launched()).toHaveLength(1);
  });

  it('a marker whose launch cannot be told (torn, or written before spawn tokens) stays an orphan: reported once, never launched', async () => {
    const s = await scene();
    const key = KEY('redispatch');
    expect(await s.crash('redispatch', 'after:launching')).toEqual({ code: null, signal: 'SIGKILL' });
    const file = path.join(s.dir, 'epics', EPIC, 'launches', 'E-1__t1__redispatch.redispatch.json');
    const { spawn_token: _token, ...old } = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify(old));
    const first = await s.recover();
    expect(first.code).toBe(3);
    expect(first.stdout).toContain(`orphan ${key}: cannot tell whether launch happened`);
    expect((await s.once('redispatch')).code).toBe(3);
    expect(s.events('recovery_summary')).toHaveLength(1);
    expect(s.events('redispatch')).toEqual([]);
    expect(s.launched()).toEqual([]);
  });
});

describe('things changed while the watchdog was down', () => {
  it('a restart never stops a new agent the orchestrator started under the same task id', async () => {
    const s = await scene();
    const key = KEY('cancel');
    expect(await s.crash('cancel', 'after:action_started')).toEqual({ code: null, signal: 'SIGKILL' });
    expect(s.events('action_started', key)[0]).toMatchObject({ pid: s.agent.pid });
    // The orchestrator restarted t1 itself: same task id, a new agent process, a new dispatch time.
    const fresh = await spawnFixture('sleep-forever.mjs');
    writeWave(s.dir, EPIC, ago(0), [
      { task_id: 't1', ticket_id: TICKET, status: 'in_progress', pid: fresh.pid, dispatched_at: ago(0), last_activity_ts: ago(0) },
    ]);
    const r = await s.recover();
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(`orphan ${key}: cannot tell whether stop happened (stop: unknown)`);
    expect(s.events('agent_killed')).toEqual([]);
    expect(fresh.child.exitCode ?? fresh.child.signalCode).toBeNull();
    expect((await probeProcess(fresh.pid)).kind).toBe('alive');
  });

  it('a step that fails while recovery finishes it is reported as failed, not as finished', async () => {
    const s = await scene();
    const key = KEY('redispatch');
    expect(await s.crash('redispatch', 'after:agent_killed')).toEqual({ code: null, signal: 'SIGKILL' });
    // The agent CLI was uninstalled meanwhile.
    writeFileSync(
      path.join(s.dir, 'watchdog.config.yaml'),
      stringify({ agents: { adapter: 'process', kill_grace_ms: 50, redispatch_argv: [path.join(s.dir, 'no-such-agent')] } }),
    );
    const r = await s.recover();
    expect(r.stdout).toBe(
      `recovery of epic ${EPIC}: 0 already done, 0 finished now, 1 failed, 0 orphaned\n` +
        `  failed ${key}: redispatch failed: could not run ${JSON.stringify(path.join(s.dir, 'no-such-agent'))}: ENOENT. Check agents.redispatch_argv[0] is an executable on PATH. (not retried automatically; see action_failed in the dispatch log)\n`,
    );
    expect(s.events('action_failed', key)).toEqual([expect.objectContaining({ action: 'redispatch', retryable: false })]);
    expect(s.events('recovery_summary')).toEqual([expect.objectContaining({ done: [], finished: [], orphans: [], orphan_count: 0 })]);
    expect(s.events('redispatch')).toEqual([]);
  });
});
