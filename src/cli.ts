// Argument parsing → commands, and where errors become exit codes (DESIGN §10). Each command is
// one module under src/commands/ (flags, action, examples, exit codes; how to add one:
// src/commands/command.ts); this file lists them, and runs the program.
import { Command, CommanderError } from 'commander';
import { combineProblems, InputError } from './contracts/errors.js';
import { EXIT, exitCodeFor } from './contracts/exit-codes.js';
import { detectTerminal, realClock, processOutput, type Output } from './deps.js';
import { armCrashPoint } from './sys/crash-point.js';
import { limitHeapGrowth } from './sys/heap-growth.js';
import { scavengeOnMainThread } from './sys/gc-threads.js';
import { packageVersion } from './version.js';
import { realActionDeps, realObservers } from './wiring.js';
import { didYouMean, commandPath, keepUserFlags, locationFlags, takesFlagOf } from './cli-help.js';
import { flagParsers, type CliContext, type CliEnv, type RegisterCommand } from './commands/command.js';
import { registerWatch } from './commands/watch.js';
import { registerStatus } from './commands/status.js';
import { registerServe } from './commands/serve.js';
import { registerNext } from './commands/next.js';
import { registerAck } from './commands/ack.js';
import { registerHook } from './commands/hook.js';
import { registerHookInstall } from './commands/hook-install.js';
import { registerRecover } from './commands/recover.js';
import { registerReplay } from './commands/replay.js';
import { registerFriction } from './commands/friction.js';
import { registerTimeline } from './commands/timeline.js';
import { registerPrune } from './commands/prune.js';
import { registerDemo } from './commands/demo.js';
import { startPauseMeter } from './sys/pause-meter.js';
import { batchedIdle } from './sys/batched-idle.js';
import { changeEventsSeen } from './observe/read/change-notes.js';

export type { CliEnv } from './commands/command.js';

/** Every command, in the order --help lists them (the main command is the program itself). */
const COMMANDS: RegisterCommand[] = [
  registerStatus,
  registerNext,
  registerServe,
  registerAck,
  (program, ctx) => registerHookInstall(registerHook(program, ctx), ctx),
  registerRecover,
  registerReplay,
  registerFriction,
  registerTimeline,
  registerPrune,
  registerDemo,
];

/** Build the commander program; `setCode` receives the exit code of the command that ran. */
export function buildProgram(env: CliEnv, setCode: (code: number) => void): Command {
  const flagProblems: InputError[] = [];
  const ctx: CliContext = { env, setCode, flags: flagParsers(flagProblems), flagProblems };
  const program = new Command()
    .name('dispatch-watchdog')
    .description('Watch a wave of AI coding subagents, tell stalls from legitimate silence, and recover exactly once.')
    .version(packageVersion(), '-v, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => env.output.out(s), writeErr: (s) => env.output.err(s) })
    .enablePositionalOptions()
    .helpCommand('help [command]', 'show the help of a command')
    .allowExcessArguments(true);
  registerWatch(program, ctx);
  // Every other command: refuse bad flag values, all of them at once, before it runs.
  program.hook('preAction', (_program, command) => {
    const problem = command === program ? undefined : combineProblems(flagProblems);
    if (problem) throw problem;
  });
  for (const register of COMMANDS) register(program, ctx);
  return program;
}

/** Run the CLI; resolves to the process exit code. */
export async function main(env: CliEnv): Promise<number> {
  let code: number = EXIT.ok;
  // Commands we suggest in messages keep the --state-dir / --config the user gave, where they take it.
  const flags = locationFlags(env.argv);
  let program: Command | undefined;
  const output: Output = { out: env.output.out, err: (t) => env.output.err(program ? keepUserFlags(t, flags, takesFlagOf(program)) : t) };
  program = buildProgram({ ...env, output }, (c) => (code = c));
  let active: Command = program;
  program.hook('preAction', (_root, cmd) => void (active = cmd));
  // `help nope`: commander prints the whole help and nothing else; say what was wrong first.
  const [word, topic] = env.argv;
  const names = program.commands.map((c) => c.name());
  if (word === 'help' && topic !== undefined && !topic.startsWith('-') && !names.includes(topic)) {
    const guess = didYouMean(topic, names);
    output.err(`dispatch-watchdog: no command '${topic}'${guess ? `. Did you mean 'dispatch-watchdog help ${guess}'?` : `. Commands: ${names.join(', ')}.`}\n`);
    return EXIT.input;
  }
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
  limitHeapGrowth(); // a busy wave's promoted garbage must not triple the peak RSS (sys/heap-growth.ts)
  scavengeOnMainThread(); // a busy check's scavenges cost about a tenth more CPU spread over helper threads (sys/gc-threads.ts)
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
      makePauseMeter: startPauseMeter,
      makeIdle: (sleep) => batchedIdle({ sleep, events: changeEventsSeen }),
      ...realActionDeps({ clock: realClock, env: process.env, signal: controller.signal }),
    },
  });
  process.exitCode = code;
}
