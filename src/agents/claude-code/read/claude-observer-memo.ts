// The Claude Code observer's memo (issue 12: a steady check costs what changed): what one task's
// parts were built from, and the trace that records it while they are built. Split out of
// agents/claude-code/read/claude-observer.ts.
import type { Task } from '../../../contracts/state-file.js';
import type { PartialObservation } from '../../../observe/parse/observation.js';
import type { TailHandle } from '../../../observe/read/tail-tracker-types.js';
import type { IdHandle } from './hook-activity.js';
import type { HookState } from '../parse/parse-hook-activity.js';
import type { TranscriptState } from '../parse/transcript-state.js';

/**
 * What one task's parts were built from, kept so a check in which none of it changed reuses them
 * (issue 12: a steady check costs what changed). Exact: the parts are a function of the row, the
 * hook and transcript files named here (each at a read version), the finder's cached answer, and
 * the judged moment only while the transcript's mtime is after it.
 */
export interface Memo {
  task: Task;
  parts: PartialObservation[];
  /** Hook activity files read (own, then the session's), as handles, and their versions (0: no file). */
  hookHandles: IdHandle<HookState>[];
  hookVersions: number[];
  /** Transcripts read (own, then the parent), as handles (no path lookup per check), and their versions. */
  files: TailHandle<TranscriptState>[];
  fileVersions: number[];
  /** Transcripts looked for and not found (a subagent's parent not written yet, or elsewhere): reused while still missing. */
  absentFiles: string[];
  finderGeneration: number;
  /** The moments judged (from, until: exclusive) over which the transcript's mtime counts the same. */
  fromMs: number;
  untilMs: number;
  /** The check (beginCheck count) that last used it. */
  usedInCheck: number;
  /** When its transcripts were last read whole, and until when what they gained since may wait (its share of `healthyReadMs`). */
  readAtMs: number;
  readUntilMs: number;
}

/** A memo unused for this many checks is dropped. */
export const MEMO_SWEEP_CHECKS = 64;

/** The same fields as a Memo while one observation is built; `isMemoizable` false when any input was not a plain read. */
export type Trace = Omit<Memo, 'task' | 'parts' | 'usedInCheck'> & { isMemoizable: boolean; sessionId?: string };

export const maxOf = (...xs: (number | undefined)[]) =>
  xs.reduce<number | undefined>((m, x) => (x === undefined ? m : m === undefined ? x : Math.max(m, x)), undefined);

/**
 * A memo as one literal, never a spread of its trace: Node 20's V8 gives most objects made by a
 * spread a hidden class of their own, and every memo read in the steady check's reuse test then
 * went through a megamorphic lookup (and a class per agent stayed in memory).
 */
export function memoOf(t: Trace, task: Task, parts: PartialObservation[], usedInCheck: number): Memo {
  return {
    task,
    parts,
    hookHandles: t.hookHandles,
    hookVersions: t.hookVersions,
    files: t.files,
    fileVersions: t.fileVersions,
    absentFiles: t.absentFiles,
    finderGeneration: t.finderGeneration,
    fromMs: t.fromMs,
    untilMs: t.untilMs,
    usedInCheck,
    readAtMs: t.readAtMs,
    readUntilMs: t.readUntilMs,
  };
}

/** What an observation's transcript read puts in its trace: the files it stands on and its moments. */
export type TranscriptTrace = Pick<Trace, 'files' | 'fileVersions' | 'absentFiles' | 'fromMs' | 'untilMs' | 'readAtMs' | 'readUntilMs' | 'sessionId'>;

/**
 * One row's last whole read of its transcripts (issue 37, config `healthy_read_seconds`): the
 * transcript part it gave and what it was built from, so an observation within `healthyReadMs`
 * of it may stand on it instead of reading what the files gained (that part marked `isDeferred`).
 */
export interface LastRead {
  task: Task;
  /** The transcript found for the row. */
  path: string;
  part: PartialObservation;
  /** `part` marked deferred, made once. */
  deferred?: PartialObservation;
  /** Put back into the trace of an observation that stands on this read. */
  trace: TranscriptTrace;
}

/** The last read of `task`'s transcript, from the trace its observation left (the transcript's entries alone). */
export function lastReadOf(task: Task, part: PartialObservation, t: Trace): LastRead {
  const { files, fileVersions, absentFiles, fromMs, untilMs, readAtMs, readUntilMs, sessionId } = t;
  return { task, path: part.transcriptFile ?? '', part, trace: { files, fileVersions, absentFiles, fromMs, untilMs, readAtMs, readUntilMs, sessionId } };
}
