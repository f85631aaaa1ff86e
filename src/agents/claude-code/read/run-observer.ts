// Whether the Claude Code run behind a row is still there, without a `SessionEnd` hook (issue 38):
// the session registry (`sessions/<pid>.json`, session-registry.ts) names the process that runs
// the row's session; once that process is gone (killed with -9: its file left behind; or exited
// with its file removed and no hook installed), every row of the session is dead at once
// (`runEnded`), as a `SessionEnd` line makes it. A row whose session the registry does not know is
// judged by its own `pid` (not a replacement the watchdog launched: its exit is its launch's).
// It also says which Claude Code the session runs (`version`). Live processes only: a `--now`
// moment has none to look at (wiring.ts skips it then). I/O.
import type { Task } from '../../../contracts/state-file.js';
import type { PartialObservation } from '../../../observe/parse/observation.js';
import type { TaskObserver } from '../../../observe/read/observer.js';
import type { SessionRegistry } from './session-registry.js';

export interface RunObserverOptions {
  registry: SessionRegistry;
  /** The session a row belongs to when it names none (a subagent's row by `agent_id` alone: its transcript says). */
  sessionOf?: (task: Task) => string | undefined;
}

const NONE: readonly PartialObservation[] = [];

/**
 * A row's own pid gone counts as its run's end only after this long, in ms. An agent that exits is
 * a zombie until its parent reaps it, and the orchestrator marks the row done only after that: a
 * run seen ended in between (a clean `exit 0` whose row still says in progress) would be a false
 * alarm. Seen in CI: the demo's orchestrator, lagging under load, wrote its row a second after its
 * agent exited, and the agent was redispatched. @defaultValue 10000
 */
export const ROW_EXIT_GRACE_MS = 10_000;

/** The run's part of one row at `nowMs`: its version, and its end when its process is gone (the row's own pid: for ROW_EXIT_GRACE_MS). Pure. */
export function runPart(
  run: { pid: number; version?: string; goneAtMs?: number; isFileGone?: boolean } | undefined,
  row: { pid?: number; goneAtMs?: number },
  nowMs = Infinity,
): PartialObservation | undefined {
  const version = run?.version !== undefined ? { agentVersion: run.version } : {};
  if (run?.goneAtMs !== undefined) {
    const file = run.isFileGone ? 'its sessions file removed' : 'its sessions file left behind: killed, no SessionEnd';
    return { source: 'process', ...version, runEnded: { atMs: run.goneAtMs, detail: `its Claude Code process ${run.pid} is gone, ${file}` } };
  }
  // The registry's live process runs the session (a resume may have taken it over): the row's pid says nothing more.
  if (!run && row.pid !== undefined && row.goneAtMs !== undefined && nowMs - row.goneAtMs >= ROW_EXIT_GRACE_MS) {
    return {
      source: 'process',
      runEnded: {
        atMs: row.goneAtMs,
        detail: `its process ${row.pid} (the row's pid) is gone and no Claude Code process runs its session`,
        isRowPidOnly: true,
      },
    };
  }
  return run?.version !== undefined ? { source: 'process', ...version } : undefined;
}

/** What one task's run parts were made from (runPart's inputs but the moment), and those parts. */
interface Seen {
  version: string | undefined;
  pid: number | undefined;
  goneAtMs: number | undefined;
  isFileGone: boolean | undefined;
  rowGone: number | undefined;
  isGraceOver: boolean;
  parts: readonly PartialObservation[];
  check: number;
}

/** Build the observer (one per watch; the registry is shared with the process observer's pid lookup). */
export function createRunObserver(opts: RunObserverOptions): TaskObserver {
  /** Per task: what its parts were made from, and the parts (the same array while that holds: a steady check tells an unchanged task by identity). */
  const last = new Map<string, Seen>();
  let checks = 0;

  function partsOf(task: Task, nowMs: number): readonly PartialObservation[] {
    const sessionId = task.sessionId ?? opts.sessionOf?.(task);
    const run = sessionId === undefined ? undefined : opts.registry.run(sessionId, nowMs);
    // A replacement the watchdog launched has its own exit rule (its launch's `hasExited`).
    const rowGone = task.pid === undefined || run || task.isOwnReplacement ? undefined : opts.registry.pidGone(task.pid, nowMs);
    const isGraceOver = rowGone !== undefined && nowMs - rowGone >= ROW_EXIT_GRACE_MS;
    // Compared field by field, the part made only when one changed: a key string per task per check cost more than the rest.
    const prev = last.get(task.taskId);
    if (
      prev !== undefined &&
      prev.version === run?.version &&
      prev.pid === run?.pid &&
      prev.goneAtMs === run?.goneAtMs &&
      prev.isFileGone === run?.isFileGone &&
      prev.rowGone === rowGone &&
      prev.isGraceOver === isGraceOver
    ) {
      prev.check = checks;
      return prev.parts;
    }
    const part = runPart(run, { pid: task.pid, goneAtMs: rowGone }, nowMs);
    const parts = part ? [part] : NONE;
    last.set(task.taskId, {
      version: run?.version,
      pid: run?.pid,
      goneAtMs: run?.goneAtMs,
      isFileGone: run?.isFileGone,
      rowGone,
      isGraceOver,
      parts,
      check: checks,
    });
    return parts;
  }

  return {
    name: 'claude-run',
    beginCheck() {
      // Rows gone from the wave (finished, replaced): forgotten after a while.
      if (++checks % 64 === 0) for (const [id, e] of last) if (checks - e.check > 64) last.delete(id);
    },
    observe: async (task, nowMs) => partsOf(task, nowMs) as PartialObservation[],
    observeUnchanged: (task, nowMs) => partsOf(task, nowMs),
  };
}
