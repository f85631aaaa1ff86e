// Run one argv (no shell) to completion with a timeout, keeping the tail of its output for messages.
import { spawn } from 'node:child_process';

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Last ~2000 characters of stdout and stderr, interleaved as they came. */
  outputTail: string;
  /** The spawn itself failed (ENOENT, EACCES...): the program never ran. */
  spawnError?: NodeJS.ErrnoException;
}

const TAIL = 2000;

/** Run `argv`; on timeout SIGKILL it (the result's `timedOut` is then true). */
export function runArgv(argv: readonly string[], opts: { timeoutMs: number; env: NodeJS.ProcessEnv }): Promise<RunResult> {
  return new Promise((resolve) => {
    let tail = '';
    let timedOut = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: opts.env });
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-TAIL);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (child.pid === undefined) resolve({ exitCode: null, signal: null, timedOut: false, outputTail: tail, spawnError: e });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      exit = { code, signal };
      // A grandchild may hold the pipes open; stop waiting for them shortly after the exit.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, 200).unref();
    });
    child.once('close', () => {
      if (exit) resolve({ exitCode: exit.code, signal: exit.signal, timedOut, outputTail: tail });
    });
  });
}
