// A fresh temp dir per test, removed when the test finishes (retried: a child process that is
// still exiting may write one last line into it). Replacements a watchdog launched for a state
// dir in it (they carry DISPATCH_WATCHDOG_STATE_DIR, and outlive the watchdog by design) are
// killed first, so a test that does not stop them itself leaks no process.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { findProcessesWithEnv } from '../../src/sys/proc-identity.js';

export function tempDir(prefix = 'dw-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  onTestFinished(async () => {
    await killLaunchedUnder(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  });
  return dir;
}

/** Only where a launch marker shows something was launched (a /proc scan per test would cost). */
async function killLaunchedUnder(dir: string): Promise<void> {
  const epics = path.join(dir, 'epics');
  const stateDirs = existsSync(epics) ? [dir] : [];
  // A state dir one level down (tests often put it in a subdir of their temp dir).
  for (const sub of safeList(dir)) if (existsSync(path.join(dir, sub, 'epics'))) stateDirs.push(path.join(dir, sub));
  for (const stateDir of stateDirs) {
    const launched = safeList(path.join(stateDir, 'epics')).some((epic) => safeList(path.join(stateDir, 'epics', epic, 'launches')).length > 0);
    if (!launched) continue;
    for (const p of await findProcessesWithEnv({ DISPATCH_WATCHDOG_STATE_DIR: path.resolve(stateDir) })) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
