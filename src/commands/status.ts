// `dispatch-watchdog status`: the last check of an epic as a table, with how old it is and
// whether a watchdog is watching right now.
import { toJson } from '../present/sinks.js';
import { promises as fs } from 'node:fs';
import { isAlive } from '../sys/proc-identity.js';
import { parseWatchdogJson, type WatchdogJson } from '../contracts/watchdog-json.js';
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
import { knownEpicIds } from '../observe/read/known-epics.js';
import { epicState } from './prune.js';

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
    // Ours, or the seed's own document (schema_version "1.1" without our additive keys).
    return parseWatchdogJson(JSON.parse(text));
  } catch (e) {
    throw new InputError('wrong_type', 'watchdog.json is not a schema_version "1.1" document.', {
      location: { file },
      cause: e,
      hint: 'Run a check again to rewrite it.',
    });
  }
}

/** The epic's wave is over and its state file is still there (what prune leaves of a finished epic). */
async function isOver(paths: StatePaths, epicId: string): Promise<boolean> {
  const s = await epicState(paths, epicId).catch(() => undefined);
  return s?.isFinished === true && s.why !== 'no state file';
}

/** Print the last check: the table, or the document itself with --json. */
export async function printStatus(paths: StatePaths, epicId: string, opts: { isJson: boolean; nowMs: number; columns?: number }, out: Output): Promise<void> {
  const doc = await readWatchdogJson(paths, epicId).catch(async (e: unknown) => {
    // A finished epic's check is gone (prune removed it): another check would judge nothing; its history is in the log.
    if (!(e instanceof InputError) || e.code !== 'missing_file' || !(await isOver(paths, epicId))) throw e;
    throw new InputError('missing_file', "no check of this epic is kept: its wave is over (prune removes a finished epic's check).", {
      location: e.location,
      hint: `Its history is in the dispatch log: \`dispatch-watchdog timeline --epic-id ${epicId}\` or \`dispatch-watchdog friction\`.`,
    });
  });
  if (opts.isJson) return out.out(toJson(doc, 2) + '\n');
  const ageSeconds = doc.watchdog.evaluated_at_override ? undefined : Math.max(0, Math.round((opts.nowMs - Date.parse(doc.check_timestamp)) / 1000));
  out.out(renderStatus(doc, { ageSeconds, watcher: await watcherOf(paths, epicId), columns: opts.columns }));
}

/** Every epic of the state dir, one line each: its last check's counts, how old it is, who watches it (`serve` runs many). */
export async function printEveryStatus(paths: StatePaths, opts: { isJson: boolean; nowMs: number }, out: Output): Promise<void> {
  const rows = [];
  for (const epicId of await knownEpicIds(paths)) {
    const doc = await readWatchdogJson(paths, epicId).catch(() => undefined);
    rows.push({ epic_id: epicId, check_timestamp: doc?.check_timestamp ?? null, summary: doc?.summary ?? null, watcher: await watcherOf(paths, epicId) });
  }
  if (opts.isJson) return out.out(toJson({ epics: rows }, 2) + '\n');
  if (rows.length === 0) return out.out(`no epic under ${paths.root} has a state file (epics/<id>/state.yaml)\n`);
  const width = Math.max(4, ...rows.map((r) => r.epic_id.length));
  out.out(`${'EPIC'.padEnd(width)}  CHECKED   TASKS  HEALTHY  STALLED  OTHER  WATCHER\n`);
  for (const r of rows) {
    const s = r.summary;
    const age = r.check_timestamp ? `${Math.max(0, Math.round((opts.nowMs - Date.parse(r.check_timestamp)) / 1000))}s ago` : 'never';
    const other = s ? s.total_tasks - s.healthy - s.stalled : 0;
    const n = (v: number | undefined, w: number) => String(v ?? '-').padStart(w);
    out.out(
      `${r.epic_id.padEnd(width)}  ${age.padEnd(8)}  ${n(s?.total_tasks, 5)}  ${n(s?.healthy, 7)}  ${n(s?.stalled, 7)}  ${n(s ? other : undefined, 5)}  ${r.watcher}\n`,
    );
  }
}

export function registerStatus(program: Command, { env, setCode }: CliContext): void {
  const cmd = program
    .command('status')
    .description('print the last check of an epic as a table (or --json); without --epic-id, every epic one line each')
    .option('--epic-id <id>', 'epic id (omitted: every epic under the state dir)');
  stateDirOption(cmd)
    .option('--json', 'print watchdog.json (without --epic-id: {"epics": [...]})')
    .action(async (flags: { epicId?: string; stateDir?: string; json?: boolean }) => {
      const paths = new StatePaths(existingStateDir(flags.stateDir, env.env, env.cwd));
      const columns = env.watchDeps.terminal?.isTty ? env.watchDeps.terminal.columns() : undefined;
      const opts = { isJson: Boolean(flags.json), nowMs: env.watchDeps.clock.nowMs(), columns };
      if (flags.epicId === undefined) await printEveryStatus(paths, opts, env.output);
      else await printStatus(paths, flags.epicId, opts, env.output);
      setCode(EXIT.ok);
    });
  teach(cmd, {
    examples: [
      [
        'dispatch-watchdog status --epic-id PROJ-1000',
        'the last check as a table: verdict, idle / window, exemptions, reason; how old it is; who is watching; which agent versions the rows run',
      ],
      ['dispatch-watchdog status --epic-id PROJ-1000 --json', 'watchdog.json as it is (reasons whole)'],
      ['dispatch-watchdog status', "every epic under the state dir: its last check's counts, how old it is, who watches it"],
    ],
    exitCodes: [
      ['ok', 'printed'],
      ['input', 'no check was written for this epic yet, or watchdog.json is not a document of ours'],
    ],
  });
}
