// `dispatch-watchdog serve`: one long-running process for every epic of a state dir. Each epic with
// a state file gets the loop `dispatch-watchdog --epic-id …` runs (same lock, journal, checks and
// actions: one watchdog per epic, whoever holds it), with the policy the epic's own watchdog last
// ran with (its watchdog.json: window, action, interval), serve's flags only for an epic never
// watched; a new epic is picked up when its state file appears, a finished one is let go until
// its state file changes again; an epic another process watches is left to it (said once) and
// tried again later. A lead's `next` beside serve follows it (commands/next-follow.ts). Every
// line of an epic's loop names the epic. The OTLP receiver (`--otlp`) is shared. SIGTERM
// stops every loop (each finishes its action in flight and logs watchdog_stopped), then the receiver.
import { promises as fs } from 'node:fs';
import type { Output } from './deps.js';
import { InputError } from './contracts/errors.js';
import { parseWatchdogJson, SEED_WRITER } from './contracts/watchdog-json.js';
import { STRATEGIES, type Strategy } from './contracts/vocabulary.js';
import { readLock } from './journal/lock.js';
import { isAlive } from './sys/proc-identity.js';
import { EXIT } from './contracts/exit-codes.js';
import { guardStateDir } from './files/atomic-write.js';
import { StatePaths } from './files/paths.js';
import { knownEpicIds } from './observe/read/known-epics.js';
import { resolveOptions, type ResolvedOptions } from './options.js';
import { startConfiguredReceiver, type OtlpReceiver } from './receive/otlp-receiver.js';
import { runWatch, type WatchDeps } from './watch.js';

export interface ServeDeps extends WatchDeps {
  /** How often the epics dir is looked at again, in ms. @defaultValue 2000 */
  scanMs?: number;
}

/** What serve knows of one epic. */
interface EpicRun {
  /** The loop, while it runs. */
  running?: Promise<void>;
  /** The state file's stamp when its loop last ended: it is started again once that changes. */
  endedAt?: string;
  /** Why it is not watched here (another watchdog holds it, or its loop failed), said once per change. */
  said?: string;
  /** Its watchdog.json as last read when it did not read whole (epicOptions `seenBefore`). */
  unsettled?: string;
}

/** Every line an epic's loop writes names the epic (a JSON line names it in its own epic_id). */
export function epicOutput(out: Output, epicId: string): Output {
  const tag = (text: string) => text.replace(/^(?!\{)(?=.)/gm, `[${epicId}] `);
  return { out: (t) => out.out(tag(t)), err: (t) => out.err(tag(t)) };
}

/** An epic's policy, or why it is not known yet: its watchdog.json exists but did not read whole this time. */
export type EpicPolicy = { opts: ResolvedOptions; from: string } | { unsettled: string; why: string };

/**
 * The options an epic is watched with: the window, action and interval its own watchdog last ran
 * with (its watchdog.json), so a taken-over epic is never judged with another window; serve's
 * own for an epic never watched. The words say which. Never on one read (a file being written,
 * a read that failed): a watchdog.json that exists but does not read as a document is `unsettled`
 * (`seen`: what was read, for the next look), and serve's own policy applies only once a later
 * look reads the very same thing (`seenBefore`): a file that stays so, not one caught mid-write.
 */
export async function epicOptions(base: ResolvedOptions, paths: StatePaths, epicId: string, seenBefore?: string): Promise<EpicPolicy> {
  const own: ResolvedOptions = { ...base, epicId, receiver: undefined };
  let text: string | undefined;
  let problem: { seen: string; why: string } | undefined;
  try {
    text = await fs.readFile(paths.watchdogJson(epicId), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') problem = { seen: `read error ${code}`, why: `its watchdog.json could not be read (${code ?? (e as Error).message})` };
  }
  let w: { timeout_seconds: number; action: string; check_interval_seconds: number } | undefined;
  try {
    w = text === undefined ? undefined : parseWatchdogJson(JSON.parse(text)).watchdog;
    if (w && (w as { version?: string }).version === SEED_WRITER) w = undefined; // the seed records no window
  } catch {
    problem = { seen: text!, why: 'its watchdog.json does not read as a document (being written, or damaged)' };
  }
  if (problem && problem.seen !== seenBefore) return { unsettled: problem.seen, why: problem.why };
  const action = w && (STRATEGIES as readonly string[]).includes(w.action) ? (w.action as Strategy) : undefined;
  if (!w || !action || (w.timeout_seconds === base.timeoutSeconds && action === base.action && w.check_interval_seconds === base.checkIntervalSeconds)) {
    return {
      opts: own,
      from: `window ${own.timeoutSeconds}s, action ${own.action}${problem ? `: ${problem.why}, the same at two looks, so it records no policy` : ''}`,
    };
  }
  const opts = await resolveOptions(
    {
      epicId,
      stateDir: base.stateDir,
      config: base.configFile,
      timeout: w.timeout_seconds,
      action,
      checkInterval: w.check_interval_seconds,
      maxRedispatches: base.maxRedispatches,
      json: base.isJson,
    },
    {},
    base.stateDir,
  );
  return { opts: { ...opts, receiver: undefined }, from: `window ${opts.timeoutSeconds}s, action ${opts.action}, as its own watchdog last ran` };
}

const stampOf = async (file: string): Promise<string> => {
  const st = await fs.stat(file).catch(() => undefined);
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '';
};

/** Watch every epic under `base.stateDir` until the signal; returns the exit code. */
export async function runServe(base: ResolvedOptions, deps: ServeDeps): Promise<number> {
  const paths = new StatePaths(base.stateDir);
  guardStateDir(paths.root);
  const out = deps.output;
  const epics = new Map<string, EpicRun>();
  let receiver: OtlpReceiver | undefined;
  const say = (run: EpicRun, text: string) => {
    if (run.said === text) return;
    run.said = text;
    out.err(text);
  };
  const start = (epicId: string, run: EpicRun, opts: ResolvedOptions, from: string) => {
    // Several epics share one output: plain lines, each naming its epic, never one epic's live table.
    // No blocking sleep (sys/batched-idle.ts): several loops and the receivers share this thread.
    const epicDeps: WatchDeps = { ...deps, output: epicOutput(out, epicId), terminal: undefined, missingEpicSettleMs: 0, makeIdle: undefined };
    out.err(`dispatch-watchdog serve: watching epic ${epicId} (${from})\n`);
    run.said = undefined;
    run.running = runWatch(opts, epicDeps)
      .then(
        async (code) => {
          run.endedAt = await stampOf(paths.stateFile(epicId));
          run.said = undefined;
          if (!deps.signal.aborted)
            out.err(
              `dispatch-watchdog serve: epic ${epicId} ${code === EXIT.ok ? 'is done' : `stopped (exit ${code})`}; watched again when its state file changes\n`,
            );
        },
        async (e: unknown) => {
          run.endedAt = await stampOf(paths.stateFile(epicId));
          const held = e instanceof InputError && e.code === 'lock_held';
          // Held elsewhere: tried again at every scan (whoever holds it watches it; one watchdog per epic).
          if (held) run.endedAt = undefined;
          say(
            run,
            `dispatch-watchdog serve: epic ${epicId} not watched here: ${e instanceof InputError ? e.describe() : ((e as Error)?.message ?? String(e))}${held ? ' (tried again while serve runs)' : '; watched again when its state file changes'}\n`,
          );
        },
      )
      .finally(() => {
        run.running = undefined;
      });
  };
  try {
    if (base.receiver)
      receiver = await startConfiguredReceiver(
        base.receiver,
        paths,
        () => deps.clock.nowMs(),
        (t) => out.err(t),
      );
    out.err(`dispatch-watchdog serve: watching every epic under ${paths.root} (SIGTERM stops)\n`);
    while (!deps.signal.aborted) {
      for (const epicId of await knownEpicIds(paths)) {
        const run = epics.get(epicId) ?? {};
        epics.set(epicId, run);
        if (run.running) continue;
        if (run.endedAt !== undefined && run.endedAt === (await stampOf(paths.stateFile(epicId)))) continue;
        // Held by another watchdog (a standalone loop, a lead's next): left to it, said once.
        const holder = await readLock(paths.lockFile(epicId));
        if (holder && holder.pid !== deps.pid && isAlive(holder.pid)) {
          say(
            run,
            `dispatch-watchdog serve: epic ${epicId} not watched here: another dispatch-watchdog (pid ${holder.pid}, since ${holder.started_at}) is watching it (taken over when it stops)\n`,
          );
          continue;
        }
        try {
          const policy = await epicOptions(base, paths, epicId, run.unsettled);
          if ('unsettled' in policy) {
            // Never on one read: looked at again at the next scan, and watched once two looks agree.
            run.unsettled = policy.unsettled;
            say(run, `dispatch-watchdog serve: epic ${epicId} not watched yet: ${policy.why}; read again at the next scan\n`);
            continue;
          }
          run.unsettled = undefined;
          start(epicId, run, policy.opts, policy.from);
        } catch (e) {
          say(
            run,
            `dispatch-watchdog serve: epic ${epicId} not watched here: ${e instanceof InputError ? e.describe() : ((e as Error)?.message ?? String(e))}\n`,
          );
        }
      }
      await deps.clock.sleep(deps.scanMs ?? 2000, deps.signal).catch(() => undefined);
    }
    await Promise.all([...epics.values()].map((r) => r.running));
    return EXIT.ok;
  } finally {
    await Promise.all([...epics.values()].map((r) => r.running));
    await receiver?.close();
  }
}
