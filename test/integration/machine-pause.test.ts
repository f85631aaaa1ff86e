// A machine paused (a VM stopped, a laptop asleep, SIGSTOP) stops the agents with the watchdog: the
// time it did not see pass is no one's silence. Stop 26's CI run paused about 9 s mid-demo and a
// steady agent was called stalled, stopped and redispatched for it. Here the watchdog and a busy
// real agent are stopped together for longer than the window; the watchdog resumes first and
// checks (late, then again at once) while the agent is still stopped, as after a real resume.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { REPO_ROOT, exited, spawnCli, until } from '../helpers/cli.js';
import { readEvents, readWatchdogJson, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { readFileSync } from 'node:fs';

const AGENT = path.join(REPO_ROOT, 'test/fixtures/procs/claude-agent.mjs');
/** Longer than the 4 s window: without the pause subtracted, the agent looks stalled on resume. */
const PAUSE_MS = 6000;

describe('a machine paused with its agents', () => {
  it('is not a stall: the watchdog checks twice on resume, acts on nothing, and the agent goes on', async () => {
    const dir = tempDir();
    const transcript = path.join(dir, 'agent.jsonl');
    const agent = spawn(process.execPath, [AGENT, 'busy', transcript, 'a1'], { stdio: ['ignore', 'pipe', 'inherit'] });
    onTestFinished(() => void agent.kill('SIGKILL'));
    await new Promise<void>((resolve) => agent.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()));
    writeWave(dir, 'E-P', new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', agent_id: 'a1', transcript_path: transcript }]);
    const watchdog = spawnCli(['--epic-id', 'E-P', '--state-dir', dir, '--action', 'report', '--timeout', '4', '--check-interval', '1']);
    onTestFinished(() => void watchdog.kill('SIGKILL'));
    const doc = () => {
      try {
        return readWatchdogJson(dir, 'E-P');
      } catch {
        return undefined; // not written yet
      }
    };
    const checkedAt = () => {
      const d = doc();
      return d ? Date.parse(d.check_timestamp) : undefined;
    };
    await until(() => doc()?.healthy_tasks.includes('t1'), 30_000, 'a first check');

    // The pause: both stopped, for longer than the window.
    process.kill(watchdog.pid!, 'SIGSTOP');
    agent.kill('SIGSTOP');
    const stoppedAt = Date.now();
    await new Promise((r) => setTimeout(r, PAUSE_MS));
    process.kill(watchdog.pid!, 'SIGCONT');
    // Two checks after the resume (the late one, then the one that may act), the agent still stopped.
    const resumedAt = Date.now();
    await until(() => (checkedAt() ?? 0) > resumedAt, 30_000, 'a check after the resume');
    const firstAfter = checkedAt()!;
    await until(() => (checkedAt() ?? 0) > firstAfter, 30_000, 'a second check after the resume');
    agent.kill('SIGCONT');
    // The agent writes again and the watchdog sees it.
    const linesBefore = readFileSync(transcript, 'utf8').split('\n').length;
    await until(() => readFileSync(transcript, 'utf8').split('\n').length > linesBefore + 2, 30_000, 'the agent writing again');
    const wrote = Date.now();
    await until(() => (checkedAt() ?? 0) > wrote, 30_000, 'a check after the agent wrote again');

    const stalls = readEvents(dir).filter((e) => e.event === 'stall_detected');
    expect(stalls, JSON.stringify(stalls)).toEqual([]);
    const t1 = readWatchdogJson(dir, 'E-P').tasks.find((t: { task_id: string }) => t.task_id === 't1');
    expect(t1.verdict).toBe('healthy');
    expect(Date.now() - stoppedAt).toBeGreaterThan(PAUSE_MS);
    watchdog.kill('SIGTERM');
    expect((await exited(watchdog)).code).toBe(0);
  }, 90_000);
});
