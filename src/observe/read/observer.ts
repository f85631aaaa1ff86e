// The port through which the shell gathers evidence about one task beyond its row.
import type { Task } from '../../contracts/state-file.js';
import type { PartialObservation } from '../parse/observation.js';

/** Reads one kind of evidence (hook activity, transcripts) for in-flight tasks. */
export interface TaskObserver {
  readonly name: string;
  /**
   * Evidence about `task` as of now; never throws for a missing or bad source (report it in
   * `missing`). With `mayDefer`, files read recently may be left unread (their parts marked
   * `isDeferred`); without it, everything is read.
   */
  observe(task: Task, nowMs: number, mayDefer?: boolean): Promise<PartialObservation[]>;
  /**
   * The parts the last `observe(task)` returned (the same array), when nothing they were built
   * from changed since (optional; synchronous, so a steady check of many tasks costs a few stats
   * each). Undefined: call `observe`. With the same `task` object, it must return exactly what
   * `observe` would. It may trust change notification instead of a stat, unless `isStatRequired`.
   * Without `isStatRequired` it may also give back parts whose files changed since, if they were
   * read recently enough (the Claude Code observer: config `healthy_read_seconds`): the caller then
   * concludes nothing but healthy from them, and asks again with `isStatRequired` otherwise (then
   * parts built from a deferred read are never given back).
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

/** No parts: one array, so an unchanged observation can return it again. */
const NO_PARTS: PartialObservation[] = [];

/**
 * Several observers as one (a harness whose evidence comes from several readers): their parts in
 * order; unchanged while each one's parts are the very arrays it gave last (then the same array
 * again, so a steady check reuses its observation). Each check step reaches every one of them.
 */
export function combineObservers(name: string, observers: readonly TaskObserver[]): TaskObserver {
  const last = new Map<string, { task: Task; each: readonly (readonly PartialObservation[])[]; parts: PartialObservation[] }>();
  return {
    name,
    async beginCheck(nowMs) {
      for (const o of observers) await o.beginCheck?.(nowMs);
      if (last.size > 100_000) last.clear();
    },
    async observe(task, nowMs, mayDefer) {
      const each: PartialObservation[][] = [];
      for (const o of observers) each.push(await o.observe(task, nowMs, mayDefer));
      const m = last.get(task.taskId);
      // The same arrays from each as last time: the same array back (a steady check compares by identity).
      const parts = m && each.every((p, i) => p === m.each[i]) ? m.parts : each.every((p) => p.length === 0) ? NO_PARTS : each.flat();
      last.set(task.taskId, { task, each, parts });
      return parts;
    },
    observeUnchanged(task, nowMs, isStatRequired) {
      const m = last.get(task.taskId);
      if (!m || m.task !== task) return undefined;
      for (let i = 0; i < observers.length; i++) if (observers[i]!.observeUnchanged?.(task, nowMs, isStatRequired) !== m.each[i]) return undefined;
      return m.parts;
    },
    async endCheck(nowMs) {
      for (const o of observers) await o.endCheck?.(nowMs);
    },
    async flush(nowMs) {
      for (const o of observers) await o.flush?.(nowMs);
    },
  };
}
