// `dispatch-watchdog demo [--keep]`: its flags, help and exit codes; the demo itself is src/demo/.
import type { Command } from 'commander';
import { EXIT } from '../contracts/exit-codes.js';
import { detectTerminal, processOutput } from '../deps.js';
import { runDemo } from '../demo/run-demo.js';
import { teach } from '../cli-help.js';
import type { CliContext } from './command.js';

export function registerDemo(program: Command, { env, setCode }: CliContext): void {
  const cmd = program
    .command('demo')
    .description(
      `run the main job on a built-in wave in about 30 s: three agents, one stalls and is killed and redispatched; exit ${EXIT.ok} when it went as expected`,
    )
    .option('--keep', 'keep the temporary state dir afterwards (kept anyway when the demo fails)')
    .action(async (flags: { keep?: boolean }) => {
      // TERM=dumb, a pipe or an output not the process's get plain lines: no cursor movement (the
      // output is wrapped by main, so it is told by its out function).
      const plain = { isTty: false, hasColor: false, columns: () => undefined };
      const terminal = env.output.out === processOutput.out ? (env.watchDeps.terminal ?? detectTerminal(process.stdout, env.env)) : plain;
      const demo = { isKept: Boolean(flags.keep), terminal, env: env.env, cwd: env.cwd };
      setCode(await runDemo(demo, { ...env.watchDeps, output: env.output }));
    });
  teach(cmd, {
    examples: [
      ['dispatch-watchdog demo', 'watch three agents; one stalls, is stopped and redispatched; about 30 s'],
      ['dispatch-watchdog demo --keep', 'the same, and keep the state dir to look at afterwards'],
    ],
    exitCodes: [
      ['ok', 'the demo went as expected'],
      ['failure', 'it did not (the state dir is kept and named)'],
    ],
  });
}
