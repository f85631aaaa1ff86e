// `npm run bench`: every benchmark, each against its naive baseline in the same run.
// `npm run bench -- --quick`: the issue-12 figures on smaller data (under 2 minutes).
// `npm run bench -- --busy`: only the busy wave (issue 37) and the steady 2.1.332 check (issue 38 item 6), about 14 minutes (the wave at the default settings with it); BENCH_CLI=<path to a cli.cjs> runs another build.
import { benchCheck200 } from './check-200.js';
import { benchCheckTranscripts } from './check-transcripts.js';
import { benchFleetScale, machine } from './fleet-scale.js';
import { FULL, node, pct, QUICK } from './figures.js';
import { benchTail } from './tail.js';
import { benchOtlpIngest } from './otlp-ingest.js';
import { benchFalseStalls } from './false-stalls.js';
import { benchBusy, benchBusyDefaults, benchSteady2332, BUSY_FULL, BUSY_QUICK } from './busy.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const quick = process.argv.includes('--quick');
const busyOnly = process.argv.includes('--busy');
const out = (s: string) => process.stdout.write(s + '\n');
const t0 = performance.now();
out(`dispatch-watchdog benchmarks${quick ? ' (--quick: smaller data)' : ''}: ${machine()}`);
/**
 * The machine's speed when the run starts and ends: a bare node start, p50 of 9. On a shared VM
 * it moves by a third within an hour, and every absolute figure with it (docs/performance.md).
 */
const speed = () =>
  `${pct(
    Array.from({ length: 9 }, () => node(['-e', '']).ms),
    50,
  ).toFixed(0)} ms`;
const speedAtStart = speed();
out(`machine speed: a bare node start takes p50 ${speedAtStart}`);
const figures = busyOnly ? [] : (out(`\nfleet scale (issue 12)`), await benchFleetScale(quick ? QUICK : FULL, (l) => out(`  ${l}`)));
// Issue 37: a busy wave, every agent writing a 2.1.332 turn every 5 s.
out(`\nbusy wave (issue 37)`);
const busyTmp = mkdtempSync(path.join(os.tmpdir(), 'dw-bench-busy-'));
try {
  // BUSY_AGENTS=1000 (a comma list): only those sizes, for a quick look while tuning.
  const busyScale = quick ? BUSY_QUICK : BUSY_FULL;
  if (process.env.BUSY_AGENTS && process.env.BUSY_AGENTS !== '0') busyScale.agents = process.env.BUSY_AGENTS.split(',').map(Number);
  const busy = process.env.BUSY_AGENTS === '0' ? [] : await benchBusy(busyScale, busyTmp, (l) => out(`  ${l}`));
  // The same wave at the default settings (full run, 1,000 agents measured above).
  const atBench = busy.find((f) => f.figure.startsWith('busy wave, 1,000 agents'));
  if (!quick && atBench) busy.push(await benchBusyDefaults(busyTmp, (l) => out(`  ${l}`), atBench.value));
  // Issue 38 item 6: the steady check at 2.1.332's record sizes (BUSY_AGENTS=0: this one alone).
  busy.push(await benchSteady2332(busyTmp, (l) => out(`  ${l}`)));
  for (const f of busy)
    out(`  ${f.isExtra ? 'INFO' : f.met ? 'MET' : 'MISSED'}  ${f.figure}\n        goal ${f.goal}\n        ours: ${f.ours}\n        floors: ${f.naive}`);
  figures.push(...busy);
} finally {
  rmSync(busyTmp, { recursive: true, force: true });
}
if (!quick && !busyOnly) {
  for (const bench of [benchCheck200, benchCheckTranscripts, benchTail, () => benchOtlpIngest()]) {
    const r = await bench();
    out(`\n${r.name}\n${r.lines.map((l) => `  ${l}`).join('\n')}`);
  }
}
// Issue 19's false-stall figures on the real transcripts here: replays, about a second (also with --quick).
const stalls = busyOnly ? undefined : await benchFalseStalls();
if (stalls) out(`\n${stalls.name}\n${stalls.lines.map((l) => `  ${l}`).join('\n')}`);
const goals = figures.filter((f) => !f.isExtra);
const missed = goals.filter((f) => !f.met);
out(`\nmachine speed: a bare node start took p50 ${speedAtStart} at the start, ${speed()} at the end`);
out(
  `\n${goals.length - missed.length} of ${goals.length} goals met${missed.length ? `; missed: ${missed.map((f) => f.figure).join('; ')}` : ''} (${((performance.now() - t0) / 1000).toFixed(0)} s, load average now ${machine().split('load average ')[1]})`,
);
