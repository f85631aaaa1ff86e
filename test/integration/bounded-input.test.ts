// Bounded input (issue 24 item 4): nesting, row count and one-line JSON checked before any parser
// runs. Deep YAML is a clear exit 2 (never a V8 abort with the lock left behind), in --once and in
// a running loop; 100,000 rows are refused within a small heap; a 10,000-agent wave written by
// JSON.stringify on one line is read.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN, exited, runCli, spawnCli } from '../helpers/cli.js';
import { readEvents, readWatchdogJson } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/spawn-fixture.js';
import { findTooDeep, MAX_NESTING_DEPTH } from '../../src/contracts/input-limits.js';
import { parseStateFile } from '../../src/contracts/state-file.js';

const N = 100_000;
const head = 'current_wave:\n  tasks:\n    - ticket_id: P-1\n';
const DEEP: [string, string][] = [
  ['flow sequences 100,000 deep', head + '      x: ' + '['.repeat(N) + ']'.repeat(N) + '\n'],
  ['flow mappings 20,000 deep, one a line', head + '      x: ' + '{a:\n'.repeat(20_000) + '1' + '}\n'.repeat(20_000)],
  ['compact block sequences 100,000 deep', head + '      x:\n        ' + '- '.repeat(N) + 'x\n'],
  ['JSON 100,000 deep', '{"current_wave":{"tasks":[{"ticket_id":"P-1","x":' + '['.repeat(N) + ']'.repeat(N) + '}]}}'],
];
function stateFile(dir: string, text: string) {
  const file = path.join(dir, 'epics', 'E-1', 'state.yaml');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('nesting', () => {
  it.each(DEEP)('%s: --once exits 2 naming the place, and leaves no lock', async (_name, text) => {
    const dir = tempDir();
    const file = stateFile(dir, text);
    const r = await runCli(['--epic-id', 'E-1', '--state-dir', dir, '--once']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^dispatch-watchdog: ${file.replaceAll('/', '\\/')}:\\d+:\\d+: nested deeper than ${MAX_NESTING_DEPTH} levels`));
    expect(r.stderr).not.toContain('internal error');
    expect(existsSync(path.join(dir, 'epics', 'E-1', 'watchdog.lock'))).toBe(false);
  });

  it('a running loop logs it as an input error and keeps watching', async () => {
    const dir = tempDir();
    stateFile(dir, DEEP[0]![1]);
    const child = spawnCli(['--epic-id', 'E-1', '--state-dir', dir, '--check-interval', '1']);
    onTestFinished(() => void child.kill('SIGKILL'));
    await waitFor('the input error', () => readEvents(dir).find((e) => e.event === 'input_error'), 30_000);
    expect(readEvents(dir).find((e) => e.event === 'input_error')).toMatchObject({ code: 'input_too_large' });
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
  });

  it('brackets in quoted text, comments and block scalars never count; real files pass', () => {
    const text = `current_wave:\n  tasks:\n    - ticket_id: P-1 # [[[[\n      last_output: "${'['.repeat(200)}"\n      note: '${'{'.repeat(200)}'\n      log: |\n        ${'['.repeat(200)}\n      remaining_work: [a, [b, {c: d}]]\n`;
    expect(findTooDeep(text)).toBeUndefined();
    expect(parseStateFile(text, 'state.yaml')).toMatchObject({ ok: true });
    expect(findTooDeep('x: ' + '['.repeat(MAX_NESTING_DEPTH) + ']'.repeat(MAX_NESTING_DEPTH))).toMatchObject({ line: 1 });
  });
});

describe('rows', () => {
  it('100,000 rows are refused before parsing, within a 96 MB heap', async () => {
    const dir = tempDir();
    stateFile(dir, head.replace('    - ticket_id: P-1\n', '') + Array.from({ length: N }, (_, i) => `    - ticket_id: P-${i}\n`).join(''));
    const child = spawn(process.execPath, ['--max-old-space-size=96', BIN, '--epic-id', 'E-1', '--state-dir', dir, '--once'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    expect((await exited(child)).code, stderr).toBe(2);
    expect(stderr).toContain('100000 task rows (ticket_id keys), over the 20000-row limit; nothing was parsed.');
  });

  it('a 10,000-agent wave written by JSON.stringify on one line is read (as JSON)', async () => {
    const dir = tempDir();
    const at = new Date().toISOString();
    const tasks = Array.from({ length: 10_000 }, (_, i) => ({
      task_id: `task-${i}`,
      ticket_id: `PROJ-${1000 + i}`,
      status: 'in_progress',
      dispatched_at: at,
      last_activity_ts: at,
      agent_id: `agent-${i}`,
      session_id: `0f7c9a52-1b7e-4b8e-9d1a-${String(i).padStart(12, '0')}`,
      last_tool_name: 'Bash',
      last_output: 'Running the test suite',
    }));
    const text = JSON.stringify({ current_wave: { wave_id: 3, dispatched_at: at, tasks } });
    expect(text.length).toBeGreaterThan(2_000_000);
    stateFile(dir, text);
    // Its table is megabytes: stdout is dropped, watchdog.json tells the result.
    const child = spawn(process.execPath, [BIN, '--epic-id', 'E-1', '--state-dir', dir, '--once', '--action', 'report'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    expect((await exited(child)).code, stderr).toBe(0);
    expect(readWatchdogJson(dir, 'E-1').summary).toMatchObject({ total_tasks: 10_000, healthy: 10_000 });
  }, 120_000);
});
