// Run the built CLI as a real child process (npm test builds dist/ and dist/bundle/ first).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(REPO_ROOT, 'bin', 'dispatch-watchdog.js');
/**
 * What runCli and spawnCli run: the one-file CLI as an installed package's bin runs it, built from
 * src/ by `npm test` into dist/bundle/ (half the start-up CPU of dist/'s modules, and the suite
 * starts the CLI hundreds of times); the bin when it was not built. Tests of the bin use BIN.
 */
export const CLI = existsSync(path.join(REPO_ROOT, 'dist', 'bundle', 'cli.cjs')) ? path.join(REPO_ROOT, 'dist', 'bundle', 'cli.cjs') : BIN;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run `dispatch-watchdog ...args` to completion. No deadline of its own: it waits for the exit for
 * as long as the test's own timeout allows (a loaded machine may need it all), and a child still
 * running when the test ends (timed out, failed) is killed then, never left behind.
 */
export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, ...opts.env }, cwd: opts.cwd ?? REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    killWhenTestEnds(child);
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}

/** Kill `child` if it is still running when the current test finishes (outside a test: nothing to tie it to). */
function killWhenTestEnds(child: ChildProcess): void {
  try {
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
  } catch {
    // called from a hook (beforeAll): the caller awaits it there
  }
}

/** Start `dispatch-watchdog ...args` in the background. */
export function spawnCli(args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...opts.env }, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.on('data', (d) => (text += d));
  child.stderr.on('data', (d) => (text += d));
  return Object.assign(child, { output: () => text });
}

/** Resolve with the exit code (or signal) of a child. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** Poll `fn` until it returns truthy or `timeoutMs` passes (for files another process writes). */
export async function until<T>(fn: () => T | undefined | false, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
