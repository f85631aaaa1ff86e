// Reads epics/<id>/state.yaml and parses it only when it changed (DESIGN §12): a steady check
// costs one stat, not a YAML parse of the whole wave. Keyed by what stat says (device, inode,
// size, mtime, ctime); a file modified within RACY_MS of the last parse is parsed again, since a
// rewrite in the same timestamp tick would leave the stat unchanged (git's "racy clean" rule).
import { promises as fs, type Stats } from 'node:fs';
import { pseudoFileReason } from '../../files/pseudo-files.js';
import { parseStateFile, type Wave } from '../../contracts/state-file.js';
import { InputError } from '../../contracts/errors.js';

/** Largest state file we read; anything bigger is not a state file. */
export const MAX_STATE_FILE_BYTES = 16 * 1024 * 1024;

/** A file changed this recently (wall clock, ms) may change again unseen by stat: parse it again. */
const RACY_MS = 1000;

interface Cached {
  key: string;
  wave: Wave;
}

const statKey = (s: Stats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;

/** One reader per process is enough; entries are per file. */
export class StateFileReader {
  /** YAML parses done (for tests and benches). */
  parses = 0;
  private cache = new Map<string, Cached>();

  /** The wave in `file`, parsed again only if the file changed; every problem is an InputError naming the file. */
  async read(file: string, epicId: string): Promise<Wave> {
    let stat: Stats;
    try {
      stat = await fs.stat(file);
    } catch (e) {
      this.cache.delete(file);
      throw statError(e, file, epicId);
    }
    if (!stat.isFile()) {
      throw new InputError('unreadable_file', 'the state file is not a regular file.', {
        location: { file },
        hint: 'Point --epic-id at an epic whose state.yaml is a plain file.',
      });
    }
    if (stat.size > MAX_STATE_FILE_BYTES) {
      throw new InputError('unreadable_file', `state file is ${stat.size} bytes, over the ${MAX_STATE_FILE_BYTES}-byte limit.`, {
        location: { file },
        hint: 'Point --epic-id at the epic state file, not a log.',
      });
    }
    const key = statKey(stat);
    const hit = this.cache.get(file);
    if (hit && hit.key === key) return hit.wave;
    this.cache.delete(file);
    // Checked once the file changed (a link retargeted changes what stat sees): never read on every check.
    const pseudo = pseudoFileReason(file, stat.dev);
    if (pseudo)
      throw new InputError('unreadable_file', `${pseudo}.`, {
        location: { file },
        hint: "Make epics/<id>/state.yaml the orchestrator's own file (a plain file, not a link into /proc, /sys or /dev).",
      });
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (e) {
      throw statError(e, file, epicId);
    }
    this.parses++;
    const parsed = parseStateFile(text, file);
    if (!parsed.ok) throw parsed.error;
    // Cache only what stat can vouch for: the same size as read, and not modified just now.
    if (Buffer.byteLength(text) === stat.size && Date.now() - stat.mtimeMs > RACY_MS) this.cache.set(file, { key, wave: parsed.value });
    return parsed.value;
  }
}

function statError(e: unknown, file: string, epicId: string): InputError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    return new InputError('missing_file', `state file not found.`, {
      location: { file },
      hint: `Check --epic-id and --state-dir (or $ONEX_STATE_DIR); the orchestrator writes epics/${epicId}/state.yaml when it dispatches a wave.`,
    });
  }
  return new InputError('unreadable_file', `cannot read the state file (${code ?? String(e)}).`, { location: { file }, cause: e });
}

/** The process-wide reader the check and start-up recovery share (so start-up parses once). */
export const stateFileReader = new StateFileReader();
