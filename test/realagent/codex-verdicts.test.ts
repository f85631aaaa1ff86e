// The same verdicts for Codex as for Claude Code, proven on real `codex exec --json` 0.171.0
// sessions against the scripted Responses server (issue 35 item 3), each beside its healthy twin.
// The row is the one a launching script writes (docs/codex.md): agent codex, session_id = the
// thread id from `thread.started`, pid = the launched command, transcript_path = the rollout,
// output_path = the --json stdout. The window is 5 s so the suite stays quick.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probePid } from '../../src/agents/claude-code/read/session-registry.js';
import { createCodexObserver } from '../../src/agents/codex/read/codex-observer.js';
import { normalizeTask, type Task } from '../../src/contracts/state-file.js';
import { assess, type Verdict } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import { foldHistory } from '../../src/core/history.js';
import { planCheck, type PlanOptions } from '../../src/core/plan.js';
import { codexRowFields, codexSkip, startCodex, until, type CodexSession } from '../helpers/codex-session.js';
import { execCommand, runningSessionOf, say, startResponsesServer, usageLimit, writeStdin, type ResponsesServer } from '../helpers/responses-server.js';

const WINDOW_MS = 5_000;
const policy = { ...DEFAULT_POLICY, baseTimeoutMs: WINDOW_MS };

let rows = 0;
/** The row a launching script writes once `thread.started` arrived and the rollout exists. */
async function rowOf(s: CodexSession): Promise<Task> {
  return normalizeTask({ ticket_id: `CX-${++rows}`, ...(await codexRowFields(s)) } as never, Date.now());
}

/** One judgment of the row now, as a check makes it (its row, then the Codex observer). */
async function judge(task: Task, observer = createCodexObserver({ env: {} }), nowMs = Date.now()): Promise<Verdict> {
  const parts = await observer.observe(task, nowMs);
  return assess(task, mergeObservations([{ source: 'row' }, ...parts]), policy, nowMs);
}

describe.skipIf(codexSkip !== undefined)(`Codex verdicts on real sessions (skipped: ${codexSkip ?? 'no'})`, () => {
  let server: ResponsesServer;
  beforeAll(async () => (server = await startResponsesServer()));
  afterAll(() => server.close());

  it('a long silent command (a yield, then a write_stdin poll) is healthy throughout, past the window', async () => {
    server.script('CX-LONG', [
      { items: [execCommand('sleep 11; echo hi', { yieldMs: 3000 })] },
      (r) => ({ items: [writeStdin(runningSessionOf(r) ?? 0, { yieldMs: 20_000 })] }),
      { items: [say('done')] },
    ]);
    const s = startCodex({ server, prompt: 'CX-LONG run it' });
    const task = await rowOf(s);
    const observer = createCodexObserver({ env: {} });
    const seen: Verdict[] = [];
    let done = false;
    void s.exited.then(() => (done = true));
    while (!done) {
      seen.push(await judge(task, observer));
      await new Promise((r) => setTimeout(r, 250));
    }
    expect((await s.exited).code).toBe(0);
    const during = seen.filter((v) => v.kind !== 'inconsistent'); // the finish itself is judged below
    expect(during.map((v) => v.kind)).not.toContain('stalled');
    // The silence it survived: the poll was open longer than the window, with the command alive.
    expect(Math.max(...during.map((v) => v.idleMs ?? 0))).toBeGreaterThan(WINDOW_MS);
    expect(during.some((v) => v.lastTool === 'write_stdin' && v.isLastToolOpen)).toBe(true);
    expect(await judge(task, observer)).toMatchObject({ kind: 'inconsistent', disagreement: { kind: 'agent_finished' } });
  });

  it.each(['before_headers', 'after_headers'] as const)('a stream frozen %s is flagged at the window (its deadline), not before', async (freeze) => {
    const marker = `CX-FROZEN-${freeze}`;
    server.script(marker, [{ freeze }]);
    const s = startCodex({ server, prompt: `${marker} answer` });
    const task = await rowOf(s);
    await server.waitFor((r) => r.agent === marker, 30_000, 'the frozen request');
    const now = Date.now();
    const v = await judge(task, undefined, now);
    expect(v.kind).toBe('healthy');
    // The silence counts from the last record (the prompt, written before the request went out).
    expect(now - v.lastProgressMs!).toBeLessThan(WINDOW_MS);
    expect(v.deadlineMs).toBe(v.lastProgressMs! + WINDOW_MS);
    expect((await judge(task, undefined, v.deadlineMs!)).kind).toBe('healthy');
    expect(await judge(task, undefined, v.deadlineMs! + 1)).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
    // And in real time: the same row, judged again once its deadline passed (Codex itself waits 300 s, or for ever).
    await until(() => Date.now() > v.deadlineMs! + 1 || undefined, 'the deadline', 15_000);
    expect(await judge(task)).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
    expect(server.of(marker)).toHaveLength(1); // Codex sent nothing else meanwhile
  });

  it('a 5xx give-up (task_complete.error) is acted on at once; its twin that recovers is finished', async () => {
    server.script('CX-GIVEUP', [{ status: 500 }]);
    server.script('CX-RECOVER', [[{ status: 500 }, { items: [say('recovered')] }]]);
    const provider = { request_max_retries: 1, stream_max_retries: 1 };
    const bad = startCodex({ server, prompt: 'CX-GIVEUP go', provider });
    const good = startCodex({ server, prompt: 'CX-RECOVER go', provider });
    const [badTask, goodTask] = [await rowOf(bad), await rowOf(good)];
    expect((await bad.exited).code).toBe(1);
    expect((await good.exited).code).toBe(0);
    const v = await judge(badTask);
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'api_gave_up', transportCause: 'overloaded' });
    expect(v.idleMs!).toBeLessThan(WINDOW_MS);
    expect(v.reason).toMatch(/internal_server_error/);
    expect((await judge(goodTask)).kind).toBe('inconsistent'); // finished, the row not yet updated
  });

  it('a usage-limit 429 is a usage_limit failure escalated, never redispatched into the same wall; a plain 429 without retry-after is a give-up', async () => {
    server.script('CX-USAGE', [{ status: 429, retryAfter: 5, errorBody: usageLimit() }]);
    server.script('CX-429', [{ status: 429 }]);
    const usage = startCodex({ server, prompt: 'CX-USAGE go' });
    const plain = startCodex({ server, prompt: 'CX-429 go' });
    const [usageTask, plainTask] = [await rowOf(usage), await rowOf(plain)];
    expect((await usage.exited).code).toBe(1);
    expect((await plain.exited).code).toBe(1);
    const u = await judge(usageTask);
    expect(u).toMatchObject({ kind: 'stalled', stallReason: 'usage_limit' });
    expect(u.reason).toMatch(/^the agent hit its usage limit: .*usage limit.* \(codex_error_info usage_limit_exceeded\)/);
    expect(server.of('CX-USAGE')).toHaveLength(1); // Codex does not retry it either
    const p = await judge(plainTask);
    expect(p).toMatchObject({ kind: 'stalled', stallReason: 'api_gave_up', transportCause: 'rate_limit' });
    // The plan escalates the usage limit to a person with redispatches left; the plain 429 is redispatched.
    const opts: PlanOptions = {
      epicId: 'E-1',
      strategy: 'redispatch',
      maxRedispatches: 2,
      shouldActOnLooping: false,
      circuitBreaker: { minStalled: 3, fraction: 0.5 },
      isLagged: false,
    };
    const plan = planCheck(
      [u, p],
      new Map([
        [u.taskId, usageTask],
        [p.taskId, plainTask],
      ]),
      foldHistory([], 'E-1'),
      opts,
    );
    expect(plan.actions.map((a) => [a.task.taskId, a.kind])).toEqual([
      [u.taskId, 'escalate'],
      [p.taskId, 'redispatch'],
    ]);
  });

  it("refused credentials (a 401 after Codex's own retries) are an auth_failed failure, escalated like a usage limit", async () => {
    server.script('CX-401', [
      { status: 401, errorBody: { error: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' } } },
    ]);
    const s = startCodex({ server, prompt: 'CX-401 go' });
    const task = await rowOf(s);
    expect((await s.exited).code).toBe(1);
    expect(server.of('CX-401').length).toBeGreaterThan(1); // Codex retries it first
    const v = await judge(task);
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'auth_failed' });
    expect(v.reason).toMatch(/^the API refused the agent's credentials: unexpected status 401 Unauthorized.* \(codex_error_info http_connection_failed:401\)$/);
  });

  it('a 429 backoff with retry-after is healthy while it lasts (stdout announces each retry), past the window', async () => {
    server.script('CX-BACKOFF', [[{ status: 429, retryAfter: 3 }, { status: 429, retryAfter: 3 }, { items: [say('through')] }]]);
    const s = startCodex({ server, prompt: 'CX-BACKOFF go' });
    const task = await rowOf(s);
    const observer = createCodexObserver({ env: {} });
    const seen: Verdict[] = [];
    let done = false;
    void s.exited.then(() => (done = true));
    while (!done) {
      seen.push(await judge(task, observer));
      await new Promise((r) => setTimeout(r, 250));
    }
    expect((await s.exited).code).toBe(0);
    expect(server.of('CX-BACKOFF')).toHaveLength(3);
    const during = seen.filter((v) => v.kind !== 'inconsistent');
    expect(during.map((v) => v.kind)).not.toContain('stalled');
    expect(during.some((v) => v.exemptions.includes('rate_limit'))).toBe(true);
  });

  it('a killed agent (no live owner, no end record) is dead at once; killing only the node wrapper is not death', async () => {
    server.script('CX-DEAD', [{ items: [execCommand('sleep 60', { yieldMs: 30_000 })] }]);
    server.script('CX-WRAP', [{ items: [execCommand('sleep 3; echo hi', { yieldMs: 30_000 })] }, { items: [say('survived')] }]);
    const dead = startCodex({ server, prompt: 'CX-DEAD go' });
    const wrap = startCodex({ server, prompt: 'CX-WRAP go' });
    const [deadTask, wrapTask] = [await rowOf(dead), await rowOf(wrap)];
    await until(() => dead.rollout().some((r) => r.payload?.type === 'function_call'), 'the open call');
    await until(() => wrap.rollout().some((r) => r.payload?.type === 'function_call'), 'the open call');
    expect((await judge(deadTask)).kind).toBe('healthy');
    const native = wrap.nativePid()!;
    const deadNative = dead.nativePid()!;
    process.kill(-dead.pid, 'SIGKILL');
    process.kill(wrap.pid, 'SIGKILL'); // the wrapper only: the native agent keeps the thread (reference §8 f_wrapper)
    await dead.exited;
    await wrap.exited;
    // The wrapper's exit is reported before its killed native child has gone (on a loaded machine,
    // a while before): "at once" counts from the native agent's end, when its flock goes with it.
    await until(() => probePid(deadNative) === false, 'the killed native agent to be gone');
    const v = await judge(deadTask);
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'agent_died' });
    expect(v.reason).toMatch(/thread lock not held/);
    const w = await judge(wrapTask);
    expect(w.kind).toBe('healthy');
    await until(() => wrap.rollout().some((r) => r.payload?.type === 'task_complete'), 'the orphaned native agent to finish');
    expect(native).toBeGreaterThan(0);
  });
});
