// Input the campaign found unbounded or mishandled (issue 8 items 10, 13, 14): huge durations, a
// state dir that is a file, an oversized config, a state file with one giant line.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realClock } from '../../src/deps.js';
import { runMain } from '../helpers/in-process-cli.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('durations', () => {
  it.each([
    ['--check-interval', '2147484'],
    ['--timeout', '1e308'],
  ])('%s %s is refused with the allowed range (exit 2)', async (flag, value) => {
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', tempDir(), flag, value, '--once']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${flag}: expected a number of seconds above 0 and at most 604800 (7 days), got "${value}".`);
  });

  it('a sleep past 2^31 ms does not fire at once', async () => {
    const started = Date.now();
    await realClock.sleep(2 ** 31 + 1000, AbortSignal.timeout(60));
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });
});

describe('files', () => {
  it('--state-dir naming a file is an input error (exit 2), not a bug', async () => {
    const file = path.join(tempDir(), 'not-a-dir');
    writeFileSync(file, '');
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', file, '--once']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the state dir ${file} is not a directory.`);
    expect(r.stderr).not.toContain('internal error');
  });

  it('a config file over 1 MB is refused before it is read', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'big.yaml');
    writeFileSync(config, '#'.repeat(1024 * 1024 + 1));
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--config', config, '--once']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('over the 1048576-byte limit');
  });

  it('a state file line over 256 KB is refused with its line number', async () => {
    const dir = tempDir();
    const file = writeWave(dir, 'E-1', '2026-04-02T10:00:00Z', [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress' }]);
    writeFileSync(file, `current_wave:\n  tasks:\n    - ticket_id: P-1\n      last_output: "${'x'.repeat(300 * 1024)}"\n`);
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--action', 'report']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('state.yaml:4: line 4 is longer than 262144 characters.');
  });
});
