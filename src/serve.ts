// `dispatch-watchdog serve`: one long-running process for every epic of a state dir. Each epic with
// a state file gets the loop `dispatch-watchdog --epic-id …` runs (same lock, journal, checks and
// actions: one watchdog per epic, whoever holds it); a new epic is picked up when its state file
// appears, a finished one is let go until its state file changes again; an epic another process
// watches is left to it and tried again later. The OTLP receiver (`--otlp`) is shared. SIGTERM
// stops every loop (each finishes its action in flight and logs watchdog_stopped), then the receiver.
import { promises as fs } from 'node:fs';
import { InputError } from './contracts/errors.js';
import { EXIT } from './contracts/exit-codes.js';
import { guardStateDir } from './files/atomic-write.js';
import { StatePaths } from './files/paths.js';
import { knownEpicIds } from './observe/read/known-epics.js';
import type { ResolvedOptions } from './options.js';
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
  const start = (epicId: string, run: EpicRun) => {
    const opts: ResolvedOptions = { ...base, epicId, receiver: undefined };
    // Several epics share one output: plain lines (each names its epic), never one epic's live table.
    const epicDeps: WatchDeps = { ...deps, terminal: undefined, missingEpicSettleMs: 0 };
    out.err(`dispatch-watchdog serve: watching epic ${epicId}\n`);
    run.running = runWatch(opts, epicDeps).then(
      async (code) => {
        run.endedAt = await stampOf(paths.stateFile(epicId));
        run.said = undefined;
        if (!deps.signal.aborted) out.err(`dispatch-watchdog serve: epic ${epicId} ${code === EXIT.ok ? 'is done' : `stopped (exit ${code})`}; watched again when its state file changes\n`);
      },
      async (e: unknown) => {
        run.endedAt = await stampOf(paths.stateFile(epicId));
        const held = e instanceof InputError && e.code === 'lock_held';
        // Held elsewhere: tried again at every scan (whoever holds it watches it; one watchdog per epic).
        if (held) run.endedAt = undefined;
        say(run, `dispatch-watchdog serve: epic ${epicId} not watched here: ${e instanceof InputError ? e.describe() : (e as Error)?.message ?? String(e)}${held ? ' (tried again while serve runs)' : '; watched again when its state file changes'}\n`);
      },
    ).finally(() => {
      run.running = undefined;
    });
  };
  try {
    if (base.receiver) receiver = await startConfiguredReceiver(base.receiver, paths, () => deps.clock.nowMs(), (t) => out.err(t));
    out.err(`dispatch-watchdog serve: watching every epic under ${paths.root} (SIGTERM stops)\n`);
    while (!deps.signal.aborted) {
      for (const epicId of await knownEpicIds(paths)) {
        const run = epics.get(epicId) ?? {};
        epics.set(epicId, run);
        if (run.running) continue;
        if (run.endedAt !== undefined && run.endedAt === (await stampOf(paths.stateFile(epicId)))) continue;
        start(epicId, run);
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
