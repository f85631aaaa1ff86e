import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exited, runCli, spawnCli, until } from '../helpers/cli.js';
import { runMain } from '../helpers/in-process-cli.js';
import { readEvents, readWatchdogJson, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const now = Date.now();
const ago = (s: number) => new Date(now - s * 1000).toISOString();

describe('dispatch-watchdog --once', () => {
  it('exits 0 when every in-flight task is healthy', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', ago(60), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: ago(5) }]);
    const r = await runCli(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--action', 'report']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^t1 +P-1 +healthy /m);
    expect(readWatchdogJson(dir, 'E-1').schema_version).toBe('1.1');
  });

  it('exits 3 on a stall, in the composed form the skill uses, with ONEX_STATE_DIR', async () => {
    const dir = tempDir();
    writeWave(dir, 'PROJ-1000', ago(900), [{ task_id: 't1', ticket_id: 'PROJ-1001', status: 'in_progress', last_activity_ts: ago(400) }]);
    const r = await runCli(['--epic-id', 'PROJ-1000', '--timeout', '300', '--action', 'report', '--once'], { env: { ONEX_STATE_DIR: dir } });
    expect(r.code).toBe(3);
    expect(readWatchdogJson(dir, 'PROJ-1000').stalls_detected[0]).toMatchObject({ task_id: 't1', action_taken: 'report', effective_timeout_seconds: 300 });
    expect(readEvents(dir).map((e) => e.event)).toEqual(['stall_detected']);
  });

  it('--json prints the check result as JSON on stdout', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', ago(60), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: ago(5) }]);
    const r = await runCli(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--json']);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ schema_version: '1.1', epic_id: 'E-1', healthy_tasks: ['t1'], summary: { total_tasks: 1, healthy: 1 } });
  });

  it('--now evaluates the bundled example the same way whenever it runs, and writes no log', async () => {
    const dir = tempDir();
    const { cpSync } = await import('node:fs');
    cpSync(path.resolve('.onex_state.example/epics'), path.join(dir, 'epics'), { recursive: true });
    const r = await runCli(['--state-dir', dir, '--epic-id', 'PROJ-1000', '--now', '2026-04-02T10:10:00Z', '--json']);
    expect(r.code).toBe(3);
    // Printed, never written: a live watchdog's watchdog.json is not overwritten by an invented moment.
    expect(existsSync(path.join(dir, 'epics', 'PROJ-1000', 'watchdog.json'))).toBe(false);
    const doc = JSON.parse(r.stdout);
    const verdicts = Object.fromEntries(doc.tasks.map((t: { task_id: string; verdict: string }) => [t.task_id, t.verdict]));
    expect(verdicts).toEqual({
      'task-1001': 'healthy',
      'task-1002': 'stalled',
      'task-1003': 'healthy',
      'task-1004': 'healthy',
      'task-1005': 'blocked',
      'task-1006': 'terminal',
    });
    expect(doc.tasks.find((t: { task_id: string }) => t.task_id === 'task-1003').exemptions).toEqual(['bash_long_timeout']);
    expect(doc.stalls_detected[0].action_taken).toBe('dry_run:redispatch');
    expect(existsSync(path.join(dir, 'dispatch-log'))).toBe(false);

    const s = await runCli(['--state-dir', dir, '--epic-id', 'PROJ-1000', '--now', '2026-04-02T10:10:00Z']);
    expect(s.code).toBe(3);
    expect(s.stdout).toContain('task-1002  PROJ-1002  STALLED   8m00s / 2m00s   -                  no progress for 480s (window 120s)');
    expect(s.stdout).toContain('task-1003  PROJ-1003  healthy   7m00s / 11m00s  bash_long_timeout');
    expect(s.stdout).toContain('task-1005  PROJ-1005  blocked');
    expect(doc.blocked_tasks).toEqual(['PROJ-1005']);
  });
});

// In-process: the message and the exit code are the point, not the process (the tests above and below spawn it).
describe('bad input exits 2 with a message naming what to fix', () => {
  const cases: [string, (dir: string) => string[], string][] = [
    [
      'malformed YAML',
      (d) => (writeFileSync(path.join(d, 'epics/E-1/state.yaml'), 'current_wave:\n  tasks: [\n'), ['--epic-id', 'E-1']),
      'epics/E-1/state.yaml:3:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ].',
    ],
    [
      'a wrong type',
      (d) => (writeFileSync(path.join(d, 'epics/E-1/state.yaml'), 'wave_tasks:\n  - ticket_id: P-1\n    pid: abc\n'), ['--epic-id', 'E-1']),
      'epics/E-1/state.yaml:3:10 wave_tasks[0].pid: expected number, got "abc".',
    ],
    ['a missing state file', () => ['--epic-id', 'E-404'], 'epics/E-404/state.yaml: state file not found. Epics here: E-1. Check --epic-id and --state-dir'],
    [
      'an id that would escape the state dir',
      () => ['--epic-id', '../../etc'],
      'epic id "../../etc" cannot be used: expected 1-128 letters, digits, ".", "_", "@" or "-", starting with a letter or digit.',
    ],
    [
      'a config key that does not exist',
      (d) => (writeFileSync(path.join(d, 'watchdog.config.yaml'), 'timeout_secs: 30\n'), ['--epic-id', 'E-1']),
      'watchdog.config.yaml:1:1 timeout_secs: unknown key "timeout_secs". Remove that key or fix its spelling',
    ],
    [
      'a bad flag value',
      () => ['--epic-id', 'E-1', '--timeout', '-5'],
      'dispatch-watchdog: --timeout: expected a number of seconds above 0 and at most 604800 (7 days), got "-5".\n',
    ],
    [
      'a --wait-for-state that is not a duration',
      () => ['--epic-id', 'E-1', '--wait-for-state', 'soon'],
      'dispatch-watchdog: --wait-for-state: expected a duration (45s, 10m, 2h), got "soon". e.g. --wait-for-state 10m',
    ],
    [
      'an unknown action',
      () => ['--epic-id', 'E-1', '--action', 'nuke'],
      'dispatch-watchdog: --action: expected one of report, cancel, redispatch, got "nuke".\n',
    ],
    ['no epic id', () => [], 'dispatch-watchdog: --epic-id is required. e.g. dispatch-watchdog --epic-id PROJ-1000'],
    [
      'a state file that is not a file',
      (d) => (rmSync(path.join(d, 'epics/E-1/state.yaml')), execFileSync('mkfifo', [path.join(d, 'epics/E-1/state.yaml')]), ['--epic-id', 'E-1']),
      'epics/E-1/state.yaml: the state file is not a regular file.',
    ],
    [
      'a state file over 16 MB',
      (d) => (truncateSync(path.join(d, 'epics/E-1/state.yaml'), 17 * 1024 * 1024), ['--epic-id', 'E-1']),
      'epics/E-1/state.yaml: state file is 17825792 bytes, over the 16777216-byte limit.',
    ],
  ];
  it.each(cases)('%s', async (_name, setup, message) => {
    const dir = tempDir();
    writeWave(dir, 'E-1', ago(10), [{ ticket_id: 'P-1', last_activity_ts: ago(1) }]);
    const r = await runMain([...setup(dir), '--state-dir', dir, '--once']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });
});

describe('the long-running watchdog as a process', () => {
  it('started before the orchestrator, --wait-for-state waits for the state file, creating nothing meanwhile, then watches it', async () => {
    const dir = tempDir();
    const child = spawnCli(['--epic-id', 'E-1', '--state-dir', dir, '--action', 'report', '--wait-for-state', '10m']);
    await until(
      () => child.output().includes(`dispatch-watchdog: waiting up to 10m 00s for ${path.join(dir, 'epics', 'E-1', 'state.yaml')} (--wait-for-state)`),
      25_000,
      'the wait announced',
    );
    expect(existsSync(path.join(dir, 'dispatch-log'))).toBe(false);
    expect(existsSync(path.join(dir, 'epics'))).toBe(false);
    writeWave(dir, 'E-1', ago(10), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: new Date().toISOString() }]);
    await until(() => readEvents(dir).some((e) => e.event === 'healthy' && e.task_id === 't1'), 25_000, 'the first check once the file is there');
    child.kill('SIGTERM');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });

  it('on SIGTERM writes watchdog_stopped and exits 0', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', ago(10), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: ago(1) }]);
    const child = spawnCli(['--epic-id', 'E-1', '--state-dir', dir, '--action', 'report']);
    await until(() => readEvents(dir).some((e) => e.event === 'healthy'), 25_000, 'first check');
    // Other epics' lines while it runs (~370 KB): at its stop it brings the summary to the log's end.
    const day = path.join(dir, 'dispatch-log', `${new Date().toISOString().slice(0, 10)}.ndjson`);
    const other = JSON.stringify({
      timestamp_utc: ago(1),
      event: 'healthy',
      epic_id: 'E-2',
      run_id: 'r',
      ticket_id: 'P-9',
      task_id: 't9',
      agent_id: 'a9',
      idle_seconds: 1,
      effective_timeout_seconds: 120,
    });
    appendFileSync(day, `${other}\n`.repeat(2000));
    const live = await runCli(['status', '--epic-id', 'E-1', '--state-dir', dir]);
    expect(live.stdout.split('\n')[0]).toMatch(
      new RegExp(`^epic E-1  checked \\S+ \\(\\d+s ago\\)  action report  base window 2m00s  watched by pid ${child.pid} since `),
    );
    child.kill('SIGTERM');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(readEvents(dir).at(-1)).toMatchObject({ event: 'watchdog_stopped', reason: 'signal', signal: 'SIGTERM' });
    const covers = (JSON.parse(readFileSync(path.join(dir, 'observe/history/E-1.json'), 'utf8')) as { covers: { name: string; size: number }[] }).covers;
    expect(covers.at(-1)).toMatchObject({ name: path.basename(day), size: statSync(day).size });
    expect((await runCli(['status', '--epic-id', 'E-1', '--state-dir', dir])).stdout).toContain('  no watchdog running\n');
    expect(existsSync(path.join(dir, 'epics/E-1/watchdog.lock'))).toBe(false);
  });

  it('wakes as soon as the orchestrator rewrites the state file, not at the next interval', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', ago(10), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: ago(1) }]);
    const child = spawnCli(['--epic-id', 'E-1', '--state-dir', dir, '--action', 'report', '--timeout', '3600', '--check-interval', '3600']);
    await until(() => readEvents(dir).some((e) => e.event === 'healthy'), 25_000, 'first check');
    const t = Date.now();
    writeWave(dir, 'E-1', ago(10), [{ task_id: 't1', ticket_id: 'P-1', status: 'completed' }]);
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(Date.now() - t).toBeLessThan(5000);
    expect(readEvents(dir).at(-1)).toMatchObject({ event: 'watchdog_stopped', reason: 'wave_complete' });
  });

  it('a second watchdog on the same epic exits 2 naming the holder; a dead holder is taken over', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', ago(10), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: ago(1) }]);
    const first = spawnCli(['--epic-id', 'E-1', '--state-dir', dir, '--action', 'report']);
    await until(() => readEvents(dir).some((e) => e.event === 'watchdog_started'), 25_000, 'first watchdog');
    const second = await runCli(['--epic-id', 'E-1', '--state-dir', dir, '--once']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`another dispatch-watchdog (pid ${first.pid}, since `);
    first.kill('SIGKILL');
    await exited(first);
    expect(existsSync(path.join(dir, 'epics/E-1/watchdog.lock'))).toBe(true);
    const third = await runCli(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--action', 'report']);
    expect(third.code).toBe(0);
  });
});
