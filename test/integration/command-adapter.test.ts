// The command adapter: exit 0 = done; a failure says so; a command that hangs is killed and its key
// becomes an orphan that is never run again. Plus the config checks made when the adapter is created.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdapter, validateAgentsConfig } from '../../src/act/agents/make-adapter.js';
import { realClock } from '../../src/deps.js';
import { cancelRequest } from '../helpers/agent-requests.js';
import { fixture } from '../helpers/spawn-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

const node = process.execPath;
const command = (cancel: string[], timeoutMs?: number) => createAdapter('command', { cancel_argv: cancel, command_timeout_ms: timeoutMs }, { clock: realClock });

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
