// `dispatch-watchdog serve`: every epic of a state dir in one long-running process (src/serve.ts),
// with the OTLP/HTTP receiver when --otlp is given (docs/fleet.md).
import type { Command } from 'commander';
import { resolveOptions, type WatchdogFlags } from '../options.js';
import { runServe } from '../serve.js';
import { teach } from '../cli-help.js';
import { configOption, otlpOption, stateDirOption, watchOptions, type CliContext } from './command.js';

/** The epic id serve resolves the shared options with; each epic's loop gets its own. */
const ANY_EPIC = 'serve';

export function registerServe(program: Command, { env, setCode, flags: parsers, flagProblems }: CliContext): void {
  const cmd = program
    .command('serve')
    .description('watch every epic under the state dir in one process (new ones as their state files appear), optionally receiving OTLP/HTTP logs');
  watchOptions(cmd, parsers, '; per epic');
  otlpOption(configOption(stateDirOption(cmd)))
    .option('--json', 'print each check result as JSON on stdout (one line per check, each naming its epic)')
    .action(async (flags: Omit<WatchdogFlags, 'epicId'>) => {
      const opts = await resolveOptions({ ...flags, epicId: ANY_EPIC }, env.env, env.cwd, flagProblems);
      setCode(await runServe(opts, { ...env.watchDeps, output: env.output }));
    });
  teach(cmd, {
    examples: [
      ['dispatch-watchdog serve', 'watch every epic under ./.onex_state (or $ONEX_STATE_DIR) until SIGTERM'],
      ['dispatch-watchdog serve --otlp 127.0.0.1:4318', "the same, receiving the agents' OpenTelemetry logs (Claude Code's, Codex's; docs/fleet.md)"],
      ['dispatch-watchdog status', "every epic's last check, one line each"],
    ],
    exitCodes: [
      ['ok', 'stopped by SIGINT/SIGTERM (every loop finished its action in flight first)'],
      ['input', 'bad flags or config, an --otlp address that cannot be used'],
      ['failure', 'the world refused (a file cannot be written), or a bug'],
    ],
  });
}
