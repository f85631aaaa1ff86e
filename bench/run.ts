// `npm run bench`: every benchmark, each against its naive baseline in the same run.
// `npm run bench -- --quick`: the issue-12 figures on smaller data (under 2 minutes).
import { benchCheck200 } from './check-200.js';
import { benchCheckTranscripts } from './check-transcripts.js';
import { benchFleetScale, machine } from './fleet-scale.js';
import { FULL, node, pct, QUICK } from './figures.js';
import { benchTail } from './tail.js';
import { benchOtlpIngest } from './otlp-ingest.js';
import { benchFalseStalls } from './false-stalls.js';

const quick = process.argv.includes('--quick');
const out = (s: string) => process.stdout.write(s + '\n');
const t0 = performance.now();
out(`dispatch-watchdog benchmarks${quick ? ' (--quick: smaller data)' : ''}: ${machine()}`);
/**
 * The machine's speed when the run starts and ends: a bare node start, p50 of 9. On a shared VM
 * it moves by a third within an hour, and every absolute figure with it (docs/performance.md).
 */
const speed = () => `${pct(Array.from({ length: 9 }, () => node(['-e', '']).ms), 50).toFixed(0)} ms`;
const speedAtStart = speed();
out(`machine speed: a bare node start takes p50 ${speedAtStart}`);
out(`\nfleet scale (issue 12)`);
const figures = await benchFleetScale(quick ? QUICK : FULL, (l) => out(`  ${l}`));
if (!quick) {
  for (const bench of [benchCheck200, benchCheckTranscripts, benchTail, () => benchOtlpIngest()]) {
    const r = await bench();
    out(`\n${r.name}\n${r.lines.map((l) => `  ${l}`).join('\n')}`);
  }
}
// Issue 19's false-stall figures on the real transcripts here: replays, about a second (also with --quick).
const stalls = await benchFalseStalls();
out(`\n${stalls.name}\n${stalls.lines.map((l) => `  ${l}`).join('\n')}`);
const goals = figures.filter((f) => !f.isExtra);
const missed = goals.filter((f) => !f.met);
out(`\nmachine speed: a bare node start took p50 ${speedAtStart} at the start, ${speed()} at the end`);
out(`\n${goals.length - missed.length} of ${goals.length} goals met${missed.length ? `; missed: ${missed.map((f) => f.figure).join('; ')}` : ''} (${((performance.now() - t0) / 1000).toFixed(0)} s, load average now ${machine().split('load average ')[1]})`);
