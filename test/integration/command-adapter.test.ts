// The command adapter: exit 0 = done; a failure says so; a command that hangs is killed and its key
// becomes an orphan that is never run again. Plus the config checks made when the adapter is created.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { findProcessesWithEnv } from '../../src/sys/proc-identity.js';
import { runMain } from '../helpers/in-process-cli.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { createAdapter, validateAgentsConfig } from '../../src/act/agents/make-adapter.js';
import { realClock } from '../../src/deps.js';
import { cancelRequest } from '../helpers/agent-requests.js';
import { fixture } from '../helpers/spawn-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

const node = process.execPath;
const command = (cancel: string[], timeoutMs?: number) =>
  createAdapter('command', { cancel_argv: cancel, command_timeout_ms: timeoutMs }, { clock: realClock });

describe('command adapter', () => {
  it('reports a non-zero exit with the end of its output; the marker stays absent', async () => {
    const dir = tempDir();
    const adapter = command([node, fixture('fake-agent.mjs'), path.join(dir, 'out.ndjson'), '--exit=3']);
    const req = cancelRequest(dir);
    const outcome = await adapter.cancel(req);
    expect(outcome).toMatchObject({ ok: false, code: 'command_failed', retryable: false });
    // stdout and stderr arrive on two pipes, so their order in the tail may vary.
    expect(outcome.detail).toMatch(/^the cancel command for PROJ-1000:t1:cancel exited 3\. Output: ".*"$/);
    expect(outcome.detail).toContain('started --exit=3');
    expect(outcome.detail).toContain('fake agent stderr');
    expect(await adapter.cancelMarker(req)).toBe('absent');
  });

  it('kills a command that outlives command_timeout_ms and never runs that key again', async () => {
    const dir = tempDir();
    const adapter = command([node, fixture('sleep-forever.mjs')], 300);
    const req = cancelRequest(dir);
    expect(await adapter.cancel(req)).toMatchObject({ ok: false, code: 'command_timeout' });
    expect(await adapter.cancelMarker(req)).toBe('unknown');
    expect(await adapter.cancel(req)).toMatchObject({ ok: false, code: 'orphan' });
  });

  it('says which placeholder has no value for this task', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'out.ndjson');
    const outcome = await command([node, fixture('fake-agent.mjs'), out, '{pid}']).cancel(cancelRequest(dir));
    expect(outcome).toMatchObject({ ok: false, code: 'missing_target' });
    expect(outcome.detail).toBe('agents.cancel_argv uses {pid}, but task t1 has no value for it.');
    await expect(fs.access(out)).rejects.toThrow();
  });

  it('reports a program that does not exist', async () => {
    const dir = tempDir();
    const outcome = await command([path.join(dir, 'nope')]).cancel(cancelRequest(dir));
    expect(outcome).toMatchObject({ ok: false, code: 'spawn_failed' });
    expect(outcome.detail).toContain('ENOENT. Check agents.cancel_argv[0] is an executable on PATH.');
  });
});

describe('createAdapter config checks', () => {
  it('names an unknown placeholder, the key and the element', () => {
    expect(() => createAdapter('process', { redispatch_argv: ['claude', '-p', '{promt}'] }, { clock: realClock })).toThrowErrorMatchingInlineSnapshot(
      `[InputError: agents.redispatch_argv[2]: unknown placeholder {promt}. Expected one of {prompt} {prompt_file} {ticket} {attempt} {checkpoint} {task_id} {recovery_task_id} {epic} {key} {pid} {agent_id} {agent_name} {team} {session_id} {cwd}, got "{promt}".]`,
    );
  });

  it.each([
    ['command', 'cancel', ['cancel_argv']],
    ['command', 'redispatch', ['cancel_argv', 'redispatch_argv']],
    ['process', 'redispatch', ['redispatch_argv']],
    ['process', 'cancel', []],
    ['mailbox', 'redispatch', []],
    ['claude-team', 'redispatch', []],
  ] as const)('%s with strategy %s needs %j', (name, strategy, missing) => {
    const problems = validateAgentsConfig(name, {}, strategy);
    expect(problems.map((p) => p.message.split(':')[0])).toEqual(missing.map((k) => `agents.${k}`));
  });
});

describe('command adapter: the replacement it starts', () => {
  it('is watched like a process-adapter launch: found by the marks it inherited, listed in flight with its pid, never ending the wave at once', async () => {
    const dir = tempDir();
    const old = new Date(Date.now() - 3_600_000).toISOString();
    writeWave(dir, 'E-1', old, [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: old, last_activity_ts: old }]);
    // A launcher that starts the replacement detached and exits 0 at once, as `my-orchestrator start` would.
    const launcher = `require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { detached: true, stdio: 'ignore' }).unref()`;
    await fs.writeFile(
      path.join(dir, 'watchdog.config.yaml'),
      stringify({ agents: { adapter: 'command', cancel_argv: [node, '-e', '0'], redispatch_argv: [node, '-e', launcher] } }),
    );
    const killLaunched = async () => {
      for (const p of await findProcessesWithEnv({ DISPATCH_WATCHDOG_STATE_DIR: path.resolve(dir) })) process.kill(p.pid, 'SIGKILL');
    };
    onTestFinished(killLaunched);
    expect((await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once'])).code).toBe(3);
    const red = readEvents(dir).find((e) => e.event === 'redispatch')!;
    expect(red).toMatchObject({ adapter: 'command', recovery_task_id: 't1-r1', pid: expect.any(Number), start_ticks: expect.any(Number) });
    expect(red.output_path).toBeUndefined();
    expect(red.detail).toContain(`its replacement runs as pid ${red.pid}`);
    const next = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--json']);
    const doc = JSON.parse(next.stdout);
    expect(doc.tasks.find((t: { task_id: string }) => t.task_id === 't1-r1')).toMatchObject({ verdict: 'healthy' });
    expect(next.code).toBe(0);
  });
});
