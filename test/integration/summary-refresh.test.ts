// The summary brought up to the log's end by the process that appends to it (a watchdog, at its
// stop: refreshSummary in journal/log-summary.ts), crash-safe: it is written only from what was
// read back whole from the day files, so a writer killed with -9 between the two writes of a line
// leaves a summary that stops before that line, and the next start folds the line once it is whole.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateLog } from '../../bench/gen-log.js';
import { comparableHistory } from '../../bench/history-compare.js';
import { foldHistory } from '../../src/core/history.js';
import { readDispatchLog } from '../../src/journal/dispatch-log.js';
import { loadHistory, refreshSummary } from '../../src/journal/log-summary.js';
import { StatePaths } from '../../src/files/paths.js';
import { exited } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';

// Appends whole redispatch lines (this epic's and another's) to the file in argv[1], then the first
// half of one more in its own write, says "torn" and waits to be killed.
const WRITER = `
const fs = require('node:fs');
const file = process.argv[1];
const line = (i, epic) => JSON.stringify({ timestamp_utc: '2026-01-02T23:00:00.000Z', event: 'redispatch', epic_id: epic, run_id: 'w', ticket_id: 'P-' + (i % 7), task_id: 'w' + i, agent_id: 'a' + i, key: epic + ':w' + i + ':redispatch', redispatch_attempt: 1, recovery_task_id: 'w' + i + '-r1' }) + '\\n';
const fd = fs.openSync(file, 'a');
for (let i = 0; i < 200; i++) fs.writeSync(fd, line(i, i % 3 === 0 ? 'E-1' : 'E-2'));
const last = line(200, 'E-1');
fs.writeSync(fd, last.slice(0, 60));
fs.fsyncSync(fd);
process.stdout.write('torn ' + JSON.stringify(last.slice(60)) + '\\n');
setInterval(() => {}, 1000);
`;

async function expectWholeFold(paths: StatePaths, from: 'summary' | 'rebuilt') {
  const whole = foldHistory((await readDispatchLog(paths)).events, EPIC);
  const got = await loadHistory(paths, EPIC, { isWritable: false });
  expect(got.stats.from).toBe(from);
  expect(comparableHistory(got.history)).toEqual(comparableHistory(whole));
  return got;
}

const summaryOf = (paths: StatePaths) =>
  JSON.parse(readFileSync(paths.historySummary(EPIC), 'utf8')) as { covers: { name: string; size: number; lines: number }[] };

describe('the summary kept up to date by the appender', () => {
  it('a writer killed with -9 mid-line: the refreshed summary stops before the torn line; the next start folds it once whole', async () => {
    const dir = tempDir();
    const paths = new StatePaths(dir);
    const { names } = generateLog(dir, { events: 2000, days: 2 });
    const file = path.join(dir, 'dispatch-log', names.at(-1)!);
    await loadHistory(paths, EPIC, { isWritable: true });
    const before = summaryOf(paths).covers.at(-1)!;

    const child = spawn(process.execPath, ['-e', WRITER, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const rest = await new Promise<string>((resolve) => {
      let out = '';
      child.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /^torn (.*)\n/.exec(out);
        if (m) resolve(JSON.parse(m[1]!) as string);
      });
    });
    child.kill('SIGKILL');
    expect(await exited(child)).toEqual({ code: null, signal: 'SIGKILL' });

    // Fewer than 1 MB appended: a start would not rewrite the summary; the appender's refresh does.
    expect(await refreshSummary(paths, EPIC)).toBe(true);
    const size = statSync(file).size;
    const after = summaryOf(paths).covers.at(-1)!;
    expect(after.size).toBe(size - 60);
    expect(after.lines).toBe(before.lines + 200);
    expect(
      readFileSync(file)
        .subarray(after.size - 1, after.size)
        .toString(),
    ).toBe('\n');
    const got = await expectWholeFold(paths, 'summary');
    expect(got.stats.bytesRead).toBe(60); // the torn line, left for later
    expect(got.history.redispatchCount.get('P-0')).toBeGreaterThan(0);

    // Nothing new: nothing rewritten. The line completed: folded from where it began.
    expect(await refreshSummary(paths, EPIC)).toBe(false);
    appendFileSync(file, rest);
    expect((await expectWholeFold(paths, 'summary')).stats.bytesRead).toBe(rest.length + 60);
    expect(await refreshSummary(paths, EPIC)).toBe(true);
    expect(summaryOf(paths).covers.at(-1)!.size).toBe(statSync(file).size);
    await expectWholeFold(paths, 'summary');
  });
});
