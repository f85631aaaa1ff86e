// `npm run bench`: every benchmark, each against its naive baseline in the same run.
import { benchCheck200 } from './check-200.js';
import { benchCheckTranscripts } from './check-transcripts.js';
import { benchTail } from './tail.js';

const benches = [benchCheck200, benchCheckTranscripts, benchTail];

process.stdout.write(`dispatch-watchdog benchmarks (node ${process.version}, ${process.platform}/${process.arch})\n`);
for (const bench of benches) {
  const r = await bench();
  process.stdout.write(`\n${r.name}\n${r.lines.map((l) => `  ${l}`).join('\n')}\n`);
}
