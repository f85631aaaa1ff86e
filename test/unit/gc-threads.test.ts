// The CLI's process entry has V8 scavenge on the main thread alone (sys/gc-threads.ts). Shown on
// real child processes: the same young-generation workload (short-lived objects, as a busy
// check's parsed records are) keeps V8's helper threads busy in a plain node, and idle after
// `runProcess`. Read from /proc (the main thread's CPU against the whole process's): Linux only.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { scavengeOnMainThread } from '../../src/sys/gc-threads.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { cliEntryPrelude } from '../helpers/cli-entry-child.js';

const run = promisify(execFile);
const hasProc = existsSync('/proc/self/task');

/** Child ESM: optionally run the CLI's entry (`--version`), then the workload; prints the CPU (clock ticks) of the main thread and of the rest. */
function childScript(viaCli: boolean): string {
  return `
import { readFileSync, readdirSync } from 'node:fs';
${cliEntryPrelude(viaCli)}
const ticks = (file) => { const f = readFileSync(file, 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); };
const cpu = () => {
  let main = 0, other = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    const t = ticks('/proc/self/task/' + tid + '/stat');
    if (Number(tid) === process.pid) main += t; else other += t;
  }
  return { main, other };
};
// A young generation of a few MB that survives a scavenge or two: work the helpers would share.
const ring = new Array(32).fill(null);
const before = cpu();
for (let r = 0; r < 4000; r++) {
  const batch = [];
  for (let i = 0; i < 2000; i++) batch.push({ r, i, s: 'g' + i, a: [i, r] });
  ring[r % ring.length] = batch;
}
const after = cpu();
process.stderr.write('cpu ' + (after.main - before.main) + ' ' + (after.other - before.other) + '\\n');
`;
}

async function cpuTicks(viaCli: boolean): Promise<{ main: number; other: number }> {
  // Semi-spaces large enough that every batch dies young: scavenges only, no full collection (whose concurrent marking is on helper threads too).
  const { stderr } = await run(process.execPath, ['--max-semi-space-size=64', '--input-type=module', '-e', childScript(viaCli)], { cwd: REPO_ROOT });
  const m = /cpu (\d+) (\d+)/.exec(stderr);
  if (!m) throw new Error(`no CPU figures in the child's output: ${stderr}`);
  return { main: Number(m[1]), other: Number(m[2]) };
}

describe('scavengeOnMainThread', () => {
  it('leaves V8 alone when node was started with a scavenge or threading flag of its own', () => {
    expect(scavengeOnMainThread(['--parallel-scavenge'])).toBe(false);
    expect(scavengeOnMainThread(['--no-parallel-scavenge'])).toBe(false);
    expect(scavengeOnMainThread(['--parallel_scavenge=false'])).toBe(false);
    expect(scavengeOnMainThread(['--single-threaded-gc'])).toBe(false);
  });

  it.skipIf(!hasProc)(
    'the CLI entry keeps young-generation collections off the helper threads',
    async () => {
      const [plain, cli] = [await cpuTicks(false), await cpuTicks(true)];
      // Measured on a 2-core VM: plain ~75 ticks on the main thread and ~23 on the others; after
      // runProcess ~73 and 0–2 (the helpers' share bought the main thread nothing).
      expect(plain.other).toBeGreaterThanOrEqual(8);
      expect(cli.other).toBeLessThan(plain.other / 4);
    },
    60_000,
  );
});
