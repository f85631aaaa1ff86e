// Crash-safe file writes: temp file + fsync + rename + directory fsync (DESIGN §2), and
// single-write() appends of complete lines. Everything we create is private (0600 files, 0700
// directories, whatever the umask), never written through a symlink, and no temp file outlives
// a failure.
import { randomBytes } from 'node:crypto';
import { promises as fs, constants } from 'node:fs';
import path from 'node:path';
import { InternalError } from '../contracts/errors.js';
import { STATE_DIR_LAYOUT, type StatePaths } from './paths.js';

/** Files we create: owner read/write only. */
export const FILE_MODE = 0o600;
/** Directories we create: owner only. */
export const DIR_MODE = 0o700;

const { O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW } = constants;

/** State dirs under which no directory we write into may be a symlink. */
const guardedRoots = new Set<string>();

/**
 * From now on, refuse symlinked directories between `stateDir` and any file written under it
 * (DESIGN §2: no path outside the state dir). For the whole process: called by the shell where
 * a process takes a state dir as its own (the watch, next, recover, ack), never as a side effect
 * of computing paths (`new StatePaths()`).
 */
export function guardStateDir(stateDir: string): void {
  guardedRoots.add(path.resolve(stateDir));
}

/** The error for a write that would leave the state dir through a symlink. */
function symlinkRefused(p: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(
    `refusing to write through the symlink ${p}: every file the watchdog writes stays inside the state dir. Replace the link with a directory.`,
  );
  e.code = 'ELOOP';
  e.path = p;
  return e;
}

/** mkdir -p with mode 0700, then check that no directory under a guarded root is a symlink. */
export async function ensureDir(dir: string): Promise<void> {
  const abs = path.resolve(dir);
  await fs.mkdir(abs, { recursive: true, mode: DIR_MODE });
  for (const root of guardedRoots) {
    const rel = path.relative(root, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
    let p = root;
    for (const part of rel.split(path.sep)) {
      p = path.join(p, part);
      if ((await fs.lstat(p)).isSymbolicLink()) throw symlinkRefused(p);
    }
  }
}

/** A fresh temp file beside `file`, created exclusively (never through a symlink) with `mode`. */
async function createTemp(file: string, mode: number): Promise<{ tmp: string; handle: fs.FileHandle }> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await fs.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  return { tmp, handle };
}

/**
 * Lines to write as a file (each followed by "\n"), a few hundred KB per write(): a derived file
 * of 20 MB (the saved positions of 10,000 agents) is never one string and one buffer of its size.
 */
export interface FileLines {
  /** Made as they are written when a generator (one chunk's lines in memory at a time). */
  lines: Iterable<string>;
}

/** Bytes of lines joined per write() when a file is written or appended as lines. */
const LINES_CHUNK_BYTES = 512 * 1024;

/** Write `lines` to `h`, each followed by "\n", in writes of about LINES_CHUNK_BYTES; the bytes written. */
async function writeLineChunks(
  h: fs.FileHandle,
  lines: Iterable<string>,
  write: (handle: fs.FileHandle, data: Buffer) => Promise<number>,
  head = '',
): Promise<{ written: number; total: number }> {
  let written = 0;
  let total = 0;
  let chunk: string[] = [];
  let chars = 0;
  const flush = async () => {
    const data = Buffer.from((total === 0 ? head : '') + chunk.join('\n') + '\n');
    chunk = [];
    chars = 0;
    total += data.length;
    const n = await write(h, data);
    written += n;
    return n === data.length;
  };
  for (const line of lines) {
    if (line.includes('\n')) throw new InternalError('a line must not contain a newline');
    chunk.push(line);
    chars += line.length + 1;
    if (chars >= LINES_CHUNK_BYTES && !(await flush())) return { written, total };
  }
  if (chunk.length > 0) await flush();
  return { written, total };
}

/** Write, fsync and close a temp file; on any failure the temp file is removed. */
async function writeTemp(file: string, data: string | Uint8Array | FileLines, mode: number): Promise<string> {
  const { tmp, handle } = await createTemp(file, mode);
  try {
    try {
      await handle.chmod(mode); // the umask may have taken bits the caller asked for
      if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
      else {
        const { written, total } = await writeLineChunks(handle, data.lines, writeOnce);
        if (written < total)
          throw Object.assign(new Error(`short write to ${tmp}: ${written} of ${total} bytes (disk full?)`), { code: 'ENOSPC', syscall: 'write' });
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
  return tmp;
}

/** Replace `file` with `data` so a reader sees the old or the new content, never a mix. @defaultValue mode 0600 */
export async function writeFileAtomic(file: string, data: string | Uint8Array | FileLines, opts: { mode?: number } = {}): Promise<void> {
  const dir = path.dirname(file);
  await ensureDir(dir);
  const tmp = await writeTemp(file, data, opts.mode ?? FILE_MODE);
  try {
    // rename() replaces a symlink at `file` itself; it never writes through it.
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
  await fsyncDir(dir);
}

/** Create `file` only if it does not exist yet (the marker of an idempotent step); false if it did. */
export async function createFileExclusive(file: string, data: string): Promise<boolean> {
  await ensureDir(path.dirname(file));
  const tmp = await writeTemp(file, data, FILE_MODE);
  try {
    // link() fails with EEXIST when the target exists (a symlink too): atomic create-if-absent of a complete file.
    await fs.link(tmp, file);
    await fsyncDir(path.dirname(file));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

/** fsync a directory so a rename or create in it survives a power loss. */
export async function fsyncDir(dir: string): Promise<void> {
  let h: fs.FileHandle | undefined;
  try {
    h = await fs.open(dir, constants.O_RDONLY);
    await h.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    await h?.close();
  }
}

/** Append one complete line with a single write() on an O_APPEND descriptor, then fsync. */
export async function appendLine(file: string, line: string, opts: AppendOptions = {}): Promise<void> {
  await appendLines(file, [line], opts);
}

export interface AppendOptions {
  /** fsync after the write. @defaultValue true */
  sync?: boolean;
  /**
   * Whole lines in writes of a few hundred KB instead of one write: for a derived file only (a
   * crash between two writes leaves whole lines, and its readers take what is there).
   */
  isChunked?: boolean;
  /** The one write() (tests inject a short write, as on a full disk); resolves with the bytes written. */
  write?: (handle: fs.FileHandle, data: Buffer) => Promise<number>;
}

const writeOnce = async (h: fs.FileHandle, data: Buffer) => (await h.write(data, 0, data.length)).bytesWritten;

/**
 * Append complete lines with one write() and one fsync for all of them (a check's log lines).
 * A file whose last line was torn (a crash, a short write on a full disk) first gets its final
 * "\n" back, so the fragment stays one bad line that readers skip, never glued to ours. A short
 * write of our own is closed with "\n" the same way and reported as an error (ENOSPC).
 */
export async function appendLines(file: string, lines: Iterable<string>, opts: AppendOptions = {}): Promise<void> {
  // One write: every line checked before anything is written. Chunked: each line as it is written.
  const whole = opts.isChunked ? undefined : Array.isArray(lines) ? (lines as readonly string[]) : [...lines];
  if (whole?.length === 0) return;
  if (whole?.some((l) => l.includes('\n'))) throw new InternalError('appendLine: a line must not contain a newline');
  await ensureDir(path.dirname(file));
  const h = await fs.open(file, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW, FILE_MODE);
  try {
    const restore = (await endsTorn(h)) ? '\n' : '';
    const write = opts.write ?? writeOnce;
    let written: number;
    let total: number;
    if (!whole) ({ written, total } = await writeLineChunks(h, lines, write, restore));
    else {
      const data = Buffer.from(restore + whole.join('\n') + '\n');
      [written, total] = [await write(h, data), data.length];
    }
    if (written < total) {
      await h.write('\n').catch(() => undefined);
      const e: NodeJS.ErrnoException = new Error(`short write to ${file}: ${written} of ${total} bytes (disk full?); the torn line was closed with a newline`);
      e.code = 'ENOSPC';
      e.syscall = 'write';
      throw e;
    }
    if (opts.sync !== false) await h.sync();
  } finally {
    await h.close();
  }
}

/** The file is not empty and its last byte is not "\n". */
async function endsTorn(h: fs.FileHandle): Promise<boolean> {
  const { size } = await h.stat();
  if (size === 0) return false;
  const b = Buffer.alloc(1);
  await h.read(b, 0, 1, size - 1);
  return b[0] !== 0x0a;
}

/**
 * Read a file the watchdog wrote itself, never through a symlink at its place (a request file
 * replaced by a link to another file must not print that file): ELOOP then, like a symlinked write.
 */
export async function readOwnFile(file: string): Promise<string> {
  const h = await fs.open(file, constants.O_RDONLY | O_NOFOLLOW);
  try {
    return await h.readFile('utf8');
  } finally {
    await h.close();
  }
}

/** Our temp files: `.<name>.<pid>.<hex>.tmp` (and `<name>.<pid>.<hex>.tmp` from older versions). */
const TEMP_NAME = /^\.?.+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** A temp file younger than this is never swept, whatever its pid says (a writer in another pid namespace looks dead). @defaultValue 60000 */
export const TEMP_GRACE_MS = 60_000;

/**
 * Remove temp files in `dir` whose writer is gone (a SIGKILL between creating and renaming one)
 * and that are older than `graceMs`; a live writer's, and anything not named like ours, are left
 * alone. Returns how many were removed.
 */
export async function removeStaleTemps(dir: string, isAlive: (pid: number) => boolean, opts: { nowMs?: number; graceMs?: number } = {}): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  const cutoffMs = (opts.nowMs ?? Date.now()) - (opts.graceMs ?? TEMP_GRACE_MS);
  let removed = 0;
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m || isAlive(Number(m[1]))) continue;
    const file = path.join(dir, name);
    const st = await fs.lstat(file).catch(() => undefined);
    if (!st?.isFile() || st.mtimeMs > cutoffMs) continue;
    await fs.rm(file, { force: true });
    removed++;
  }
  return removed;
}

/**
 * Every folder of the state dir an epic's watchdog may have left temp files in, as
 * STATE_DIR_LAYOUT says (`temps`): the epic's own entries in its folder, the shared ones at the
 * root, and the folders below those written `inside_and_below` (observe/history, each ticket's
 * checkpoint folder).
 */
export async function tempFileDirs(paths: StatePaths, epicId: string): Promise<string[]> {
  const dirs = new Set<string>();
  for (const e of STATE_DIR_LAYOUT) {
    if (!e.temps || e.name.endsWith('*')) continue;
    const at = path.join(e.in === 'epic' ? paths.epicDir(epicId) : paths.root, e.name);
    if (e.temps === 'beside') dirs.add(path.dirname(at));
    else dirs.add(at);
    if (e.temps !== 'inside_and_below') continue;
    const below = await fs.readdir(at, { withFileTypes: true }).catch(() => []);
    for (const d of below) if (d.isDirectory()) dirs.add(path.join(at, d.name));
  }
  return [...dirs];
}
