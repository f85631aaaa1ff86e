// Child process of the log bench: `node log-child.js <fold|equal|read-all> <stateDir> [epic]`.
// fold: the naive start-up (read every day, fold it all). read-all: the naive friction review
// (read every day). equal: the summary path gives the same history as a whole fold (prints "equal").
import { isDeepStrictEqual } from 'node:util';
import { foldHistory } from '../src/core/history.js';
import { comparableHistory } from './history-compare.js';
import { readDispatchLog } from '../src/journal/dispatch-log.js';
import { loadHistory } from '../src/journal/log-summary.js';
import { StatePaths } from '../src/files/paths.js';

const [mode, stateDir, epic = 'E-1'] = process.argv.slice(2);
const paths = new StatePaths(stateDir!);
if (mode === 'read-all') {
  const r = await readDispatchLog(paths);
  process.stdout.write(`${r.events.length} events\n`);
} else if (mode === 'fold') {
  const r = await readDispatchLog(paths);
  const h = foldHistory(r.events, epic);
  process.stdout.write(`${h.redispatchCount.size} tickets\n`);
} else {
  const whole = comparableHistory(foldHistory((await readDispatchLog(paths)).events, epic));
  const rebuilt = await loadHistory(paths, epic, { isWritable: true });
  const resumed = await loadHistory(paths, epic, { isWritable: false });
  const same = isDeepStrictEqual(comparableHistory(rebuilt.history), whole) && isDeepStrictEqual(comparableHistory(resumed.history), whole);
  process.stdout.write(same && resumed.stats.from === 'summary' ? 'equal\n' : `different (rebuilt ${rebuilt.stats.from}, resumed ${resumed.stats.from})\n`);
}
