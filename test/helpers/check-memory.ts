// Checks one after another, as the loop runs them: each starts from the memory the one before returned.
import { newCheckMemory, runCheck, type CheckEnv, type CheckMemory, type CheckResult } from '../../src/check.js';

/** A check function that threads the between-check memory from call to call (the env may differ per call). */
export function rememberingCheck(memory: CheckMemory = newCheckMemory()): (env: CheckEnv, nowMs: number) => Promise<CheckResult> {
  return async (env, nowMs) => {
    const r = await runCheck(env, memory, nowMs);
    memory = r.memory;
    return r;
  };
}
