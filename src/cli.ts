// Argument parsing → commands, and the one place errors become exit codes (DESIGN §10).
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DEFAULTS } from './contracts/defaults.js';
import { InputError } from './contracts/errors.js';
import { STRATEGIES } from './contracts/vocabulary.js';
import { runDemo } from './demo/run-demo.js';
import { realClock, processOutput, type Output } from './deps.js';
import { StatePaths } from './journal/paths.js';
import { printStatus } from './commands/status.js';
import { resolveOptions, resolveStateDir, type WatchdogFlags } from './options.js';
import { packageVersion } from './version.js';
import { EXIT, exitCodeFor, runRecover, runWatch, type WatchDeps } from './watch.js';
import { realActionDeps, realObservers } from './wiring.js';
import { hookMain } from './commands/hook.js';
import { runHookInstall, type SettingsScope } from './commands/hook-install.js';
import { parseSince, renderFriction, reviewFriction } from './commands/friction-review.js';

const positiveNumber = (what: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${what} must be a positive number of seconds, got ${JSON.stringify(v)}.`);
  return n;
};
const count = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a whole number >= 0, got ${JSON.stringify(v)}.`);
  return n;
};

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
  const program = new Command()
    .name('dispatch-watchdog')
    .description('Watch a wave of AI coding subagents, tell stalls from legitimate silence, and recover exactly once.')
    .version(packageVersion())
    .exitOverride()
    .configureOutput({ writeOut: (s) => env.output.out(s), writeErr: (s) => env.output.err(s) })
    .showHelpAfterError('(run dispatch-watchdog --help for usage)')
    .enablePositionalOptions()
    .option('--epic-id <id>', 'epic to watch (epics/<id>/state.yaml under the state dir)')
    .option('--timeout <seconds>', `base stall window in seconds (default ${DEFAULTS.timeout_seconds})`, positiveNumber('--timeout'))
    .addOption(new Option('--action <strategy>', `what to do about a stalled task (default ${DEFAULTS.action})`).choices([...STRATEGIES]))
    .option('--check-interval <seconds>', `longest sleep between checks (default ${DEFAULTS.check_interval_seconds}); stalls are caught at their deadline anyway`, positiveNumber('--check-interval'))
    .option('--max-redispatches <n>', `redispatches per ticket before escalating to ${DEFAULTS.linear.blocked_state} (default ${DEFAULTS.max_redispatches})`, count)
    .option('--once', 'one check, then exit: 0 no stall, 3 stall found, 2 bad input or usage')
    .option('--dry-run', 'judge and print, but write nothing and act on nothing')
    .option('--now <iso-time>', 'evaluate the wave as of this moment (implies --once; no log lines, no actions): for examples and post-mortems')
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .option('--config <file>', 'config file (default <state dir>/watchdog.config.yaml if present)')
    .option('--json', 'print each check result as JSON on stdout')
    .action(async (flags: WatchdogFlags) => {
      const opts = await resolveOptions(flags, env.env, env.cwd);
      setCode(await runWatch(opts, { ...env.watchDeps, output: env.output }));
    });

  program
    .command('status')
    .description('print the last check of an epic as a table (or --json)')
    .requiredOption('--epic-id <id>', 'epic id')
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .option('--json', 'print watchdog.json')
    .action(async (flags: { epicId: string; stateDir?: string; json?: boolean }) => {
      const paths = new StatePaths(resolveStateDir(flags.stateDir, env.env, env.cwd));
      await printStatus(paths, flags.epicId, { isJson: Boolean(flags.json), nowMs: env.watchDeps.clock.nowMs() }, env.output);
      setCode(EXIT.ok);
    });

  const hook = program
    .command('hook')
    .description('the Claude Code hook: read one hook payload on stdin, append it to activity/<agent or session id>.ndjson, print nothing, always exit 0')
    .option('--print-settings', 'print the settings.json block that installs this hook')
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .action(async () => setCode(await hookMain(env.argv.slice(1), env.stdin ?? process.stdin, env.env, { out: (t) => env.output.out(t), warn: (t) => env.output.err(t) })));
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

  program
    .command('friction')
    .description('review what the watchdog logged over a period: stalls, redispatches and escalations per ticket, and the friction notes')
    .option('--since <duration>', 'how far back, e.g. 30d, 12h, 90m', '30d')
    .option('--state-dir <dir>', 'state dir (default $ONEX_STATE_DIR, else ./.onex_state)')
    .option('--json', 'print the review as JSON')
    .action(async (flags: { since: string; stateDir?: string; json?: boolean }) => {
      const sinceMs = env.watchDeps.clock.nowMs() - parseSince(flags.since);
      const review = await reviewFriction(new StatePaths(resolveStateDir(flags.stateDir, env.env, env.cwd)), sinceMs);
      env.output.out(flags.json ? JSON.stringify(review, null, 2) + '\n' : renderFriction(review));
      setCode(EXIT.ok);
    });

  program
    .command('demo')
    .description('run the main job on a built-in wave in about 30 s: three agents, one stalls and is killed and redispatched; exit 0 when it went as expected')
    .option('--keep', 'keep the temporary state dir afterwards (kept anyway when the demo fails)')
    .action(async (flags: { keep?: boolean }) => {
      const isTty = env.output === processOutput && Boolean(process.stdout.isTTY);
      const demo = { isKept: Boolean(flags.keep), isTty, columns: process.stdout.columns, env: env.env, cwd: env.cwd };
      setCode(await runDemo(demo, { ...env.watchDeps, output: env.output }));
    });

  return program;
}

/** `hook install` and `hook uninstall`, under the `hook` command. */
function addHookInstallCommands(hook: Command, env: CliEnv, setCode: (code: number) => void): void {
  for (const verb of ['install', 'uninstall'] as const) {
    hook
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
  }
}

/** Run the CLI; resolves to the process exit code. */
export async function main(env: CliEnv): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(env, (c) => (code = c));
  try {
    await program.parseAsync(env.argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit 0; every usage error exits 2.
      return e.exitCode === 0 ? EXIT.ok : EXIT.input;
    }
    return exitCodeFor(e, env.output);
  }
}

/** The real process: signals abort the loop; the check in flight finishes first. */
export async function runProcess(): Promise<void> {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    controller.abort({ signal });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await main({
    argv: process.argv.slice(2),
    env: process.env,
    cwd: process.cwd(),
    output: processOutput,
    stdin: process.stdin,
    watchDeps: {
      clock: realClock,
      signal: controller.signal,
      pid: process.pid,
      makeObservers: realObservers(process.env),
      ...realActionDeps({ clock: realClock, env: process.env }),
    },
  });
  process.exitCode = code;
}
