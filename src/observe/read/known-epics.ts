// The epics a state dir knows: every epics/<id>/ that holds a state file. For "did you mean"
// and for listing (a mistyped --epic-id must be an error, not a silent wait).
import { promises as fs } from 'node:fs';
import { isSafeId } from '../../contracts/ids.js';
import type { Clock } from '../../deps.js';
import { InputError } from '../../contracts/errors.js';
import { didYouMean } from '../../core/did-you-mean.js';
import type { StatePaths } from '../../files/paths.js';

/** How often a settle looks for the state file. @defaultValue 250 */
const SETTLE_POLL_MS = 250;

/** Epic ids with a state file, sorted. */
export async function knownEpicIds(paths: StatePaths): Promise<string[]> {
  const dir = paths.epicsDir();
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const out: string[] = [];
  for (const n of names.filter(isSafeId).sort()) {
    const isFile = await fs.stat(paths.stateFile(n)).then(
      (s) => s.isFile(),
      () => false,
    );
    if (isFile) out.push(n);
  }
  return out;
}

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    (e: NodeJS.ErrnoException) => e.code !== 'ENOENT',
  );

/** True once the epic's state file exists (anything there but ENOENT counts: the check reports it); false after `settleMs` without. `onWait`: called once, when the first look finds none. */
export async function stateFileAppears(
  paths: StatePaths,
  epicId: string,
  clock: Clock,
  signal: AbortSignal,
  settleMs: number,
  onWait?: () => void,
): Promise<boolean> {
  const file = paths.stateFile(epicId);
  const untilMs = clock.nowMs() + settleMs;
  let hasWaited = false;
  while (!(await exists(file))) {
    if (signal.aborted || clock.nowMs() >= untilMs) return false;
    if (!hasWaited) onWait?.();
    hasWaited = true;
    await clock.sleep(Math.min(SETTLE_POLL_MS, untilMs - clock.nowMs()), signal);
  }
  return true;
}

/** "state file not found", with the epic meant when one is close. */
export async function missingEpicError(paths: StatePaths, epicId: string): Promise<InputError> {
  const known = await knownEpicIds(paths);
  const guess = didYouMean(epicId, known);
  const others = guess
    ? `Did you mean --epic-id ${guess}? `
    : known.length
      ? `Epics here: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', …' : ''}. `
      : '';
  return new InputError('missing_file', 'state file not found.', {
    location: { file: paths.stateFile(epicId) },
    hint: `${others}Check --epic-id and --state-dir (or $ONEX_STATE_DIR); the orchestrator writes epics/${epicId}/state.yaml when it dispatches a wave.`,
  });
}
