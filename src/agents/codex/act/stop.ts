// Stopping a Codex agent (reference §8 f/f_int/f_wrapper, §12.12): the native binary, not the npm node
// wrapper (killing the wrapper leaves the agent running); SIGINT first (a graceful interrupt:
// `turn_aborted` recorded, its command tree killed, the lock released), SIGKILL after a grace
// (SIGTERM is no better: no record); then the process group of every command it ran, found before
// the first signal (they outlive a SIGKILLed Codex). I/O: signals and /proc.
import type { AdapterDeps } from '../../../act/agents/adapter.js';
import { failed, succeeded } from '../../../act/agents/outcome.js';
import type { ActionOutcome } from '../../../act/agents/adapter.js';
import { isAlive } from '../../../sys/proc-identity.js';
import { commandGroupsOf, nativeCodexPid } from '../read/owner.js';

const POLL_MS = 20;
const KILL_WAIT_MS = 2000;

const tryKill = (pid: number, sig: NodeJS.Signals): boolean => {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
};

async function waitGone(pid: number, ms: number, deps: AdapterDeps): Promise<boolean> {
  const deadline = deps.clock.nowMs() + ms;
  while (isAlive(pid)) {
    if (deps.clock.nowMs() >= deadline) return false;
    await deps.clock.sleep(POLL_MS);
  }
  return true;
}

/**
 * Stop the Codex agent whose launched (verified) pid is `pid`, or whose thread lock `lockOwner` holds.
 * `graceMs`: how long SIGINT is given before SIGKILL.
 */
export async function stopCodex(pid: number | undefined, lockOwner: number | undefined, graceMs: number, deps: AdapterDeps): Promise<ActionOutcome> {
  const native = lockOwner ?? (pid !== undefined ? nativeCodexPid(pid) : undefined);
  if (native === undefined) {
    if (pid !== undefined && isAlive(pid)) {
      // A wrapper with no native child yet (or no /proc): it forwards SIGINT to its child.
      tryKill(pid, 'SIGINT');
      if (await waitGone(pid, graceMs, deps)) return succeeded('cancel', 'process', `codex ${pid} (no native agent found) stopped after SIGINT.`);
      tryKill(pid, 'SIGKILL');
      return { ...succeeded('cancel', 'process', `codex ${pid} (no native agent found) was killed with SIGKILL.`), wasForced: true };
    }
    return succeeded('cancel', 'process', `codex ${pid ?? '(no pid)'} had already exited and no process holds its thread; nothing to stop.`, {
      wasAlreadyDone: true,
    });
  }
  const groups = commandGroupsOf(native);
  tryKill(native, 'SIGINT');
  let wasForced = false;
  if (!(await waitGone(native, graceMs, deps))) {
    wasForced = true;
    tryKill(native, 'SIGKILL');
    if (!(await waitGone(native, KILL_WAIT_MS, deps))) {
      return {
        ...failed('cancel', 'process', 'permission_denied', `codex ${native} is still alive ${KILL_WAIT_MS} ms after SIGKILL.`, { retryable: true }),
        wasForced,
      };
    }
  }
  // Its commands' groups: a SIGINTed Codex kills them itself; a SIGKILLed one leaves their children running.
  const left = groups.filter((g) => tryKill(-g, 'SIGKILL'));
  if (pid !== undefined && pid !== native && isAlive(pid) && !(await waitGone(pid, KILL_WAIT_MS, deps))) tryKill(pid, 'SIGKILL');
  const how = wasForced ? `ignored SIGINT for ${graceMs} ms and was killed with SIGKILL` : 'stopped after SIGINT (turn_aborted recorded)';
  const groupsNote =
    left.length > 0 ? `; killed the process group${left.length > 1 ? 's' : ''} ${left.join(', ')} of the command${left.length > 1 ? 's' : ''} it left` : '';
  return {
    ...succeeded('cancel', 'process', `codex ${native}${pid !== undefined && pid !== native ? ` (launched as ${pid})` : ''} ${how}${groupsNote}.`),
    wasForced,
  };
}
