// TEST-ONLY crash injection (test/integration/crash.test.ts; STYLE §8 "crash safety"): makes this
// process SIGKILL itself right before / right after it reaches a named point for the n-th time
// (default the first), or (`throw:<point>`) throw there once. A point is the name of an event appended to the dispatch log
// (`after:action_started`, `before:redispatch`, `after:agent_killed#2`) or a step that calls
// crashPoint (`after:checkpoint`, `after:launching`, `after:linear`). Disarmed unless the entry
// point arms it (cli.ts runProcess, from DISPATCH_WATCHDOG_TEST_CRASH); then a single comparison.

const SPEC = /^(before|after|throw):([a-z_]+)(?:#([1-9]\d*))?$/;

let armed: { when: string; point: string; nth: number } | undefined;
let hits = 0;

/** Arm (or, with undefined or '', disarm) the crash: "<before|after>:<point>[#<n>]". A malformed spec arms nothing. */
export function armCrashPoint(spec: string | undefined): void {
  const m = SPEC.exec(spec ?? '');
  armed = m ? { when: m[1]!, point: m[2]!, nth: Number(m[3] ?? 1) } : undefined;
  hits = 0;
}

/** TEST-ONLY: SIGKILL this process here when the armed spec names this point; `throw:<point>` throws here instead (once), to prove a guard. */
export function crashPoint(when: 'before' | 'after' | 'throw', point: string): void {
  if (armed === undefined || armed.when !== when || armed.point !== point || ++hits < armed.nth) return;
  if (when === 'throw') {
    if (hits === armed.nth) throw new Error(`test fault at ${point}`);
    return;
  }
  process.kill(process.pid, 'SIGKILL');
}
