// Where the process adapter's replacement starts and which Claude Code config dir it gets, whether
// the watchdog launches it at once or a restart finishes a redispatch a crash cut short: in the
// stalled agent's own cwd (its transcript's, carried in action_started and the checkpoint), with
// CLAUDE_CONFIG_DIR set to the configured claude.config_dir, so the replacement's transcript lands
// where the watchdog looks and a resume finds the session it continues.
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { probeProcess } from '../../src/sys/proc-identity.js';
import { exited, runCli, spawnCli, until } from '../helpers/cli.js';
import { spawnFixture, waitFor } from '../helpers/spawn-fixture.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-W';
const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();

/** A stalled agent (a real process) whose transcript, under a configured Claude config dir, says it works in its own worktree. */
async function scene(opts: { watchdogConfigDir?: string } = {}) {
  const dir = tempDir('dw-where-');
  const worktree = realpathSync(tempDir('dw-worktree-'));
  const claudeDir = realpathSync(tempDir('dw-claude-'));
  const out = path.join(tempDir(), 'replacement.txt');
  const agent = await spawnFixture('sleep-forever.mjs');
  const sessionId = '5f0c8a52-1d8e-4c36-9a53-2f7c0e1b9d44';
  const project = path.join(claudeDir, 'projects', worktree.replace(/[/.]/g, '-'));
  mkdirSync(project, { recursive: true });
  const rec = (type: string, message: object) =>
    JSON.stringify({ type, uuid: `u-${type}`, sessionId, cwd: worktree, timestamp: ago(3), isSidechain: false, version: '2.1.197', message });
  writeFileSync(
    path.join(project, `${sessionId}.jsonl`),
    [rec('user', { role: 'user', content: 'implement P-1' }), rec('assistant', { role: 'assistant', content: [{ type: 'text', text: 'working on it' }] })].join(
      '\n',
    ) + '\n',
  );
  // The replacement says where it runs and which config dir it was given.
  const argv = ['/bin/sh', '-c', 'pwd > "$0.tmp"; printf "%s\\n" "${CLAUDE_CONFIG_DIR-unset}" >> "$0.tmp"; mv "$0.tmp" "$0"', out];
  writeFileSync(
    path.join(dir, 'watchdog.config.yaml'),
    stringify({ agents: { adapter: 'process', kill_grace_ms: 60_000, redispatch_argv: argv }, claude: { config_dir: claudeDir } }),
  );
  writeWave(dir, EPIC, ago(3), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', pid: agent.pid, dispatched_at: ago(3), session_id: sessionId }]);
  // The watchdog's own CLAUDE_CONFIG_DIR (when any) is not the configured one: the config wins.
  const env = { CLAUDE_CONFIG_DIR: opts.watchdogConfigDir ?? '' };
  const args = ['--epic-id', EPIC, '--state-dir', dir, '--timeout', '1'];
  return {
    dir,
    worktree,
    claudeDir,
    agent,
    env,
    /** The replacement's pwd and CLAUDE_CONFIG_DIR, once it has run. */
    replacement: () =>
      waitFor('the replacement to run', async () =>
        readFile(out, 'utf8').then(
          (t) => t.trim().split('\n'),
          () => undefined,
        ),
      ),
    crash: async (point: string) => {
      const child = spawnCli([...args, '--once'], { env: { ...env, DISPATCH_WATCHDOG_TEST_CRASH: point } });
      onTestFinished(() => void child.kill('SIGKILL'));
      return exited(child);
    },
    once: () => runCli([...args, '--once'], { env }),
    recover: () => runCli(['recover', '--epic-id', EPIC, '--state-dir', dir], { env }),
  };
}

const checkpointOf = (dir: string) => readFileSync(path.join(dir, 'pipeline_checkpoints', 'P-1', 'recovery-1.yaml'), 'utf8');

describe("the process adapter's replacement: where it starts, which Claude config dir it gets", () => {
  it.each([
    ['launched at once', undefined, 'once'],
    ['after a crash right after action_started, finished by the next run', 'after:action_started', 'once'],
    ['after a crash right after the checkpoint, finished by recover', 'after:checkpoint', 'recover'],
  ] as const)("%s: in the agent's cwd, with CLAUDE_CONFIG_DIR = claude.config_dir", async (_what, point, restart) => {
    const s = await scene({ watchdogConfigDir: tempDir('dw-other-claude-') });
    if (point) expect(await s.crash(point)).toEqual({ code: null, signal: 'SIGKILL' });
    const r = restart === 'recover' && point ? await s.recover() : await s.once();
    expect(r.stderr).toBe('');
    expect(await s.replacement()).toEqual([s.worktree, s.claudeDir]);
    expect(readEvents(s.dir).find((e) => e.event === 'action_started')).toMatchObject({ cwd: s.worktree });
    expect(checkpointOf(s.dir)).toContain(`cwd: ${s.worktree}\n`);
    const redispatch = await until(() => readEvents(s.dir).find((e) => e.event === 'redispatch'), 10_000, 'the redispatch line');
    expect(redispatch.detail).toContain(` in ${s.worktree}`);
    const launch = JSON.parse(readFileSync(path.join(s.dir, 'epics', EPIC, 'launches', `${EPIC}__t1__redispatch.redispatch.json`), 'utf8'));
    expect(launch).toMatchObject({ status: 'launched', cwd: s.worktree });
    expect((await s.agent.exited).signal).toBe('SIGTERM');
    await waitFor('the replacement to exit', async () => ((await probeProcess(Number(redispatch.pid))).kind === 'gone' ? true : undefined));
  });
});
