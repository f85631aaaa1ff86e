// The operator's CLI contradictions (issue 21 items 2, 5, 7): next can be bounded and refuses an
// epic that does not exist (creating nothing), the stall window has a name that reads as one,
// replay shows the gap distribution and refuses a file that is no transcript, `help nope` errs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/in-process-cli.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const recent = () => new Date(Date.now() - 2_000).toISOString();
const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'transcripts', 'long-bash-then-crash.jsonl');

describe('next', () => {
  it('--max-wait returns with its own exit code when nothing needs the orchestrator', async () => {
    const dir = tempDir('dw-next-');
    writeWave(dir, 'E-1', recent(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: recent() }]);
    const r = await runMain(['next', '--epic-id', 'E-1', '--state-dir', dir, '--max-wait', '1s', '--action', 'report']);
    expect(r.code).toBe(14);
    expect(r.stdout).toContain('next: max_wait (exit 14): nothing needed you within --max-wait; run next again to keep waiting\n');
    expect(readEvents(dir).find((e) => e.event === 'next_returned')).toMatchObject({ reason: 'max_wait', exit_code: 14 });
    const json = await runMain(['next', '--epic-id', 'E-1', '--state-dir', dir, '--max-wait', '1s', '--json', '--action', 'report']);
    expect(JSON.parse(json.stdout)).toMatchObject({ reason: 'max_wait', exit_code: 14 });
  });

  it('refuses a bad --max-wait', async () => {
    const r = await runMain(['next', '--epic-id', 'E-1', '--state-dir', tempDir('dw-next-'), '--max-wait', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--max-wait: expected a duration (45s, 10m, 2h), got "soon".');
  });

  it("a typo'd epic is an error after a short settle, with the epic meant, and nothing is created for it", async () => {
    const dir = tempDir('dw-next-');
    writeWave(dir, 'NOPE1', recent(), [{ task_id: 't1', ticket_id: 'P-1', status: 'completed' }]);
    const before = readdirSync(dir, { recursive: true }).sort();
    const r = await runMain(['next', '--epic-id', 'NOPE2', '--state-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('epics/NOPE2/state.yaml: state file not found. Did you mean --epic-id NOPE1?');
    expect(readdirSync(dir, { recursive: true }).sort()).toEqual(before);
    expect(existsSync(path.join(dir, 'observe', 'history', 'NOPE2.json'))).toBe(false);
  });
});

describe('the stall window flag', () => {
  it.each([['--stall-window'], ['--timeout']])("%s sets the base window (--timeout is the seed's alias, in its composed form too)", async (flag) => {
    const dir = tempDir('dw-window-');
    writeWave(dir, 'E-1', recent(), [
      { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: new Date(Date.now() - 200_000).toISOString() },
    ]);
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', dir, flag, '300', '--action', 'report', '--once', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).tasks[0]).toMatchObject({ verdict: 'healthy', effective_timeout_seconds: 300 });
  });

  it('--help names it for what it is', async () => {
    const r = await runMain(['next', '--help']);
    expect(r.stdout).toMatch(/--stall-window <seconds> +how long a task may go without progress/);
    expect(r.stdout).toMatch(/--timeout <seconds> +the same as --stall-window/);
    expect(r.stdout).toContain('--max-wait <duration>');
  });
});

describe('replay', () => {
  it('shows the histogram of silent gaps with each candidate window on it, and writes it as SVG', async () => {
    const dir = tempDir('dw-replay-');
    const svg = path.join(dir, 'gaps.svg');
    const r = await runMain(['replay', FIXTURE, '--stall-window', '60', '120', '--svg', svg]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/silent gaps between records: \d+ of at least 1s/);
    expect(r.stdout).toMatch(/── window 1m: \d+ gaps? longer/);
    expect(r.stdout).toMatch(/── window 2m: \d+ gaps? longer/);
    const doc = readFileSync(svg, 'utf8');
    expect(doc).toContain('data-window-ms="60000"');
    expect(doc).toContain('data-window-ms="120000"');
  });

  it('a file with no transcript record is an error, not "0 stalls"', async () => {
    const r = await runMain(['replay', path.join(REPO_ROOT, 'README.md')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('README.md: no Claude Code transcript record in this file');
    expect(r.stdout).toBe('');
  });

  it('--help shows one default, not "(default: [])"', async () => {
    const r = await runMain(['replay', '--help']);
    expect(r.stdout).not.toContain('(default: [])');
    expect(r.stdout).toMatch(/\(default\s+120\)/);
  });
});

describe('help', () => {
  it('help on a command that does not exist is an error naming the one meant', async () => {
    const r = await runMain(['help', 'stauts']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("dispatch-watchdog: no command 'stauts'. Did you mean 'dispatch-watchdog help status'?\n");
    expect((await runMain(['help', 'nope'])).stderr).toMatch(/^dispatch-watchdog: no command 'nope'\. Commands: status, next, /);
    expect((await runMain(['help', 'status'])).code).toBe(0);
  });
});
