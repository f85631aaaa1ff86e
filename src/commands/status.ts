// `dispatch-watchdog status`: the last check of an epic as a table, with how old it is and
// whether a watchdog is watching right now.
import { promises as fs } from 'node:fs';
import { isAlive } from '../sys/proc-identity.js';
import { WatchdogJsonSchema, type WatchdogJson } from '../contracts/watchdog-json.js';
import type { Output } from '../deps.js';
import { InputError } from '../contracts/errors.js';
import { renderStatus } from '../core/format.js';
import { readLock } from '../journal/lock.js';
import { assertSafeId, StatePaths } from '../files/paths.js';
import type { Command } from 'commander';
import { EXIT } from '../contracts/exit-codes.js';
import { existingStateDir } from '../options.js';
import { teach } from '../cli-help.js';
import { stateDirOption, type CliContext } from './command.js';

/** Who watches the epic now, from its lock file. */
async function watcherOf(paths: StatePaths, epicId: string): Promise<string> {
  const lock = await readLock(paths.lockFile(epicId));
  if (!lock) return 'no watchdog running';
  return isAlive(lock.pid) ? `watched by pid ${lock.pid} since ${lock.started_at ?? '?'}` : `no watchdog running (pid ${lock.pid} died holding the lock)`;
}

/** Read watchdog.json; a missing or foreign file is an InputError that says what to run. */
export async function readWatchdogJson(paths: StatePaths, epicId: string): Promise<WatchdogJson> {
  const file = paths.watchdogJson(assertSafeId(epicId, 'epic id'));
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    throw new InputError('missing_file', 'no check has been written for this epic yet.', {
      location: { file },
      hint: `Run \`dispatch-watchdog --epic-id ${epicId} --once\` (or start the watchdog) first.`,
    });
  }
  try {
    return WatchdogJsonSchema.parse(JSON.parse(text));
  } catch (e) {
    throw new InputError('wrong_type', 'watchdog.json is not a schema_version "1.1" document.', { location: { file }, cause: e, hint: 'Run a check again to rewrite it.' });
  }
}

/** Print the last check: the table, or the document itself with --json. */
export async function printStatus(paths: StatePaths, epicId: string, opts: { isJson: boolean; nowMs: number; columns?: number }, out: Output): Promise<void> {
  const doc = await readWatchdogJson(paths, epicId);
  if (opts.isJson) return out.out(JSON.stringify(doc, null, 2) + '\n');
  const ageSeconds = doc.watchdog.evaluated_at_override ? undefined : Math.max(0, Math.round((opts.nowMs - Date.parse(doc.check_timestamp)) / 1000));
  out.out(renderStatus(doc, { ageSeconds, watcher: await watcherOf(paths, epicId), columns: opts.columns }));
}

export function registerStatus(program: Command, { env, setCode }: CliContext): void {
  const cmd = program
    .command('status')
    .description('print the last check of an epic as a table (or --json)')
    .requiredOption('--epic-id <id>', 'epic id');
  stateDirOption(cmd)
    .option('--json', 'print watchdog.json')
    .action(async (flags: { epicId: string; stateDir?: string; json?: boolean }) => {
      const paths = new StatePaths(existingStateDir(flags.stateDir, env.env, env.cwd));
      const columns = env.watchDeps.terminal?.isTty ? env.watchDeps.terminal.columns() : undefined;
      await printStatus(paths, flags.epicId, { isJson: Boolean(flags.json), nowMs: env.watchDeps.clock.nowMs(), columns }, env.output);
      setCode(EXIT.ok);
    });
  teach(cmd, {
    examples: [
      ['dispatch-watchdog status --epic-id PROJ-1000', 'the last check as a table: verdict, idle / window, exemptions, reason; how old it is; who is watching'],
      ['dispatch-watchdog status --epic-id PROJ-1000 --json', 'watchdog.json as it is (reasons whole)'],
    ],
    exitCodes: [
      ['ok', 'printed'],
      ['input', 'no check was written for this epic yet, or watchdog.json is not a document of ours'],
    ],
  });
}
