// Real child processes from test/fixtures/procs: wait for "ready" (never a sleep), kill leftovers after the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

export const PROCS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'procs');

/** Absolute path of a fixture script. */
export const fixture = (name: string) => path.join(PROCS_DIR, name);

export interface Fixture {
  child: ChildProcess;
  pid: number;
  /** Resolves with the exit code and signal once the child has exited (and been reaped). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The line that started with "ready" (a fixture may add data after the word). */
  readyLine: string;
}

/** Spawn `node <fixture>` and resolve once it printed "ready"; `detached` makes it a process-group leader. */
export function spawnFixture(name: string, args: string[] = [], opts: { detached?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Fixture> {
  const child = spawn(process.execPath, [fixture(name), ...args], { stdio: ['ignore', 'pipe', 'inherit'], detached: opts.detached, env: opts.env });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const line = /^ready\b.*$/m.exec(out);
      if (line && out.includes('\n', line.index)) resolve({ child, pid: child.pid!, exited, readyLine: line[0] });
    });
    child.once('error', reject);
    void exited.then(({ code, signal }) => reject(new Error(`fixture ${name} exited (${code ?? signal}) before printing "ready"`)));
  });
}

/** Poll `check` every 10 ms until it returns a value other than undefined, or fail after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** kill(pid, 0) succeeds: the process exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILL the pids that still run `fake-claude.mjs` (checked in /proc, so a reused pid is never hit). */
export function killFakeClaudes(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('fake-claude.mjs')) continue;
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already (or no /proc: nothing to clean up safely)
    }
  }
}
