// The state file as one check reads it (DESIGN §3 "Reading under a live writer"): a cheap first
// read, and the confirming read taken once the file held still or was renamed whole over it.
import type { Wave } from './contracts/state-file.js';
import { InputError } from './contracts/errors.js';
import type { StatePaths } from './files/paths.js';
import { DEFAULT_SETTLE, fileSignature, waitForSettledFile, type SettleOptions } from './observe/read/settle.js';
import { stateFileReader } from './observe/read/state-file-reader.js';

export type ReadResult = { ok: true; wave: Wave } | { ok: false; error: InputError };

/** Read and parse epics/<id>/state.yaml (parsed again only when it changed); every problem is an InputError naming the file. */
export async function readWave(paths: StatePaths, epicId: string): Promise<Wave> {
  return stateFileReader.read(paths.stateFile(epicId), epicId);
}

export async function tryReadWave(paths: StatePaths, epicId: string): Promise<ReadResult> {
  try {
    return { ok: true, wave: await readWave(paths, epicId) };
  } catch (e) {
    if (e instanceof InputError) return { ok: false, error: e };
    throw e;
  }
}

/**
 * A read taken once the file held still (with `mustRest`, once its content is `restMs` old: a
 * watchdog with no earlier read to compare with), or of a file renamed whole over it, and still
 * the same file after it.
 */
export async function readSettled(paths: StatePaths, epicId: string, settle: SettleOptions = DEFAULT_SETTLE, mustRest = false): Promise<ReadResult> {
  const file = paths.stateFile(epicId);
  const maxWaitMs = mustRest ? settle.maxWaitMs + 2 * settle.restMs : settle.maxWaitMs;
  const deadline = Date.now() + maxWaitMs;
  for (;;) {
    const settled = await waitForSettledFile(file, { ...settle, maxWaitMs: Math.max(0, deadline - Date.now()) }, mustRest);
    if (settled !== undefined) {
      const r = await tryReadWave(paths, epicId);
      if ((await fileSignature(file)) === settled.signature) return r;
    }
    if (Date.now() >= deadline) {
      return {
        ok: false,
        error: new InputError('state_changing', `the state file kept changing for ${maxWaitMs} ms; nothing was judged or done this check.`, {
          location: { file },
          hint: 'This is normal while the orchestrator rewrites it; the watchdog checks again. Write it atomically (temp file + rename) to avoid the wait.',
        }),
      };
    }
  }
}
