// Requests safe to carry out literally (issue 36 item 5): a request never names a pid that is not
// provably the stalled agent (pid 1, the watchdog or its ancestors — the lead that runs `next` —, a
// process started after the dispatch, one that has exited): it says why instead; every value of a
// suggested shell command is quoted, so a state dir holding `$(…)` runs nothing when pasted.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdapter } from '../../src/act/agents/make-adapter.js';
import { realClock } from '../../src/deps.js';
import { processStartMs, readProcessIdentity } from '../../src/sys/proc-identity.js';
import { cancelRequest, redispatchRequest } from '../helpers/agent-requests.js';
import { spawnFixture } from '../helpers/spawn-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

const mailbox = () => createAdapter('mailbox', undefined, { clock: realClock, requestDeadlineMs: 60_000 });
const readRequest = async (dir: string, kind: string) => {
  const d = path.join(dir, 'epics', 'PROJ-1000', 'requests');
  return JSON.parse(await fs.readFile(path.join(d, (await fs.readdir(d)).find((f) => f.endsWith(`.${kind}.json`))!), 'utf8'));
};
/** When `pid` started: a row dispatched then names it truthfully. */
const startOf = async (pid: number) => (await processStartMs((await readProcessIdentity(pid))!))!;

describe('the pid a request names', () => {
  it('is kept when it is provably the agent: alive, started with the dispatch', async () => {
    const agent = await spawnFixture('sleep-forever.mjs');
    const dir = tempDir();
    await mailbox().cancel(cancelRequest(dir, { pid: agent.pid, dispatchedAtMs: await startOf(agent.pid) }));
    const r = await readRequest(dir, 'cancel');
    expect(r.pid).toBe(agent.pid);
    expect(r.pid_withheld).toBeUndefined();
  });

  it.each([
    ['pid 1', async () => ({ pid: 1, dispatchedAtMs: Date.now() }), /pid 1 is not an agent/],
    ['the watchdog itself', async () => ({ pid: process.pid, dispatchedAtMs: await startOf(process.pid) }), /this watchdog itself/],
    [
      "the watchdog's parent (the lead that runs it)",
      async () => ({ pid: process.ppid, dispatchedAtMs: await startOf(process.ppid) }),
      /an ancestor of the watchdog/,
    ],
    [
      'a process started after the dispatch (a reused pid)',
      async () => ({ pid: (await spawnFixture('sleep-forever.mjs')).pid, dispatchedAtMs: Date.now() - 3_600_000 }),
      /after the task was dispatched/,
    ],
    [
      'a process that has exited',
      async () => {
        const gone = await spawnFixture('sleep-forever.mjs');
        gone.child.kill('SIGKILL');
        await gone.exited;
        return { pid: gone.pid, dispatchedAtMs: Date.now() };
      },
      /has exited/,
    ],
  ])('is withheld for %s, and the request says why', async (_name, row, why) => {
    const dir = tempDir();
    const task = await row();
    await mailbox().redispatch(await redispatchRequest(dir, task));
    const r = await readRequest(dir, 'redispatch');
    expect(r.pid).toBeUndefined();
    expect(r.pid_withheld).toMatch(why);
    expect(r.pid_withheld).toContain(`pid ${task.pid}`);
  });
});

describe('suggested shell commands', () => {
  it('quote every value: a resume command pasted into a shell runs nothing from a state dir named $(…)', async () => {
    const root = tempDir();
    const dir = path.join(root, '$(touch pwned)`touch pwned2`');
    mkdirSync(dir, { recursive: true });
    const req = { ...(await redispatchRequest(dir, { sessionId: 's-1' })), mode: 'resume' as const };
    req.prompt = `Continue on PROJ-1001. (The watchdog's checkpoint of this ticket is ${req.checkpointPath}.) It's "quoted" and \\ escaped; $HOME`;
    await mailbox().redispatch(req);
    const r = await readRequest(dir, 'resume');
    expect(r.resume_command).toMatch(/^claude --resume 's-1' -p '/);
    // Run it with `claude` replaced by printf: the words arrive intact, nothing was executed.
    const bin = path.join(root, 'bin');
    mkdirSync(bin);
    await fs.writeFile(path.join(bin, 'claude'), '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n', { mode: 0o755 });
    const out = execFileSync('/bin/sh', ['-c', r.resume_command], {
      cwd: root,
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: '/nonexistent-home' },
      encoding: 'utf8',
    });
    expect(out).toBe(['--resume', 's-1', '-p', req.prompt].join('\n') + '\n');
    expect(existsSync(path.join(root, 'pwned'))).toBe(false);
    expect(existsSync(path.join(root, 'pwned2'))).toBe(false);
  });
});
