// The watch loop (DESIGN §10, §12): check, then sleep until the earliest stall deadline or the
// check interval, whichever is sooner; stop when nothing is left to watch or on a signal.
import type { Clock } from './deps.js';
import type { InputError } from './contracts/errors.js';
import { newCheckMemory, runCheck, type CheckEnv, type CheckMemory, type CheckResult } from './check.js';
import { noteLateWake } from './core/unobserved.js';

export interface LoopDeps {
  clock: Clock;
  /** Aborts on SIGINT/SIGTERM: the check in flight finishes, then the loop returns. */
  signal: AbortSignal;
  /** Told every check's result; the next check waits for it (the live view draws before the loop sleeps). */
  onResult?: (r: CheckResult) => void | Promise<void>;
  /** An input problem seen for the first time (logged once per distinct problem). */
  onNewInputError?: (r: Extract<CheckResult, { ok: false }>) => Promise<void>;
  /** A check failed for a reason other than bad input (told once per distinct message). */
  onCheckError?: (e: unknown) => void;
  /** Aborted when a watched file changes, to check early. */
  wakeSignal?: () => AbortSignal | undefined;
  /** `next`: stop after a check that has something for the orchestrator. */
  shouldStop?: (r: Extract<CheckResult, { ok: true }>) => boolean;
  /** `next --max-wait`: stop after the first check at or past this moment. */
  untilMs?: number;
  /** The longest time this process did not run since the last call (sys/pause-meter.ts): a pause in a check too. */
  lostTimeMs?: () => number;
  /** The sleep between two checks (real runs of the main command and `next`: sys/batched-idle.ts). @defaultValue clock.sleep */
  idle?: Clock['sleep'];
  /** What checks before the loop left (a first check run outside it). @defaultValue newCheckMemory() */
  memory?: CheckMemory;
}

export interface LoopEnd {
  reason: 'wave_complete' | 'signal' | 'next' | 'max_wait';
  checks: number;
  /** The last successful check. */
  last?: Extract<CheckResult, { ok: true }>;
}

/** A stall is `idle > window`, so the first moment it can be seen is one ms past the deadline. */
const DEADLINE_SLACK_MS = 1;
/** Never spin: the shortest sleep between two checks. */
const MIN_SLEEP_MS = 50;

/** At most this many input_error lines per INPUT_ERROR_WINDOW_MS. */
export const MAX_INPUT_ERRORS_PER_WINDOW = 5;
export const INPUT_ERROR_WINDOW_MS = 60_000;

/** One input problem, told once: its code, file, field and words, not the line, column or other numbers (a file torn mid-write moves them). */
export function inputErrorFingerprint(e: InputError): string {
  return [e.code, e.location?.file ?? '', e.location?.path ?? '', e.message].map((s) => s.replace(/\d+/g, '#')).join('\u0000');
}

/** When to check next: the earliest future stall deadline, capped by the check interval. */
export function nextWakeMs(r: CheckResult, nowMs: number, intervalMs: number): number {
  let next = nowMs + intervalMs;
  if (r.ok) {
    for (const v of r.verdicts) {
      if (v.deadlineMs !== undefined && v.deadlineMs >= nowMs) next = Math.min(next, v.deadlineMs + DEADLINE_SLACK_MS);
    }
    // A request is unanswered once now > answer_by.
    for (const at of r.requestDeadlinesMs) if (at >= nowMs) next = Math.min(next, at + DEADLINE_SLACK_MS);
    for (const at of r.wakeAtMs ?? []) if (at >= nowMs) next = Math.min(next, at);
  }
  return Math.max(next, nowMs + MIN_SLEEP_MS);
}

/** Run checks until the wave is done or `deps.signal` aborts. The loop owns the between-check memory: each check returns the next. */
export async function runLoop(env: CheckEnv, deps: LoopDeps): Promise<LoopEnd> {
  const intervalMs = env.opts.checkIntervalSeconds * 1000;
  let memory = deps.memory ?? newCheckMemory();
  const seenErrors = new Set<string>();
  let told: number[] = [];
  let checks = 0;
  let plannedMs = deps.clock.nowMs();
  while (!deps.signal.aborted) {
    const nowMs = deps.clock.nowMs();
    // Self-lag guard: woke later than planned by more than an interval (event loop blocked,
    // process stopped, machine asleep) → this check only re-observes; the next one may act.
    const isLagged = nowMs - plannedMs > intervalMs;
    // How late it woke, or how long the process stood still since the last check (a pause in a
    // check is no lateness of a wake), is time no one was seen at work: no agent's silence.
    noteLateWake(memory.unobserved, nowMs, Math.max(nowMs - plannedMs, deps.lostTimeMs?.() ?? 0));
    if (isLagged !== memory.isLagged) memory = { ...memory, isLagged };
    let r: CheckResult | undefined;
    try {
      r = await runCheck(env, memory, nowMs);
      memory = r.memory;
    } catch (e) {
      // The world refused something (disk full, a permission changed): say so once, keep
      // watching, and try again after an interval rather than leave the wave unwatched.
      checks++;
      // System errors name temp files that differ every time: tell them apart by code and call.
      const err = e as NodeJS.ErrnoException;
      const fingerprint = err?.code ? `${err.code} ${err.syscall ?? ''}` : (err?.message ?? String(e));
      if (!seenErrors.has(fingerprint)) {
        seenErrors.add(fingerprint);
        deps.onCheckError?.(e);
      }
      if (deps.untilMs !== undefined && deps.clock.nowMs() >= deps.untilMs) return { reason: 'max_wait', checks };
      plannedMs = deps.clock.nowMs() + intervalMs;
      await deps.clock.sleep(Math.min(intervalMs, Math.max(0, (deps.untilMs ?? Infinity) - deps.clock.nowMs())), deps.signal);
      continue;
    }
    checks++;
    if (!r.ok) {
      const fingerprint = inputErrorFingerprint(r.error);
      if (!seenErrors.has(fingerprint)) {
        seenErrors.add(fingerprint);
        // A file an orchestrator keeps rewriting badly must not flood the log: a few a minute.
        told = told.filter((t) => t > nowMs - INPUT_ERROR_WINDOW_MS);
        if (told.length < MAX_INPUT_ERRORS_PER_WINDOW) {
          told.push(nowMs);
          await deps.onNewInputError?.(r);
        }
      }
    } else {
      seenErrors.clear();
    }
    await deps.onResult?.(r);
    if (r.ok && deps.shouldStop?.(r)) return { reason: 'next', checks, last: r };
    if (r.ok && r.isWaveDone) return { reason: 'wave_complete', checks, last: r };
    if (deps.untilMs !== undefined && deps.clock.nowMs() >= deps.untilMs) return { reason: 'max_wait', checks, ...(r.ok ? { last: r } : {}) };
    if (isLagged) {
      plannedMs = deps.clock.nowMs();
      continue;
    }
    const wakeAt = Math.min(nextWakeMs(r, nowMs, intervalMs), deps.untilMs ?? Infinity);
    // Nothing of this check is held while the loop sleeps: a result kept until the next check
    // (10,000 verdicts, the report) outlives a young-generation collection and is promoted, and
    // the old generation's collections are what a steady loop pays most for beyond the check.
    r = undefined;
    // Lag is measured from when we went to sleep: a slow check of our own (a kill's grace
    // period) is not the machine sleeping.
    plannedMs = Math.max(wakeAt, deps.clock.nowMs());
    const wake = deps.wakeSignal?.();
    const signal = wake ? AbortSignal.any([deps.signal, wake]) : deps.signal;
    const sleepMs = wakeAt - deps.clock.nowMs();
    await (deps.idle ? deps.idle(sleepMs, signal) : deps.clock.sleep(sleepMs, signal));
  }
  return { reason: 'signal', checks };
}
