// The Codex test bed itself (issue 35 item 1): a real `codex exec --json` session against the
// scripted Responses server runs a command, answers, and finishes; the request log, stdout and the
// rollout agree; every process it started is gone when the test ends.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendants } from '../helpers/claude-session.js';
import { codexSkip, startCodex, until } from '../helpers/codex-session.js';
import { execCommand, lastCallOutput, say, startResponsesServer, type ResponsesServer } from '../helpers/responses-server.js';

describe.skipIf(codexSkip !== undefined)(`real codex exec (skipped: ${codexSkip ?? 'no'})`, () => {
  let server: ResponsesServer;
  beforeAll(async () => (server = await startResponsesServer()));
  afterAll(() => server.close());

  it('runs a command through exec_command, answers, and records the turn', async () => {
    server.script('CX-SMOKE', [{ items: [execCommand('echo smoke-$((40+2))', { yieldMs: 5000 })] }, { items: [say('all done')] }]);
    const s = startCodex({ server, prompt: 'CX-SMOKE run the command' });
    const thread = await s.threadId;
    expect((await s.exited).code).toBe(0);
    const [first, second] = server.of('CX-SMOKE');
    expect(first!.threadId).toBe(thread);
    expect(first!.headers.authorization).toBe('Bearer sk-mock-test');
    expect(lastCallOutput(second!)?.output).toMatch(/Process exited with code 0[\s\S]*smoke-42/);
    const types = s.events().map((e) => e.type);
    expect(types[0]).toBe('thread.started');
    expect(types).toContain('turn.completed');
    const rollout = s.rollout();
    expect(rollout[0]).toMatchObject({ type: 'session_meta', payload: { id: thread, cwd: s.cwd } });
    const end = rollout.find((r) => r.payload?.type === 'task_complete');
    expect(end?.payload).toMatchObject({ last_agent_message: 'all done' });
    expect(end?.payload.error).toBeUndefined();
  });

  // Reference §2/§8(f): a command runs as `bash -lc` in a process group of its own, and its
  // children outlive a SIGKILLed Codex. The helper must still leave nothing behind.
  let orphan: number | undefined;
  it('a SIGKILLed session leaves its command running, orphaned (what the cleanup must reach)', async () => {
    server.script('CX-ORPHAN', [{ items: [execCommand('sleep 120; echo late', { yieldMs: 30000 })] }]);
    const s = startCodex({ server, prompt: 'CX-ORPHAN run it' });
    const native = await until(() => s.nativePid(), 'the native codex');
    orphan = await until(() => descendants(native).find((p) => readComm(p) === 'sleep'), "the command's sleep");
    process.kill(-s.pid, 'SIGKILL');
    await s.exited;
    await until(() => readPpid(orphan!) !== native || undefined, 'the sleep to be reparented');
    expect(isAlive(orphan)).toBe(true);
  });

  it('…and the helper killed it when that test ended', async () => {
    expect(orphan).toBeDefined();
    await until(() => !isAlive(orphan!), 'the orphaned sleep to be gone', 5_000);
  });
});

function readComm(pid: number) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}
function readPpid(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}
function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
