// Wake the loop early when the orchestrator rewrites the state file (DESIGN §12): a task that
// finished or a replacement that appeared is seen at once, not at the next deadline.
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export interface FileWaker {
  /** A signal that aborts on the next change of the file, already aborted if one came since the last call. */
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
      // A change seen while the loop was busy (mid-check) wakes the next sleep at once; only
      // then is a fresh signal armed.
      const signal = controller.signal;
      if (signal.aborted) controller = new AbortController();
      return signal;
    },
    close: () => watcher?.close(),
  };
}
