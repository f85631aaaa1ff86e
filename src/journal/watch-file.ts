// Wake the loop early when the orchestrator rewrites the state file (DESIGN §12): a task that
// finished or a replacement that appeared is seen at once, not at the next deadline.
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export interface FileWaker {
  /** A signal that aborts on the next change of the file (a fresh one per sleep). */
  next(): AbortSignal;
  close(): void;
}

/** Watch the directory of `file` (renames replace the file itself); never throws. */
export function wakeOnChange(file: string): FileWaker {
  let controller = new AbortController();
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
      if (name === null || name === path.basename(file)) controller.abort();
    });
    watcher.on('error', () => watcher?.close());
  } catch {
    watcher = undefined; // no directory yet, or no watch support: deadlines and the interval still apply
  }
  return {
    next() {
      if (controller.signal.aborted) controller = new AbortController();
      return controller.signal;
    },
    close: () => watcher?.close(),
  };
}
