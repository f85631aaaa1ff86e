// The port through which the shell gathers evidence about one task beyond its row.
import type { Task } from '../../contracts/state-file.js';
import type { PartialObservation } from '../parse/observation.js';

/** Reads one kind of evidence (hook activity, transcripts) for in-flight tasks. */
export interface TaskObserver {
  readonly name: string;
  /** Evidence about `task` as of now; never throws for a missing or bad source (report it in `missing`). */
  observe(task: Task, nowMs: number): Promise<PartialObservation[]>;
  /**
   * The parts the last `observe(task)` returned (the same array), when nothing they were built
   * from changed since (optional; synchronous, so a steady check of many tasks costs a few stats
   * each). Undefined: call `observe`. With the same `task` object, it must return exactly what
   * `observe` would. It may trust change notification instead of a stat, unless `isStatRequired`.
   */
  observeUnchanged?(task: Task, nowMs: number, isStatRequired?: boolean): readonly PartialObservation[] | undefined;
  /**
   * A check begins (optional): a file asked for by several tasks in one check is read once, and
   * change notifications pending now have arrived when the promise settles.
   */
  beginCheck?(nowMs: number): void | Promise<void>;
  /**
   * A check is over: its verdicts are logged and its report written (optional). Persist what is
   * due (saved offsets) here, off the path from a deadline to its verdict.
   */
  endCheck?(nowMs: number): Promise<void>;
  /** Persist what must survive a restart (saved offsets); called when the watchdog stops. */
  flush?(nowMs: number): Promise<void>;
}
