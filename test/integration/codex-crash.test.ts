// Crash safety for a Codex row (issue 35 item 4; the Claude Code rows' twin is crash.test.ts): the
// real CLI SIGKILLs itself at a step boundary of cancel, redispatch and resume
// (DISPATCH_WATCHDOG_TEST_CRASH, src/sys/crash-point.ts), then a restart settles what it left.
// The agent is a real `codex exec --json` 0.171.0 whose stream froze before headers (stalled at
// --timeout 1), stopped by SIGINT to its native process; its replacement is a real `codex exec` (a
// new thread) or `codex exec resume <thread>` (a new turn in the same rollout). Whatever the crash
// point: one start, one outcome, one graceful stop (one `turn_aborted` in the rollout), one launch
// (the scripted server sees one new thread, or one resumed request on the thread), never an orphan.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { CODEX_EXEC_FLAGS } from '../../src/agents/codex/commands.js';
import { isAlive } from '../../src/sys/proc-identity.js';
import { exited, runCli, spawnCli, type CliResult } from '../helpers/cli.js';
import { CODEX_BIN, codexSkip, jsonLines, startCodex, until } from '../helpers/codex-session.js';
import { say, startResponsesServer } from '../helpers/responses-server.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-CX';
type Strategy = 'cancel' | 'redispatch' | 'resume';
const KEY = (s: Strategy) => `${EPIC}:t1:${s === 'resume' ? 'redispatch' : s}`;
const OUTCOME: Record<Strategy, string> = { cancel: 'agent_killed', redispatch: 'redispatch', resume: 'redispatch' };
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** A Codex agent frozen before headers, its row, the process adapter with real Codex templates. */
async function scene(strategy: Strategy) {
  const server = await startResponsesServer();
  onTestFinished(() => server.close());
  let requests = 0;
  // The agent's first request is never answered; every later one (the replacement, the resumed turn) is.
  server.script('CX-CRASH', [() => (requests++ === 0 ? { freeze: 'before_headers' } : { items: [say('done after recovery')] })]);
  const s = startCodex({ server, prompt: 'CX-CRASH fix the bug' });
  const thread = await s.threadId;
  await server.waitFor((r) => r.agent === 'CX-CRASH', 30_000, 'the frozen request');
  const rollout = await until(() => s.rolloutPath(), 'the rollout');
  const dir = tempDir('dw-cxcrash-');
  writeFileSync(
    path.join(dir, 'watchdog.config.yaml'),
    stringify({
      agents: {
        adapter: 'process',
        kill_grace_ms: 20_000,
        // Claude Code rows' template: the process adapter asks for one even in a Codex-only wave (none here is used).
        redispatch_argv: ['false'],
        codex: {
          redispatch_argv: [CODEX_BIN, 'exec', ...CODEX_EXEC_FLAGS, '{prompt}'],
          resume_argv: [CODEX_BIN, 'exec', 'resume', '{session_id}', ...CODEX_EXEC_FLAGS, '{prompt}'],
        },
      },
      // A frozen stream is resumed by default; the fresh redispatch is asked for by resuming on nothing.
      ...(strategy === 'redispatch' ? { recovery: { resume_on: [] } } : {}),
    }),
  );
  writeWave(dir, EPIC, ago(3000), [
    {
      task_id: 't1',
      ticket_id: 'ENG-9',
      status: 'in_progress',
      agent: 'codex',
      session_id: thread,
      pid: s.pid,
      transcript_path: rollout,
      output_path: s.outputPath,
      dispatched_at: ago(3000),
    },
  ]);
  // Stalled at --timeout 1: a second and a half past its last record.
  const last = Math.max(...jsonLines(rollout).map((r) => Date.parse(r.timestamp)));
  await until(() => Date.now() > last + 1500 || undefined, 'the window to pass', 10_000);
  const env = { CODEX_HOME: s.codexHome, MOCK_API_KEY: 'sk-mock-test', HOME: path.join(s.codexHome, 'home') };
  const args = ['--epic-id', EPIC, '--state-dir', dir, '--timeout', '1', ...(strategy === 'cancel' ? ['--action', 'cancel'] : []), '--once'];
  const outputs: string[] = [];
  return {
    s,
    thread,
    rollout,
    server,
    outputs,
    async crash(point: string) {
      const child = spawnCli(args, { env: { ...env, DISPATCH_WATCHDOG_TEST_CRASH: point } });
      onTestFinished(() => void child.kill('SIGKILL'));
      const end = await exited(child);
      outputs.push(child.output());
      return end;
    },
    async once(): Promise<CliResult> {
      const r = await runCli(args, { env });
      outputs.push(r.stdout, r.stderr);
      return r;
    },
    async recover(): Promise<CliResult> {
      const r = await runCli(['recover', '--epic-id', EPIC, '--state-dir', dir], { env });
      outputs.push(r.stdout, r.stderr);
      return r;
    },
    events: (name?: string, key?: string) => readEvents(dir).filter((e) => (!name || e.event === name) && (!key || e.key === key)),
    /** Threads other than the agent's that asked the model anything: the fresh replacements. */
    newThreads: () => new Set(server.requests.filter((r) => r.path.endsWith('/responses') && r.threadId && r.threadId !== thread).map((r) => r.threadId)),
  };
}

// [strategy, crash point, restart with]
const CASES: [Strategy, string, 'recover' | 'once'][] = [
  ['cancel', 'after:action_started', 'recover'],
  ['cancel', 'before:agent_killed', 'once'], // stopped, the line is missing
  ['redispatch', 'after:action_started', 'once'],
  ['redispatch', 'after:agent_killed', 'recover'],
  ['redispatch', 'after:launching', 'recover'], // the marker written, nothing spawned yet
  ['redispatch', 'before:redispatch', 'once'], // launched, the line is missing
  ['resume', 'after:agent_killed', 'once'],
  ['resume', 'before:redispatch', 'once'], // resumed, the line is missing: never resumed twice
];

describe.skipIf(codexSkip !== undefined)(`SIGKILL at a step boundary of a Codex row's recovery (skipped: ${codexSkip ?? 'no'})`, { timeout: 120_000 }, () => {
  it.each(CASES)('%s, crash %s, restart by %s: every side effect once', async (strategy, point, restart) => {
    const c = await scene(strategy);
    const key = KEY(strategy);
    expect(await c.crash(point), c.outputs.join('\n')).toEqual({ code: null, signal: 'SIGKILL' });
    expect(c.events('action_started', key)).toHaveLength(1);
    if (restart === 'recover') expect((await c.recover()).code).toBe(0);
    else expect((await c.once()).stderr).toBe('');
    // The replacement runs to its end before the next check: at --timeout 1 a Codex still starting (no
    // thread.started yet) would be "never started" (a real window is minutes).
    const launched = c.events('redispatch', key)[0];
    if (strategy !== 'cancel') {
      expect(launched).toMatchObject({ pid: expect.any(Number) });
      await until(() => !isAlive(Number(launched!.pid)) || undefined, 'the replacement to exit', 60_000);
    }
    const last = await c.once();
    expect(last.stderr).toBe('');

    // One start, one outcome, one stop; never an orphan or a failure.
    expect(c.events('action_started'), JSON.stringify(c.events(), null, 1)).toHaveLength(1);
    expect(c.events(OUTCOME[strategy], key)).toHaveLength(1);
    expect(c.events('agent_killed', key)).toHaveLength(1);
    expect(c.events('action_failed')).toEqual([]);
    for (const sum of c.events('recovery_summary')) expect(sum).toMatchObject({ orphans: [], orphan_count: 0 });
    // The agent was stopped gracefully, once: SIGINT to the native codex records turn_aborted and it exits 1.
    expect((await c.s.exited).code).toBe(1);
    const aborted = () => jsonLines(c.rollout).filter((r) => r.payload?.type === 'turn_aborted');
    expect(aborted()).toHaveLength(1);

    // One launch: a new thread for a fresh redispatch, one resumed turn on the agent's thread for a resume, none for a cancel.
    if (strategy === 'redispatch') {
      expect(launched).toMatchObject({ recovery_task_id: 't1-r1', redispatch_attempt: 1 });
      expect(c.newThreads().size).toBe(1);
    }
    if (strategy === 'resume') {
      expect(launched).toMatchObject({ mode: 'resume' });
      const recs = jsonLines(c.rollout);
      expect(recs.filter((r) => r.payload?.type === 'task_started')).toHaveLength(2);
      expect(recs.filter((r) => r.payload?.type === 'task_complete')).toHaveLength(1);
    }
    // A later run acts on nothing more, and launches nothing more.
    await c.recover();
    await c.once();
    expect(c.events('action_started')).toHaveLength(1);
    expect(c.newThreads().size).toBe(strategy === 'redispatch' ? 1 : 0);
    if (strategy === 'resume') expect(c.server.requests.filter((r) => r.threadId === c.thread && r.path.endsWith('/responses'))).toHaveLength(2);
    if (strategy === 'cancel') expect(c.server.requests.filter((r) => r.path.endsWith('/responses'))).toHaveLength(1);
    expect(aborted()).toHaveLength(1);
  });
});
