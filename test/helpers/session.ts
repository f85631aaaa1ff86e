// Run the real watch or `next` command in-process on a shared manual clock, with the real
// adapters (mailbox by default): several runs in a row see one timeline, as an orchestrator would.
import path from 'node:path';
import { onTestFinished } from 'vitest';
import type { Output } from '../../src/deps.js';
import { runNext } from '../../src/commands/next.js';
import { resolveOptions, type WatchdogFlags } from '../../src/options.js';
import { runWatch } from '../../src/watch.js';
import { realActionDeps, realObservers } from '../../src/wiring.js';
import type { ManualClock } from './manual-clock.js';
import type { SettleOptions } from '../../src/observe/read/settle.js';

export interface Session {
  out: string[];
  err: string[];
  /** Resolves with the exit code. */
  done: Promise<number>;
  isDone(): boolean;
  stop(): void;
  /** Move the clock by `ms` and wait until the command sleeps again or exits. */
  advance(ms: number): Promise<void>;
}

/** Start `dispatch-watchdog [next] ...flags` now; resolves once it sleeps or exits. */
/** `settle`: how the state file's confirming read waits (default: the real one). */
/** `claudeConfigDir`: also observe Claude Code transcripts under that dir (the real observer). */
export async function startSession(
  clock: ManualClock,
  flags: WatchdogFlags,
  opts: { isNext?: boolean; claudeConfigDir?: string; settle?: SettleOptions } = {},
): Promise<Session> {
  const out: string[] = [];
  const err: string[] = [];
  const output: Output = { out: (t) => void out.push(t), err: (t) => void err.push(t) };
  const controller = new AbortController();
  const resolved = await resolveOptions(flags, {}, process.cwd());
  const makeObservers = opts.claudeConfigDir ? realObservers({ CLAUDE_CONFIG_DIR: opts.claudeConfigDir }) : undefined;
  const deps = {
    clock,
    output,
    signal: controller.signal,
    pid: process.pid,
    shouldWatchStateFile: false,
    settle: opts.settle,
    makeObservers,
    ...realActionDeps({ clock, env: {} }),
  };
  let finished = false;
  const done = (opts.isNext ? runNext(resolved, deps) : runWatch(resolved, deps)).finally(() => (finished = true));
  // When the test ends, stop the command and wait for it to exit: a loop still writing its
  // events while the temp dir is removed fails the removal (ENOTEMPTY).
  onTestFinished(async () => {
    controller.abort({ signal: 'SIGTERM' });
    await done.catch(() => undefined);
  });
  const settled = () => Promise.race([clock.waitForSleeper(), done.then(() => undefined)]);
  await settled();
  return {
    out,
    err,
    done,
    isDone: () => finished,
    stop: () => controller.abort({ signal: 'SIGTERM' }),
    advance: (ms) => clock.pass(ms, settled),
  };
}

/**
 * `next` in-process on `clock` (timeout 60 s, interval 10 s, JSON) until it exits, one check at a
 * time (a jump in time would trip the self-lag guard): its exit code and the document it printed.
 */
export async function nextOnClock(clock: ManualClock, stateDir: string, epicId: string, maxSteps = 30): Promise<{ code: number; doc: Record<string, any> }> {
  const s = await startSession(
    clock,
    { epicId, stateDir, timeout: 60, checkInterval: 10, json: true },
    { isNext: true, claudeConfigDir: path.join(stateDir, 'claude') },
  );
  for (let i = 0; i < maxSteps && !s.isDone(); i++) await s.advance(10_000);
  if (!s.isDone()) s.stop();
  const code = await s.done;
  return { code, doc: JSON.parse(s.out.join('') || '{}') as Record<string, any> };
}
