// Run the CLI in this process, wired as cli.ts runProcess wires it (real clock, real adapters and
// observers), with stdout and stderr captured: for tests about what the CLI says and which exit code
// it picks, where a node start per case (1–1.6 s on a loaded machine) buys nothing.
import { main } from '../../src/cli.js';
import { realClock } from '../../src/deps.js';
import { realActionDeps, realObservers } from '../../src/wiring.js';
import { REPO_ROOT, type CliResult } from './cli.js';

/** `dispatch-watchdog ...args` in-process; same shape as runCli's result. */
export async function runMain(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  const env = { ...process.env, ...opts.env };
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv: args,
    env,
    cwd: opts.cwd ?? REPO_ROOT,
    output: { out: (t) => void (stdout += t), err: (t) => void (stderr += t) },
    watchDeps: {
      clock: realClock,
      signal: new AbortController().signal,
      pid: process.pid,
      makeObservers: realObservers(env),
      ...realActionDeps({ clock: realClock, env }),
    },
  });
  return { code, stdout, stderr };
}
