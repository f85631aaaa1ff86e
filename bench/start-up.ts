// Start-up figures (issue 23 item 1): the first start over a long dispatch log of real-looking
// waves, later starts from the summary, and `friction --since 1d`, each beside a naive fold of the
// same log measured in the same run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { cli, f0, lat, node, pct, type Figure, type Scale } from './figures.js';
import { generateWavesLog, wavesEpic } from './gen-waves.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Start-up (`--once`, the real CLI, its peak RSS from outside: wait4's ru_maxrss, the process's
 * VmHWM) and `friction --since 1d` over a generated log of real-looking waves (60 epics).
 */
export async function benchLog(s: Scale, tmp: string): Promise<Figure[]> {
  const stateDir = path.join(tmp, 'log');
  const t0 = performance.now();
  const { bytes } = generateWavesLog(stateDir, { events: s.logEvents, days: s.logDays });
  const genMs = performance.now() - t0;
  spawnSync('sync');
  // One epic of the log, with a small wave: its start folds the whole log as a real one would.
  const epic = wavesEpic(7);
  const epicDir = path.join(stateDir, 'epics', epic);
  mkdirSync(epicDir, { recursive: true });
  writeFileSync(
    path.join(epicDir, 'state.yaml'),
    stringify({
      current_wave: {
        dispatched_at: new Date(Date.now() - 60_000).toISOString(),
        tasks: [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: new Date().toISOString() }],
      },
    }),
  );
  const once = () => {
    const r = node([cli, '--epic-id', epic, '--state-dir', stateDir, '--once', '--action', 'report'], {
      env: { CLAUDE_CONFIG_DIR: path.join(tmp, 'no-claude') },
    });
    if (r.status !== 0 && r.status !== 3) throw new Error(`--once failed (${r.status}): ${r.stdout}`);
    return r;
  };
  const naiveChild = path.join(here, 'log-child.js');
  const fold = () => node([naiveChild, 'fold', stateDir, epic]);
  // The naive fold first, so both read a log the page cache holds; and once more after.
  const naive = [fold()];
  const first = once();
  naive.push(fold());
  // Then both again with the log's pages dropped from the page cache (GNU dd iflag=nocache: this
  // log's pages only), as after a reboot or a restore: the first start with no summary, the naive fold.
  const summary = path.join(stateDir, 'observe', 'history', `${epic}.json`);
  const logDir = path.join(stateDir, 'dispatch-log');
  const dropLog = () =>
    readdirSync(logDir).every((n) => spawnSync('dd', [`if=${path.join(logDir, n)}`, 'iflag=nocache', 'count=0', 'status=none']).status === 0);
  rmSync(summary, { force: true });
  const isCold = dropLog();
  const coldFirst = once();
  dropLog();
  const coldNaive = fold();
  const runs = Array.from({ length: s.startRuns }, once);
  dropLog();
  const coldLater = once();
  const bare = Array.from({ length: 5 }, () => node(['-e', '']));
  const ms = runs.map((r) => r.ms);
  const rss = Math.max(...runs.map((r) => r.rssMb ?? NaN));
  const naiveMs = pct(
    naive.map((r) => r.ms),
    50,
  );
  const ratio = first.ms / naiveMs;

  // The same decisions at this size: the summary path and a whole fold, for our epic.
  const eq = node([naiveChild, 'equal', stateDir, epic]);
  const isEqual = eq.stdout.trim() === 'equal';

  const friction = Array.from({ length: Math.max(2, Math.min(3, s.startRuns)) }, () =>
    node([cli, 'friction', '--since', '1d', '--state-dir', stateDir, '--json']),
  );
  const frictionNaive = node([naiveChild, 'read-all', stateDir]);
  const mb = (bytes / 1024 ** 2).toFixed(0);
  const naiveText = `fold the whole log (read and parse every line, then fold): wall ${naive.map((r) => f0(r.ms)).join(', ')} ms, CPU ${naive.map((r) => f0(r.cpuMs ?? NaN)).join(', ')} ms, ${f0(Math.max(...naive.map((r) => r.rssMb ?? NaN)))} MB; bare node start ${f0(
    pct(
      bare.map((r) => r.ms),
      50,
    ),
  )} ms`;
  return [
    {
      figure: `first start (\`--once\`, no summary yet, the log in the page cache), ${s.logEvents.toLocaleString('en')} log events of 60 epics over ${s.logDays} days (${mb} MB, generated in ${f0(genMs / 1000)} s)`,
      goal: '≤ 2 s, ≤ 0.5× a naive fold, peak RSS ≤ 300 MB',
      ours: `wall ${f0(first.ms)} ms, CPU ${f0(first.cpuMs ?? NaN)} ms (${ratio.toFixed(2)}× the naive fold's wall, ${(
        (first.cpuMs ?? NaN) /
          pct(
            naive.map((r) => r.cpuMs ?? NaN),
            50,
          )
      ).toFixed(2)}× its CPU), peak RSS ${f0(first.rssMb ?? NaN)} MB`,
      naive: naiveText,
      met: first.ms <= 2000 && ratio <= 0.5 && (first.rssMb ?? 0) <= 300,
    },
    {
      figure: `first start with the log not in the page cache (${isCold ? 'its pages dropped with dd iflag=nocache' : 'dd iflag=nocache failed: the cache was NOT dropped'}), same log`,
      goal: '(the same goals; reading the log from disk is the floor)',
      ours: `wall ${f0(coldFirst.ms)} ms, CPU ${f0(coldFirst.cpuMs ?? NaN)} ms (${(coldFirst.ms / coldNaive.ms).toFixed(2)}× the cold naive fold's wall), peak RSS ${f0(coldFirst.rssMb ?? NaN)} MB; a later start with the log dropped again: wall ${f0(coldLater.ms)} ms, CPU ${f0(coldLater.cpuMs ?? NaN)} ms`,
      naive: `the naive fold, log dropped from the cache: wall ${f0(coldNaive.ms)} ms, CPU ${f0(coldNaive.cpuMs ?? NaN)} ms`,
      met: coldFirst.ms <= 2000 && coldFirst.ms / coldNaive.ms <= 0.5,
      isExtra: true,
    },
    {
      figure: `later starts (\`--once\`, from the summary), same log`,
      goal: '≤ 1 s, peak RSS ≤ 300 MB',
      ours: `wall ${lat(ms, 'ms', f0)}, CPU p50 ${f0(
        pct(
          runs.map((r) => r.cpuMs ?? NaN),
          50,
        ),
      )} ms, peak RSS ${f0(rss)} MB; same decisions as a whole fold: ${isEqual ? 'yes' : `NO (${eq.stdout.trim()})`}`,
      naive: naiveText,
      met: pct(ms, 50) <= 1000 && rss <= 300 && isEqual,
    },
    {
      figure: '`friction --since 1d` over the same log',
      goal: 'proportional to the period asked',
      ours: `wall ${lat(
        friction.map((r) => r.ms),
        'ms',
        f0,
      )}, ${f0(Math.max(...friction.map((r) => r.rssMb ?? NaN)))} MB`,
      naive: `read every day: ${f0(frictionNaive.ms)} ms, ${f0(frictionNaive.rssMb ?? NaN)} MB`,
      // Proportional: a node start, 1 s to load the CLI and the notes, and the two days' share of reading everything.
      met:
        pct(
          friction.map((r) => r.ms),
          50,
        ) <=
        pct(
          bare.map((r) => r.ms),
          50,
        ) +
          1000 +
          (frictionNaive.ms * 2) / s.logDays,
    },
  ];
}
