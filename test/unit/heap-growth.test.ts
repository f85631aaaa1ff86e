// The CLI's process entry caps how far V8 grows the heap past what a full collection kept
// (sys/heap-growth.ts). Shown on real child processes: the same workload (a live set, and
// garbage that is promoted before it dies, as a busy wave's per-agent objects are) peaks far
// lower after `runProcess` than in a plain node.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { limitHeapGrowth } from '../../src/sys/heap-growth.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { cliEntryPrelude } from '../helpers/cli-entry-child.js';

const run = promisify(execFile);

/** Child ESM: optionally run the CLI's entry (`--version`), then the workload; prints the peak heap in MB. */
function childScript(viaCli: boolean): string {
  return `
import { getHeapStatistics } from 'node:v8';
${cliEntryPrelude(viaCli)}
const live = [];
for (let i = 0; i < 200000; i++) live.push({ i, s: 'live' + i, a: [i, i] });
const ring = new Array(64).fill(null);
let peak = 0;
for (let r = 0; r < 1500; r++) {
  const batch = [];
  for (let i = 0; i < 2000; i++) batch.push({ r, i, s: 'g' + i });
  ring[r % ring.length] = batch; // alive for 64 rounds: promoted, then garbage in the old generation
  if (r % 10 === 0) peak = Math.max(peak, getHeapStatistics().used_heap_size);
}
process.stderr.write('peak ' + Math.round(peak / 1048576) + ' ' + live.length + '\\n');
`;
}

async function peakMb(viaCli: boolean): Promise<number> {
  const { stderr } = await run(process.execPath, ['--input-type=module', '-e', childScript(viaCli)], { cwd: REPO_ROOT });
  const m = /peak (\d+) 200000/.exec(stderr);
  if (!m) throw new Error(`no peak in the child's output: ${stderr}`);
  return Number(m[1]);
}

describe('limitHeapGrowth', () => {
  it('leaves the heap alone when node was started with its own growing factor', () => {
    expect(limitHeapGrowth(['--heap-growing-percent=50'])).toBe(false);
    expect(limitHeapGrowth(['--heap_growing_percent', '50'])).toBe(false);
  });

  it('the CLI entry keeps promoted garbage from growing the heap to V8’s own factor', async () => {
    const [plain, cli] = [await peakMb(false), await peakMb(true)];
    // Measured on a quiet 2-core VM: ~174 MB plain, ~102 MB after runProcess (1.8×).
    expect(cli).toBeLessThan(plain * 0.8);
  }, 60_000);
});
