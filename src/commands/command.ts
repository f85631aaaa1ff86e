// What every CLI command module shares: the environment it runs in, the flag value parsers, the
// options several commands take, and the shape of a command module.
//
// A new command is one module, src/commands/<name>.ts, exporting `register<Name>(parent, ctx)`:
// it adds the command to `parent` with its options (the shared ones below where they fit), its
// action (which calls `ctx.setCode` with a name from contracts/exit-codes.ts EXIT, or throws: the
// CLI turns errors into exit codes) and, last, `teach(cmd, { examples, exitCodes })` from
// cli-help.ts, whose `exitCodes` name every code the command can return. Then add the function to
// COMMANDS in src/cli.ts, where it lands in the help in that order. A new exit code: see
// contracts/exit-codes.ts. Tests: test/unit/help.test.ts and test/unit/exit-codes.test.ts cover
// every registered command without being told.
import { Option, type Command } from 'commander';
import { MAX_SECONDS } from '../contracts/config.js';
import { DEFAULTS } from '../contracts/defaults.js';
import { InputError } from '../contracts/errors.js';
import { STRATEGIES } from '../contracts/vocabulary.js';
import type { Output } from '../deps.js';
import type { WatchDeps } from '../watch.js';

export interface CliEnv {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  output: Output;
  /** Everything runWatch needs except what the CLI derives itself. */
  watchDeps: Omit<WatchDeps, 'output'>;
  stdin?: NodeJS.ReadableStream;
}

/** What a command's registration gets: the environment, where its exit code goes, the flag parsers. */
export interface CliContext {
  env: CliEnv;
  /** The exit code of the command that ran (a value of EXIT). */
  setCode: (code: number) => void;
  flags: FlagParsers;
  /** Where the parsers collect bad flag values (thrown together before the command runs). */
  flagProblems: InputError[];
}

/** One command module's entry point: add the command (and its subcommands) under `parent`. */
export type RegisterCommand = (parent: Command, ctx: CliContext) => void;

export type FlagParsers = ReturnType<typeof flagParsers>;

/**
 * Flag value parsers that collect every bad value instead of stopping at the first, so one error
 * lists them all (thrown before any command runs; the watch command adds its config problems).
 */
export function flagParsers(problems: InputError[]) {
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
    choice:
      <T extends string>(flag: string, choices: readonly T[]) =>
      (v: string) =>
        (choices as readonly string[]).includes(v) ? (v as T) : bad(flag, `one of ${choices.join(', ')}`, v),
  };
}

/** --state-dir, as every command that reads the state dir takes it. */
export function stateDirOption(cmd: Command, what = 'state dir', after = ''): Command {
  return cmd.option('--state-dir <dir>', `${what} (default $ONEX_STATE_DIR, else ./.onex_state)${after}`);
}

/** --config, as the commands that read watchdog.config.yaml take it. */
export function configOption(cmd: Command): Command {
  return cmd.option('--config <file>', 'config file (default <state dir>/watchdog.config.yaml if present)');
}

/** The options that shape a watch (the watch command and next): window, strategy, interval, cap. */
export function watchOptions(cmd: Command, { seconds, count, choice }: FlagParsers, intervalNote = ''): Command {
  return cmd
    .option(
      '--stall-window <seconds>',
      `how long a task may go without progress before it is stalled, before exemptions widen it (default ${DEFAULTS.timeout_seconds})`,
      seconds('--stall-window'),
    )
    .option('--timeout <seconds>', 'the same as --stall-window (its older name; not a limit on how long the command runs)', seconds('--timeout'))
    .addOption(
      new Option('--action <strategy>', `what to do about a stalled task (default ${DEFAULTS.action})`)
        .choices([...STRATEGIES])
        .argParser(choice('--action', STRATEGIES)),
    )
    .option(
      '--check-interval <seconds>',
      `longest sleep between checks (default ${DEFAULTS.check_interval_seconds})${intervalNote}`,
      seconds('--check-interval'),
    )
    .option(
      '--max-redispatches <n>',
      `redispatches per ticket before escalating to ${DEFAULTS.linear.blocked_state} (default ${DEFAULTS.max_redispatches})`,
      count('--max-redispatches'),
    );
}

/** --otlp HOST:PORT: the OTLP/HTTP logs receiver (docs/fleet.md), on the loop and on serve. */
export function otlpOption(cmd: Command): Command {
  return cmd.option(
    '--otlp <host:port>',
    `also receive the agents' OpenTelemetry logs (Claude Code's, Codex's) over OTLP/HTTP here, e.g. 127.0.0.1:4318 (bearer token from $${DEFAULTS.otlp.token_env}; docs/fleet.md)`,
  );
}
