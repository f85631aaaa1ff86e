// `dispatch-watchdog recover --epic-id ID`: take the epic's lock, settle the actions a crash left
// unfinished (done / finished now / failed / orphan; act/recovery/recover.ts), print the
// classification, exit. Every start-up of the watchdog does the same before its first check.
import { toJson } from '../present/sinks.js';
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { EXIT } from '../contracts/exit-codes.js';
import { guardStateDir } from '../files/atomic-write.js';
import { acquireLock } from '../journal/lock.js';
import { StatePaths } from '../files/paths.js';
import { resolveOptions, type ResolvedOptions, type WatchdogFlags } from '../options.js';
import { attachNotifier, openJournal, type NotifierPort, type WatchDeps } from '../watch.js';
import { teach } from '../cli-help.js';
import { configOption, stateDirOption, type CliContext } from './command.js';

/** Settle what a crash left unfinished; resolves to the exit code. */
export async function runRecover(opts: ResolvedOptions, deps: WatchDeps): Promise<number> {
  const runId = randomUUID();
  const paths = new StatePaths(opts.stateDir);
  guardStateDir(paths.root);
  const lock = await acquireLock(
    paths.lockFile(opts.epicId),
    { pid: deps.pid, run_id: runId, started_at: new Date(deps.clock.nowMs()).toISOString() },
    opts.epicId,
  );
  try {
    let notifier: NotifierPort | undefined;
    const { paths, history, log } = await openJournal(opts, deps, deps.clock, runId, (e) => notifier?.onAppended(e));
    // The orphans found are news for the webhook, and a notification a crash left unsent is settled too.
    notifier = attachNotifier(deps, { paths, opts, log, history, runId }, deps.output);
    const report = (await deps.recover?.({ paths, opts, log, history, runId })) ?? { done: [], finished: [], failed: [], orphans: [] };
    await notifier?.drain();
    if (opts.isJson) {
      deps.output.out(
        toJson({ done: report.done, finished: report.finished, ...(report.failed.length > 0 ? { failed: report.failed } : {}), orphans: report.orphans }) +
          '\n',
      );
    } else {
      const failed = report.failed.length > 0 ? `, ${report.failed.length} failed` : '';
      const lines = [
        `recovery of epic ${opts.epicId}: ${report.done.length} already done, ${report.finished.length} finished now${failed}, ${report.orphans.length} orphaned`,
        ...report.failed.map((f) => `  failed ${f.key}: ${f.error} (not retried automatically; see action_failed in the dispatch log)`),
        ...(report.trackerRetried ?? []).map((k) => `  ${k}: the ticket was moved to Blocked on retry`),
        ...report.orphans.map((o) => `  orphan ${o.key}: ${o.detail ?? ''} (never re-fired; see the friction note)`),
      ];
      deps.output.out(lines.join('\n') + '\n');
    }
    return report.orphans.length > 0 ? EXIT.stall : EXIT.ok;
  } finally {
    await lock.release();
  }
}

export function registerRecover(program: Command, { env, setCode }: CliContext): void {
  const cmd = program
    .command('recover')
    .description(`classify and settle the actions a crash left unfinished (done / finished now / orphan), then exit; ${EXIT.stall} when orphans were found`)
    .requiredOption('--epic-id <id>', 'epic id');
  configOption(stateDirOption(cmd))
    .option('--json', 'print the classification as JSON')
    .action(async (flags: WatchdogFlags) => {
      const opts = await resolveOptions(flags, env.env, env.cwd);
      setCode(await runRecover(opts, { ...env.watchDeps, output: env.output }));
    });
  teach(cmd, {
    examples: [
      ['dispatch-watchdog recover --epic-id PROJ-1000', 'after a crash: settle what the last run left unfinished (every start-up does this too)'],
      ['dispatch-watchdog recover --epic-id PROJ-1000 --json', 'the classification as JSON: done, finished, failed, orphans'],
    ],
    exitCodes: [
      ['ok', 'nothing was left orphaned'],
      ['stall', 'orphans were found: each is reported in a friction note and never re-fired'],
      ['input'],
      ['failure', 'a step failed'],
    ],
  });
}
