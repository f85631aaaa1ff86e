// The process adapter against real children: SIGTERM then SIGKILL, and a pid that is no longer the
// agent (recycled) is never killed.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createAdapter } from '../../src/act/agents/make-adapter.js';
import { launchFile } from '../../src/act/agents/process-launch.js';
import { probeProcess, readProcessIdentity } from '../../src/sys/proc-identity.js';
import { realClock } from '../../src/deps.js';
import { cancelRequest, redispatchRequest } from '../helpers/agent-requests.js';
import { fixture, isRunning, spawnFixture, waitFor } from '../helpers/spawn-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

const adapterWith = (argv?: string[]) => createAdapter('process', { kill_grace_ms: 50, redispatch_argv: argv }, { clock: realClock });
/** For agents that stop on SIGTERM: a grace no loaded machine outlasts (50 ms lost the race at load 20), so SIGTERM alone is what is pinned. */
const patientAdapter = () => createAdapter('process', { kill_grace_ms: 10_000 }, { clock: realClock });

describe('process adapter: cancel', () => {
  it('SIGKILLs an agent that ignores SIGTERM, and says it was forced', async () => {
    const agent = await spawnFixture('ignore-sigterm.mjs');
    const outcome = await adapterWith().cancel(cancelRequest(tempDir(), { pid: agent.pid, dispatchedAtMs: Date.now() }));
    expect(outcome).toMatchObject({ ok: true, wasForced: true, wasAlreadyDone: false });
    expect(outcome.detail).toBe(`process ${agent.pid} ignored SIGTERM for 50 ms and was killed with SIGKILL.`);
    expect((await agent.exited).signal).toBe('SIGKILL');
  });

  it('stops a well-behaved agent with SIGTERM alone', async () => {
    const agent = await spawnFixture('sleep-forever.mjs');
    const outcome = await patientAdapter().cancel(cancelRequest(tempDir(), { pid: agent.pid, dispatchedAtMs: Date.now() }));
    expect(outcome).toMatchObject({ ok: true, wasForced: false });
    expect((await agent.exited).signal).toBe('SIGTERM');
  });

  it("stops the agent's whole process group when it leads one, so its tool subprocesses stop too", async () => {
    const agent = await spawnFixture('agent-with-child.mjs', [], { detached: true });
    const toolPid = Number(agent.readyLine.split(' ')[1]);
    onTestFinished(() => {
      if (isRunning(toolPid)) process.kill(toolPid, 'SIGKILL');
    });
    const outcome = await patientAdapter().cancel(cancelRequest(tempDir(), { pid: agent.pid, dispatchedAtMs: Date.now() }));
    expect(outcome).toMatchObject({ ok: true, wasForced: false });
    expect((await agent.exited).signal).toBe('SIGTERM');
    // The tool process is a grandchild: poll it (a zombie counts as gone) with a deadline.
    await waitFor('the tool subprocess to exit', async () => ((await probeProcess(toolPid)).kind === 'gone' ? true : undefined));
  });

  it('never kills a recycled pid whose start time differs from the recorded identity', async () => {
    const other = await spawnFixture('sleep-forever.mjs');
    const live = (await readProcessIdentity(other.pid))!;
    const req = { ...cancelRequest(tempDir(), { pid: other.pid }), expectedProcess: { ...live, startTicks: live.startTicks + 1 } };
    const adapter = adapterWith();
    expect(await adapter.cancelMarker(req)).toBe('done');
    const outcome = await adapter.cancel(req);
    expect(outcome).toMatchObject({ ok: true, wasAlreadyDone: true, wasForced: false });
    expect(outcome.detail).toMatch(new RegExp(`^not killed: pid ${other.pid} now belongs to another process`));
    expect(isRunning(other.pid)).toBe(true);
  });

  it('never kills a pid whose process started after the task was dispatched', async () => {
    const other = await spawnFixture('sleep-forever.mjs');
    const req = cancelRequest(tempDir(), { pid: other.pid, dispatchedAtMs: Date.now() - 3_600_000 });
    const outcome = await adapterWith().cancel(req);
    expect(outcome).toMatchObject({ ok: true, wasAlreadyDone: true });
    expect(outcome.detail).toContain('after the task was dispatched at');
    expect(isRunning(other.pid)).toBe(true);
  });

  it('refuses to kill when the identity cannot be verified, and the marker says unknown', async () => {
    const agent = await spawnFixture('sleep-forever.mjs');
    const req = cancelRequest(tempDir(), { pid: agent.pid, dispatchedAtMs: undefined });
    const adapter = adapterWith();
    expect(await adapter.cancelMarker(req)).toBe('unknown');
    expect(await adapter.cancel(req)).toMatchObject({ ok: false, code: 'identity_unknown', retryable: false });
    expect(isRunning(agent.pid)).toBe(true);
  });

  it('reports a row without a pid as missing_target (marker unknown)', async () => {
    const req = cancelRequest(tempDir());
    expect(await adapterWith().cancelMarker(req)).toBe('unknown');
    expect(await adapterWith().cancel(req)).toMatchObject({ ok: false, code: 'missing_target' });
  });

  it('treats an agent that already exited as done', async () => {
    const agent = await spawnFixture('sleep-forever.mjs');
    agent.child.kill('SIGKILL');
    await agent.exited;
    const req = cancelRequest(tempDir(), { pid: agent.pid, dispatchedAtMs: Date.now() });
    expect(await adapterWith().cancelMarker(req)).toBe('done');
    expect(await adapterWith().cancel(req)).toMatchObject({ ok: true, wasAlreadyDone: true });
  });
});

describe('process adapter: redispatch', () => {
  it('launches detached with output in the agent log, and without LINEAR_API_KEY', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'argv.ndjson');
    const req = await redispatchRequest(dir);
    process.env.LINEAR_API_KEY = 'lin_api_secret';
    const outcome = await adapterWith([process.execPath, fixture('fake-agent.mjs'), out, '{recovery_task_id}', '{ticket}', '{attempt}', '{epic}', '{task_id}'])
      .redispatch(req)
      .finally(() => {
        delete process.env.LINEAR_API_KEY;
      });
    expect(outcome).toMatchObject({ ok: true, pid: expect.any(Number) });
    // A whole line, not the moment the agent has created its file and not yet written to it.
    const [line] = await waitFor('the agent to start', async () => {
      const t = await fs.readFile(out, 'utf8').catch(() => undefined);
      return t?.endsWith('\n') ? t.split('\n').map((l) => l && JSON.parse(l)) : undefined;
    });
    expect(line).toEqual({ argv: ['t1-r1', 'PROJ-1001', '1', 'PROJ-1000', 't1'], key: 'PROJ-1000:t1:redispatch', hasLinearKey: false });
    const log = path.join(dir, 'epics/PROJ-1000/agents/t1-r1.log');
    expect(await waitFor('the log', async () => (await fs.readFile(log, 'utf8')).includes('fake agent stderr') || undefined)).toBe(true);
    const marker = JSON.parse(await fs.readFile(launchFile(req), 'utf8'));
    expect(marker).toMatchObject({ status: 'launched', pid: outcome.pid, log_file: 'epics/PROJ-1000/agents/t1-r1.log' });
  });

  it("starts the replacement in the stalled agent's own cwd, given as {cwd} too; a cwd that is gone launches nothing", async () => {
    const dir = tempDir();
    const worktree = await fs.realpath(tempDir());
    const out = path.join(dir, 'pwd.txt');
    const adapter = adapterWith(['/bin/sh', '-c', `pwd > ${out}; echo "$1" >> ${out}`, 'sh', '{cwd}']);
    expect(await adapter.redispatch({ ...(await redispatchRequest(dir)), cwd: worktree })).toMatchObject({
      ok: true,
      detail: expect.stringContaining(` in ${worktree}`),
    });
    expect(await waitFor('the replacement to start', async () => (await fs.readFile(out, 'utf8').catch(() => '')).split('\n')[1] || undefined)).toBe(worktree);
    expect((await fs.readFile(out, 'utf8')).split('\n')[0]).toBe(worktree);
    const gone = await redispatchRequest(tempDir());
    const refused = await adapter.redispatch({ ...gone, cwd: path.join(worktree, 'removed') });
    expect(refused).toMatchObject({ ok: false, code: 'missing_target', retryable: false });
    expect(refused.detail).toContain(`${path.join(worktree, 'removed')}, which is no longer a directory`);
    expect(await adapter.redispatchMarker(gone)).toBe('absent');
  });

  it('never launches again after a crash between the launch marker and the spawn (orphan)', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'argv.ndjson');
    const req = await redispatchRequest(dir);
    await fs.mkdir(path.dirname(launchFile(req)), { recursive: true });
    await fs.writeFile(launchFile(req), JSON.stringify({ key: req.key, status: 'launching' }));
    const adapter = adapterWith([process.execPath, fixture('fake-agent.mjs'), out]);
    expect(await adapter.redispatchMarker(req)).toBe('unknown');
    expect(await adapter.redispatch(req)).toMatchObject({ ok: false, code: 'orphan', retryable: false });
    await expect(fs.access(out)).rejects.toThrow();
  });

  it('records a launch that could not start as failed, so it may be tried again', async () => {
    const dir = tempDir();
    const req = await redispatchRequest(dir);
    const adapter = adapterWith([path.join(dir, 'no-such-agent')]);
    expect(await adapter.redispatch(req)).toMatchObject({ ok: false, code: 'spawn_failed', retryable: false });
    expect(await adapter.redispatchMarker(req)).toBe('absent');
  });

  it('says what to configure when agents.redispatch_argv is missing', async () => {
    const outcome = await adapterWith().redispatch(await redispatchRequest(tempDir()));
    expect(outcome).toMatchObject({ ok: false, code: 'not_configured' });
    expect(outcome.detail).toMatchInlineSnapshot(
      `"agents.redispatch_argv is not set: the process adapter launches replacements from it. Add e.g. ["claude", "-p", "{prompt}"] to watchdog.config.yaml."`,
    );
  });
});
