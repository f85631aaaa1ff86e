// Recovery of a Codex agent through the process adapter, on real `codex exec` 0.171.0 sessions
// (issue 35 item 4): stop = SIGINT to the native codex (not the node wrapper), SIGKILL after a
// grace, then the command groups it left; resume = `codex exec resume <thread>` in the agent's own
// cwd under its CODEX_HOME; each launched once per key. The mailbox request names Codex's commands.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createAdapter } from '../../src/act/agents/make-adapter.js';
import { buildMailboxRequest } from '../../src/act/agents/mailbox.js';
import { CODEX_EXEC_FLAGS } from '../../src/agents/codex/commands.js';
import { realClock } from '../../src/deps.js';
import { cancelRequest, redispatchRequest } from '../helpers/agent-requests.js';
import { descendants } from '../helpers/claude-session.js';
import { CODEX_BIN, codexSkip, jsonLines, processesOfHome, startCodex, until } from '../helpers/codex-session.js';
import { execCommand, say, startResponsesServer, type ResponsesServer } from '../helpers/responses-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const comm = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(codexSkip !== undefined)(`Codex recovery (skipped: ${codexSkip ?? 'no'})`, () => {
  let server: ResponsesServer;
  beforeAll(async () => (server = await startResponsesServer()));
  afterAll(() => server.close());

  it('cancel: SIGINT to the native codex records turn_aborted, and no command survives', async () => {
    server.script('CX-STOP', [{ items: [execCommand('sleep 60; echo late', { yieldMs: 30_000 })] }]);
    const s = startCodex({ server, prompt: 'CX-STOP go' });
    const thread = await s.threadId;
    const native = await until(() => s.nativePid(), 'the native codex');
    const sleep = await until(() => descendants(native).find((p) => comm(p) === 'sleep'), 'the command');
    const rollout = s.rolloutPath()!;
    const adapter = createAdapter('process', { kill_grace_ms: 10_000 }, { clock: realClock });
    const out = await adapter.cancel(
      cancelRequest(tempDir(), {
        pid: s.pid,
        sessionId: thread,
        transcriptPath: rollout,
        dispatchedAtMs: Date.now() - 1000,
        raw: { agent: 'codex', dispatched_at: 'x' },
      }),
    );
    expect(out).toMatchObject({ ok: true, wasForced: false });
    // Codex kills its command's tree on SIGINT; a group still dying when the watchdog looks is killed by it (either way none survives).
    expect(out.detail).toMatch(
      new RegExp(
        `^codex ${native} \\(launched as ${s.pid}\\) stopped after SIGINT \\(turn_aborted recorded\\)(; killed the process group \\d+ of the command it left)?\\.$`,
      ),
    );
    expect((await s.exited).code).toBe(1);
    await until(() => !alive(sleep) || undefined, 'the command to be gone', 5_000);
    expect(jsonLines(rollout).some((r) => r.payload?.type === 'turn_aborted')).toBe(true);
    expect(existsSync(path.join(s.codexHome, 'thread-writer-locks', `${thread}.lock`))).toBe(false);
  });

  it('a SIGKILLed agent is resumed in its own cwd under its CODEX_HOME, once per key', async () => {
    server.script('CX-RESUME', [{ items: [execCommand('sleep 60', { yieldMs: 30_000 })] }, { items: [say('resumed and done')] }]);
    const s = startCodex({ server, prompt: 'CX-RESUME go' });
    const thread = await s.threadId;
    const native = await until(() => s.nativePid(), 'the native codex');
    await until(() => descendants(native).find((p) => comm(p) === 'sleep'), 'the command');
    const rollout = s.rolloutPath()!;
    process.kill(-s.pid, 'SIGKILL');
    await s.exited;
    const saved = process.env.MOCK_API_KEY;
    process.env.MOCK_API_KEY = 'sk-mock-test';
    onTestFinished(() => {
      if (saved === undefined) delete process.env.MOCK_API_KEY;
      else process.env.MOCK_API_KEY = saved;
      for (const p of processesOfHome(s.codexHome)) alive(p) && process.kill(p, 'SIGKILL');
    });
    const adapter = createAdapter(
      'process',
      { kill_grace_ms: 2000, codex: { resume_argv: [CODEX_BIN, 'exec', 'resume', '{session_id}', ...CODEX_EXEC_FLAGS, '{prompt}'] } },
      { clock: realClock },
    );
    const stateDir = tempDir();
    const base = await redispatchRequest(stateDir, { pid: s.pid, sessionId: thread, transcriptPath: rollout, raw: { agent: 'codex' } });
    const req = { ...base, mode: 'resume' as const, prompt: 'continue where you stopped', cwd: s.cwd };
    const launched = await adapter.redispatch(req);
    expect(launched).toMatchObject({ ok: true });
    expect(launched.detail).toMatch(new RegExp(`launched as pid \\d+ in ${s.cwd}`));
    expect((await adapter.redispatch(req)).wasAlreadyDone).toBe(true);
    await until(() => jsonLines(rollout).some((r) => r.payload?.type === 'task_complete'), 'the resumed turn to finish', 60_000);
    const recs = jsonLines(rollout);
    expect(recs.filter((r) => r.payload?.type === 'task_started')).toHaveLength(2); // the same file, a new turn
    expect(recs.filter((r) => r.type === 'turn_context').at(-1)?.payload.cwd).toBe(s.cwd);
    const resumedReq = server.of('CX-RESUME').at(-1)!;
    expect(resumedReq.threadId).toBe(thread);
    expect(JSON.stringify(resumedReq.body.input)).toContain('continue where you stopped');
  });

  it("a mailbox request for a Codex row names Codex's commands", async () => {
    const base = await redispatchRequest(tempDir(), { sessionId: 'T1', raw: { agent: 'codex' } });
    const r = buildMailboxRequest({ ...base, mode: 'resume' }, 'resume', Date.now(), 60_000);
    expect(r.agent).toBe('codex');
    expect(r.resume_command).toMatch(/^codex exec resume 'T1' --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox '/);
    expect(r.how_to_answer).toMatch(/SIGINT to the native codex pid/);
    const claude = buildMailboxRequest({ ...base, task: { ...base.task, raw: {} } }, 'resume', Date.now(), 60_000);
    expect(claude.agent).toBeUndefined();
    expect(claude.resume_command).toMatch(/^claude --resume 'T1' -p /);
    expect(claude.how_to_answer).not.toMatch(/codex/i);
  });
});
