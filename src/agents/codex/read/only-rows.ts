// An observer limited to some rows (DESIGN §15: only a row's own harness reads it): a Claude Code
// observer must not read a Codex rollout as a Claude transcript, nor sample its node wrapper.
import type { Task } from '../../../contracts/state-file.js';
import type { PartialObservation } from '../../../observe/parse/observation.js';
import type { TaskObserver } from '../../../observe/read/observer.js';

const NONE: readonly PartialObservation[] = [];

/** `o` for the rows `isMine` accepts; nothing for the others (the same empty array, so an unchanged check reuses it). */
export function onlyRows(o: TaskObserver, isMine: (t: Task) => boolean): TaskObserver {
  return {
    name: o.name,
    observe: async (t, nowMs) => (isMine(t) ? o.observe(t, nowMs) : (NONE as PartialObservation[])),
    ...(o.observeUnchanged ? { observeUnchanged: (t: Task, nowMs: number, isStatRequired?: boolean) => (isMine(t) ? o.observeUnchanged!(t, nowMs, isStatRequired) : NONE) } : {}),
    ...(o.beginCheck ? { beginCheck: (nowMs: number) => o.beginCheck!(nowMs) } : {}),
    ...(o.endCheck ? { endCheck: (nowMs: number) => o.endCheck!(nowMs) } : {}),
    ...(o.flush ? { flush: (nowMs: number) => o.flush!(nowMs) } : {}),
  };
}
