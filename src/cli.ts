// Argument parsing → commands, and the one place errors become exit codes (DESIGN §10).
import { Command, CommanderError, Option } from 'commander';
import { DEFAULTS } from './contracts/defaults.js';
import { combineProblems, InputError } from './contracts/errors.js';
import { STRATEGIES } from './contracts/vocabulary.js';
import { runDemo } from './demo/run-demo.js';
import { detectTerminal, realClock, processOutput, type Output } from './deps.js';
import { assertSafeId, StatePaths } from './journal/paths.js';
import { armCrashPoint } from './sys/crash-point.js';
import { printStatus } from './commands/status.js';
import { existingStateDir, loadConfig, resolveOptions, resolveStateDir, type WatchdogFlags } from './options.js';
import { runReplay } from './commands/replay.js';
import { resolvePolicy } from './core/policy.js';
import path from 'node:path';
import { packageVersion } from './version.js';
import { MAX_SECONDS } from './contracts/config.js';
import { EXIT, exitCodeFor, runRecover, runWatch, type WatchDeps } from './watch.js';
import { realActionDeps, realObservers } from './wiring.js';
import { hookMain } from './commands/hook.js';
import { runHookInstall, type SettingsScope } from './commands/hook-install.js';
import { runAck } from './commands/ack.js';
import { runNext } from './commands/next.js';
import { parseSince, renderFriction, reviewFriction } from './commands/friction-review.js';
import { prune, renderPrune } from './commands/prune.js';
import { runTimeline } from './commands/timeline.js';
import { parseDurationMs } from './core/period.js';
import { commandPath, didYouMean, keepUserFlags, locationFlags, teach } from './cli-help.js';

/**
 * Flag value parsers that collect every bad value instead of stopping at the first, so one error
 * lists them all (thrown before any command runs; the watch command adds its config problems).
 */
function flagParsers(problems: InputError[]) {
  const bad = (flag: string, expected: string, v: string): undefined => {
    problems.push(new InputError('bad_flag', `${flag}: expected ${expected}, got ${JSON.stringify(v)}.`));
    return undefined;
  };
  const seconds = (flag: string) => (v: string) => {
    const n = Number(v);
    return Number.isFinite(n) && n > 0 && n <= MAX_SECONDS ? n : bad(flag, `a number of seconds above 0 and at most ${MAX_SECONDS} (7 days)`, v);
  };
  return {
    seconds,
    collectSeconds: (flag: string) => (v: string, previous: number[]) => {
      const n = seconds(flag)(v);
      return n === undefined ? previous : [...previous, n];
    },
    count: (flag: string) => (v: string) => {
      const n = Number(v);
      return v.trim() !== '' && Number.isInteger(n) && n >= 0 ? n : bad(flag, 'a whole number >= 0', v);
    },
    choice: <T extends string>(flag: string, choices: readonly T[]) => (v: string) =>
      (choices as readonly string[]).includes(v) ? (v as T) : bad(flag, `one of ${choices.join(', ')}`, v),
  };
}

export interface CliEnv {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  output: Output;
  /** Everything runWatch needs except what the CLI derives itself. */
  watchDeps: Omit<WatchDeps, 'output'>;
  stdin?: NodeJS.ReadableStream;
}

/** Build the commander program; `setCode` receives the exit code of the command that ran. */
export function buildProgram(env: CliEnv, setCode: (code: number) => void): Command {
  const flagProblems: InputError[] = [];
  const { seconds, collectSeconds, count, choice } = flagParsers(flagProblems);
  const program = new Command()
    .name('dispatch-watchdog')
    .description('Watch a wave of AI coding subagents, tell stalls from legitimate silence, and recover exactly once.')
    .version(packageVersion(), '-v, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => env.output.out(s), writeErr: (s) => env.output.err(s) })
    .enablePositionalOptions()
    .helpCommand('help [command]', 'show the help of a command')
    .allowExcessArguments(true)
    .option('--epic-id <id>', 'epic to watch (epics/<id>/state.yaml under the state dir)')
    .option('--timeout <seconds>', `base stall window in seconds (default ${DEFAULTS.timeout_seconds})`, seconds('--timeout'))
    .addOption(new Option('--action <strategy>', `what to do about a stalled task (default ${DEFAULTS.action})`).choices([...STRATEGIES]).argParser(choice('--action', STRATEGIES)))
    .option('--check-interval <seconds>', `longest sleep between checks (default ${DEFAULTS.check_interval_seconds}); stalls are caught at their deadline anyway`, seconds('--check-interval'))
    .option('--max-redispatches <n>', `redispatches per ticket before escalating to ${DEFAULTS.linear.blocked_state} (default ${DEFAULTS.max_redispatches})`, count('--max-redispatches'))
    .option('--once', 'one check, then exit: 0 no stall, 3 stall found, 2 bad input or usage')
    .option('--dry-run', 'judge and print, but write nothing and act on nothing')
    .option('--now <iso-time>', 'evaluate the wave as of this moment (implies --once; no log lines, no actions): for examples and post-mortems')
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .option('--config <file>', 'config file (default <state dir>/watchdog.config.yaml if present)')
    .option('--json', 'print each check result as JSON on stdout')
    .action(async (flags: WatchdogFlags) => {
      const [word] = program.args;
      if (word !== undefined) {
        const names = program.commands.map((c) => c.name());
        const guess = didYouMean(word, names);
        program.error(`error: unknown command '${word}'${guess ? `. Did you mean '${guess}'?` : `. Commands: ${names.join(', ')}.`}`, { exitCode: EXIT.input, code: 'commander.unknownCommand' });
      }
      const opts = await resolveOptions(flags, env.env, env.cwd, flagProblems);
      setCode(await runWatch(opts, { ...env.watchDeps, output: env.output }));
    });
  // Every other command: refuse bad flag values, all of them at once, before it runs.
  program.hook('preAction', (_program, command) => {
    const problem = command === program ? undefined : combineProblems(flagProblems);
    if (problem) throw problem;
  });
  teach(program, {
    examples: [
      ['dispatch-watchdog --epic-id PROJ-1000', 'watch the wave until no task is in flight; recover stalls (redispatch, then escalate)'],
      ['dispatch-watchdog next --epic-id PROJ-1000 --json', 'what an orchestrator runs after dispatching a wave: returns when it must act (exit 10, 11, 12) or the wave is done (0); docs/orchestrator.md'],
      ['dispatch-watchdog --epic-id PROJ-1000 --once --action report', 'one check, print the table, exit 0 or 3'],
      ['dispatch-watchdog --epic-id PROJ-1000 --now 2026-04-02T10:10:00Z', 'judge the wave as of that moment (post-mortem), write nothing'],
      ['dispatch-watchdog help status', 'the help of one command'],
    ],
    exitCodes: [
      [0, 'the loop ended (wave done, or stopped by SIGINT/SIGTERM); with --once: no stall; --help, --version'],
      [3, 'with --once or --now: a stall was found'],
      [2, 'bad input or usage (a state file, config or flag), or another watchdog holds the lock; the message names file, line, field and the fix'],
      [1, 'the world refused (a file cannot be written), or a bug'],
    ],
  });

  program
    .command('status')
    .description('print the last check of an epic as a table (or --json)')
    .requiredOption('--epic-id <id>', 'epic id')
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .option('--json', 'print watchdog.json')
    .action(async (flags: { epicId: string; stateDir?: string; json?: boolean }) => {
      const paths = new StatePaths(existingStateDir(flags.stateDir, env.env, env.cwd));
      const columns = env.watchDeps.terminal?.isTty ? env.watchDeps.terminal.columns() : undefined;
      await printStatus(paths, flags.epicId, { isJson: Boolean(flags.json), nowMs: env.watchDeps.clock.nowMs(), columns }, env.output);
      setCode(EXIT.ok);
    });
  teach(program.commands.at(-1)!, {
    examples: [
      ['dispatch-watchdog status --epic-id PROJ-1000', 'the last check as a table: verdict, idle / window, exemptions, reason; how old it is; who is watching'],
      ['dispatch-watchdog status --epic-id PROJ-1000 --json', 'watchdog.json as it is (reasons whole)'],
    ],
    exitCodes: [
      [0, 'printed'],
      [2, 'no check was written for this epic yet, or watchdog.json is not a document of ours'],
    ],
  });

  program
    .command('next')
    .description('watch until the orchestrator must act, print it, exit: 0 wave complete, 10 new requests, 11 a request unanswered, 12 an escalation (2 bad input, 1 failure)')
    .requiredOption('--epic-id <id>', 'epic to watch')
    .option('--timeout <seconds>', `base stall window in seconds (default ${DEFAULTS.timeout_seconds})`, seconds('--timeout'))
    .addOption(new Option('--action <strategy>', `what to do about a stalled task (default ${DEFAULTS.action})`).choices([...STRATEGIES]).argParser(choice('--action', STRATEGIES)))
    .option('--check-interval <seconds>', `longest sleep between checks (default ${DEFAULTS.check_interval_seconds})`, seconds('--check-interval'))
    .option('--max-redispatches <n>', `redispatches per ticket before escalating to ${DEFAULTS.linear.blocked_state} (default ${DEFAULTS.max_redispatches})`, count('--max-redispatches'))
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .option('--config <file>', 'config file (default <state dir>/watchdog.config.yaml if present)')
    .option('--json', 'print one JSON document (schemas/next.schema.json)')
    .action(async (flags: WatchdogFlags) => {
      const opts = await resolveOptions({ ...flags, once: false, dryRun: false }, env.env, env.cwd);
      setCode(await runNext(opts, { ...env.watchDeps, output: env.output }));
    });
  teach(program.commands.at(-1)!, {
    examples: [
      ['dispatch-watchdog next --epic-id PROJ-1000 --json', 'wait until the orchestrator must act, then print one JSON document (schemas/next.schema.json)'],
      ['dispatch-watchdog next --epic-id PROJ-1000 --timeout 300', 'the same, as lines for people, with a 5-minute stall window'],
    ],
    exitCodes: [
      [0, 'the wave is complete: every row terminal or blocked and no request pending'],
      [10, 'new cancel/redispatch requests to carry out (then answer each; run next again)'],
      [11, 'a request passed its answer_by without an answer'],
      [12, 'a ticket was escalated to Blocked (needs no answer)'],
      [2, 'bad input or usage'],
      [1, 'a failure, or stopped by a signal before anything needed the orchestrator'],
    ],
  });

  program
    .command('ack')
    .description('answer a cancel or redispatch request by hand (when no row shows the answer): exit 0 answered now or already, 2 unknown key')
    .argument('<key>', 'the request\'s key, e.g. PROJ-1000:t1:redispatch')
    .option('--task-id <id>', 'the task id the replacement runs under, when it is not the request\'s recovery_task_id')
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .action(async (key: string, flags: { taskId?: string; stateDir?: string }) => {
      const paths = new StatePaths(existingStateDir(flags.stateDir, env.env, env.cwd));
      setCode(await runAck(paths, key, flags.taskId, env.watchDeps.clock.nowMs(), env.output));
    });
  teach(program.commands.at(-1)!, {
    examples: [
      ['dispatch-watchdog ack PROJ-1000:t1:cancel', 'the agent was stopped (and its row not marked terminal)'],
      ['dispatch-watchdog ack PROJ-1000:t1:redispatch --task-id t1-retry', 'the replacement runs under another task id than the request\'s recovery_task_id'],
    ],
    exitCodes: [
      [0, 'answered now, or already answered (the watchdog records it at its next check)'],
      [2, 'unknown key, or bad input or usage'],
    ],
  });

  const hook = program
    .command('hook')
    .description('the Claude Code hook: read one hook payload on stdin, append it to activity/<agent or session id>.ndjson, print nothing, always exit 0')
    .option('--print-settings', 'print the settings.json block that installs this hook')
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .action(async () => setCode(await hookMain(env.argv.slice(1), env.stdin ?? process.stdin, env.env, { out: (t) => env.output.out(t), warn: (t) => env.output.err(t) })));
  teach(hook, {
    examples: [
      ['dispatch-watchdog hook --print-settings', 'the settings.json block to paste into .claude/settings.json (see docs/claude-code.md)'],
      ['dispatch-watchdog hook --print-settings --state-dir /srv/onex', 'the same, for a state dir of your choice'],
    ],
    exitCodes: [[0, 'always: a hook must never block or fail a Claude Code session']],
  });
  addHookInstallCommands(hook, env, setCode);

  program
    .command('recover')
    .description('classify and settle the actions a crash left unfinished (done / finished now / orphan), then exit; 3 when orphans were found')
    .requiredOption('--epic-id <id>', 'epic id')
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .option('--config <file>', 'config file (default <state dir>/watchdog.config.yaml if present)')
    .option('--json', 'print the classification as JSON')
    .action(async (flags: WatchdogFlags) => {
      const opts = await resolveOptions(flags, env.env, env.cwd);
      setCode(await runRecover(opts, { ...env.watchDeps, output: env.output }));
    });
  teach(program.commands.at(-1)!, {
    examples: [
      ['dispatch-watchdog recover --epic-id PROJ-1000', 'after a crash: settle what the last run left unfinished (every start-up does this too)'],
      ['dispatch-watchdog recover --epic-id PROJ-1000 --json', 'the classification as JSON: done, finished, failed, orphans'],
    ],
    exitCodes: [
      [0, 'nothing was left orphaned'],
      [3, 'orphans were found: each is reported in a friction note and never re-fired'],
      [2, 'bad input or usage'],
      [1, 'another watchdog holds the lock, or a step failed'],
    ],
  });

  program
    .command('replay')
    .description('replay recorded Claude Code transcripts through the watchdog: the verdict timeline, the stalls it would flag and how many were false alarms (the agent went on by itself)')
    .argument('<transcript.jsonl...>', 'transcripts to replay (subagents under <session>/subagents/ are read with their parent)')
    .option('--timeout <seconds...>', `base window(s) in seconds; several values print one pass each and a comparison table (default ${DEFAULTS.timeout_seconds})`, collectSeconds('--timeout'), [] as number[])
    .option('--config <file>', 'read exemption settings from this watchdog.config.yaml')
    .option('--json', 'print NDJSON: one object per verdict change, then a summary per transcript and window (schemas/replay-line.schema.json)')
    .action(async (files: string[], flags: { timeout: number[]; config?: string; json?: boolean }) => {
      const config = flags.config ? (await loadConfig(flags.config, env.cwd, env.cwd)).config : {};
      const timeouts = flags.timeout.length > 0 ? flags.timeout : [config.timeout_seconds ?? 120];
      await runReplay(files.map((f) => path.resolve(env.cwd, f)), { timeouts, isJson: Boolean(flags.json), policy: resolvePolicy(config) }, env.output);
      setCode(EXIT.ok);
    });
  teach(program.commands.at(-1)!, {
    examples: [
      ['dispatch-watchdog replay ~/.claude/projects/-home-me-app/4d5611e5.jsonl', 'the verdict timeline of one session and its stalls, false alarms marked'],
      ['dispatch-watchdog replay ~/.claude/projects/-home-me-app/*.jsonl --timeout 60 120 300', 'pick a window: one pass per value, then one row per window'],
      ['dispatch-watchdog replay session.jsonl --json', 'NDJSON: one object per verdict change, then a summary'],
    ],
    exitCodes: [
      [0, 'replayed (whatever it found)'],
      [2, 'a transcript that cannot be read, or a bad --timeout'],
    ],
  });

  program
    .command('friction')
    .description('review a period of the dispatch log: which tickets to look at first and why (with the hypothesis and recommended action of their friction notes), stalls, redispatches and escalations per ticket and per epic, and skipped log lines')
    .option('--since <period>', 'how far back: a duration (2w, 30d, 12h, 90m; 0d = today) or a date (2026-04-01, UTC)', '30d')
    .option('--epic-id <id>', 'only this epic')
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .option('--json', 'print the review as JSON (schemas/friction-review.schema.json)')
    .action(async (flags: { since: string; epicId?: string; stateDir?: string; json?: boolean }) => {
      const nowMs = env.watchDeps.clock.nowMs();
      const sinceMs = parseSince(flags.since, nowMs);
      const epicId = flags.epicId === undefined ? undefined : assertSafeId(flags.epicId, 'epic id');
      const review = await reviewFriction(new StatePaths(existingStateDir(flags.stateDir, env.env, env.cwd)), { sinceMs, nowMs, epicId });
      env.output.out(flags.json ? JSON.stringify(review, null, 2) + '\n' : renderFriction(review));
      setCode(EXIT.ok);
    });
  teach(program.commands.at(-1)!, {
    examples: [
      ['dispatch-watchdog friction', 'the last 30 days: stalls, redispatches and escalations per ticket, and the friction notes'],
      ['dispatch-watchdog friction --since 0d', 'today only (UTC)'],
      ['dispatch-watchdog friction --epic-id PROJ-1000 --since 2w', 'one epic, the last two weeks (14 calendar days and today)'],
      ['dispatch-watchdog friction --since 2026-04-01 --json', 'since a date, as JSON'],
    ],
    exitCodes: [
      [0, 'printed (also when nothing happened)'],
      [2, 'bad --since, or an unreadable state dir'],
    ],
  });

  program
    .command('timeline')
    .description('the wave as a picture: one lane per task instance over time, with its activity, stalls, redispatches, requests, escalations and human waits, from the dispatch log and the agents\' own records; --svg writes it as a self-contained SVG file')
    .requiredOption('--epic-id <id>', 'epic id')
    .option('--svg <file>', 'also write the picture as an SVG file (open it in a browser, attach it to a ticket)')
    .option('--width <columns>', 'terminal width to draw in (default: the terminal\'s, else 100)', count('--width'))
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .action(async (flags: { epicId: string; svg?: string; width?: number; stateDir?: string }) => {
      const paths = new StatePaths(existingStateDir(flags.stateDir, env.env, env.cwd));
      const terminal = env.watchDeps.terminal;
      const columns = flags.width ?? (terminal?.isTty ? terminal.columns() : undefined);
      const opts = { epicId: assertSafeId(flags.epicId, 'epic id'), svgFile: flags.svg, columns, hasColor: Boolean(terminal?.hasColor), nowMs: env.watchDeps.clock.nowMs(), cwd: env.cwd };
      setCode(await runTimeline(paths, opts, env.output));
    });
  teach(program.commands.at(-1)!, {
    examples: [
      ['dispatch-watchdog timeline --epic-id PROJ-1000', 'the wave in the terminal: ▇ activity, ✗ stall, ↻ redispatch, ⛔ escalated, ? waiting on a human'],
      ['dispatch-watchdog timeline --epic-id PROJ-1000 --svg proj-1000.svg', 'the same, and an SVG file to open or attach to the ticket'],
    ],
    exitCodes: [
      [0, 'drawn'],
      [2, 'no such epic (no state file and no log line), or bad input or usage'],
      [1, 'the SVG file could not be written'],
    ],
  });

  program
    .command('prune')
    .description("remove what the watchdog wrote and no longer needs: files of finished epics (watchdog.json, requests, agent logs, markers), old hook activity, read positions and recovery checkpoints; never a state file, a friction note, the dispatch log or a running epic's requests")
    .option('--older-than <duration>', 'only files not changed for this long: 90m, 12h, 30d, 2w', '30d')
    .option('--dry-run', 'list what would be removed; remove nothing')
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .option('--json', 'print the report as JSON')
    .action(async (flags: { olderThan: string; dryRun?: boolean; stateDir?: string; json?: boolean }) => {
      const olderThanMs = parseDurationMs(flags.olderThan);
      if (olderThanMs === undefined) throw new InputError('bad_flag', `--older-than: expected a duration (90m, 12h, 30d, 2w), got ${JSON.stringify(flags.olderThan)}.`, { hint: 'e.g. --older-than 30d' });
      const paths = new StatePaths(existingStateDir(flags.stateDir, env.env, env.cwd));
      const report = await prune(paths, { nowMs: env.watchDeps.clock.nowMs(), olderThanMs, olderThan: flags.olderThan, isDryRun: Boolean(flags.dryRun) });
      env.output.out(flags.json ? JSON.stringify(report, null, 2) + '\n' : renderPrune(report));
      setCode(EXIT.ok);
    });
  teach(program.commands.at(-1)!, {
    examples: [
      ['dispatch-watchdog prune --dry-run', 'list what would go: files older than 30 days of finished epics, old activity and read positions'],
      ['dispatch-watchdog prune --older-than 2w', 'remove them, and say what was removed'],
    ],
    exitCodes: [
      [0, 'done (also when nothing was old enough)'],
      [2, 'bad --older-than'],
      [1, 'a file could not be removed'],
    ],
  });

  program
    .command('demo')
    .description('run the main job on a built-in wave in about 30 s: three agents, one stalls and is killed and redispatched; exit 0 when it went as expected')
    .option('--keep', 'keep the temporary state dir afterwards (kept anyway when the demo fails)')
    .action(async (flags: { keep?: boolean }) => {
      // TERM=dumb gets plain lines: no cursor movement.
      const isTty = env.output === processOutput && detectTerminal(process.stdout, env.env).isTty;
      const demo = { isKept: Boolean(flags.keep), isTty, columns: process.stdout.columns, env: env.env, cwd: env.cwd };
      setCode(await runDemo(demo, { ...env.watchDeps, output: env.output }));
    });
  teach(program.commands.at(-1)!, {
    examples: [
      ['dispatch-watchdog demo', 'watch three agents; one stalls, is stopped and redispatched; about 30 s'],
      ['dispatch-watchdog demo --keep', 'the same, and keep the state dir to look at afterwards'],
    ],
    exitCodes: [
      [0, 'the demo went as expected'],
      [1, 'it did not (the state dir is kept and named)'],
    ],
  });

  return program;
}

/** `hook install` and `hook uninstall`, under the `hook` command. */
function addHookInstallCommands(hook: Command, env: CliEnv, setCode: (code: number) => void): void {
  for (const verb of ['install', 'uninstall'] as const) {
    const cmd = hook
      .command(verb)
      .description(
        verb === 'install'
          ? 'merge the hook block of --print-settings into a Claude Code settings.json (default: the project\'s .claude/settings.json); a second install changes nothing; a backup of the previous file is kept'
          : 'take every dispatch-watchdog hook handler out of that settings.json, leaving the rest as it was; a backup of the previous file is kept',
      )
      .option('--user', 'the user settings: $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json')
      .option('--project', "the project settings: ./.claude/settings.json (the default)")
      .option('--local', "the project's untracked settings: ./.claude/settings.local.json")
      .option('--dry-run', 'print what would change and the resulting file; write nothing')
      .option('--state-dir <dir>', 'state dir the hook records into (default $ONEX_STATE_DIR, else ./.onex_state), pinned as an absolute path')
      .action(async (flags: { user?: boolean; project?: boolean; local?: boolean; dryRun?: boolean; stateDir?: string }) => {
        const scopes = (['user', 'project', 'local'] as const).filter((s) => flags[s]);
        if (scopes.length > 1) throw new InputError('bad_flag', `choose one of --user, --project and --local, got ${scopes.map((s) => '--' + s).join(' and ')}.`);
        const scope: SettingsScope = scopes[0] ?? 'project';
        const stateDir = resolveStateDir(flags.stateDir, env.env, env.cwd);
        const opts = { scope, isDryRun: Boolean(flags.dryRun), stateDir, env: env.env, cwd: env.cwd, nowMs: env.watchDeps.clock.nowMs() };
        setCode(await runHookInstall(verb, opts, env.output));
      });
    teach(cmd, {
      examples:
        verb === 'install'
          ? [
              ['dispatch-watchdog hook install --dry-run', "show what would change in the project's .claude/settings.json; write nothing"],
              ['dispatch-watchdog hook install --user --state-dir ~/.onex_state', 'install for every Claude Code session of this user, recording into that state dir'],
            ]
          : [['dispatch-watchdog hook uninstall --user', "take our hook out of the user's settings.json; other hooks are kept"]],
      exitCodes: [
        [0, verb === 'install' ? 'installed, or already installed' : 'removed, or nothing to remove'],
        [2, 'bad flags, or a settings.json that is not valid JSON (it is left untouched)'],
        [1, 'the file cannot be written'],
      ],
    });
  }
}

/** Run the CLI; resolves to the process exit code. */
export async function main(env: CliEnv): Promise<number> {
  let code: number = EXIT.ok;
  // Commands we suggest in messages keep the --state-dir / --config the user gave.
  const flags = locationFlags(env.argv);
  const output: Output = { out: env.output.out, err: (t) => env.output.err(keepUserFlags(t, flags)) };
  const program = buildProgram({ ...env, output }, (c) => (code = c));
  let active: Command = program;
  program.hook('preAction', (_root, cmd) => void (active = cmd));
  try {
    await program.parseAsync(env.argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit 0; every usage error exits 2.
      return e.exitCode === 0 ? EXIT.ok : EXIT.input;
    }
    const exit = exitCodeFor(e, output);
    if (e instanceof InputError && e.code === 'bad_flag') output.err(`(run ${commandPath(active)} --help for usage)\n`);
    return exit;
  }
}

/** The real process: signals abort the loop; the check in flight finishes first. */
export async function runProcess(): Promise<void> {
  armCrashPoint(process.env.DISPATCH_WATCHDOG_TEST_CRASH); // test-only: the one place the crash hook is set
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    controller.abort({ signal });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The reader of our output went away (`dispatch-watchdog … | head`, a closed terminal): stop like
  // on a signal (watchdog_stopped, lock released) instead of dying on an unhandled EPIPE.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
      onSignal('SIGPIPE');
    });
  }
  const code = await main({
    argv: process.argv.slice(2),
    env: process.env,
    cwd: process.cwd(),
    output: processOutput,
    stdin: process.stdin,
    watchDeps: {
      clock: realClock,
      terminal: detectTerminal(process.stdout, process.env),
      signal: controller.signal,
      pid: process.pid,
      makeObservers: realObservers(process.env),
      ...realActionDeps({ clock: realClock, env: process.env, signal: controller.signal }),
    },
  });
  process.exitCode = code;
}
