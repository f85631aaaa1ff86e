// Crash-safe file writes: temp file + fsync + rename + directory fsync (DESIGN §2), and
// single-write() appends of complete lines.
import { randomBytes } from 'node:crypto';
import { promises as fs, constants } from 'node:fs';
import path from 'node:path';

/** Replace `file` with `data` so a reader sees the old or the new content, never a mix. */
export async function writeFileAtomic(file: string, data: string | Uint8Array, opts: { mode?: number } = {}): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await fs.open(tmp, 'w', opts.mode ?? 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
  await fsyncDir(dir);
}

/** Create `file` only if it does not exist yet (the marker of an idempotent step); false if it did. */
export async function createFileExclusive(file: string, data: string): Promise<boolean> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(tmp, data);
  const h = await fs.open(tmp, 'r');
  await h.sync();
  await h.close();
  try {
    // link() fails with EEXIST when the target exists: atomic create-if-absent of a complete file.
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
export async function appendLine(file: string, line: string, opts: { sync?: boolean } = {}): Promise<void> {
  await appendLines(file, [line], opts);
}

/** Append complete lines with one write() and one fsync for all of them (a check's log lines). */
export async function appendLines(file: string, lines: readonly string[], opts: { sync?: boolean } = {}): Promise<void> {
  if (lines.length === 0) return;
  if (lines.some((l) => l.includes('\n'))) throw new Error('appendLine: a line must not contain a newline');
  await fs.mkdir(path.dirname(file), { recursive: true });
  const h = await fs.open(file, 'a');
  try {
    await h.write(lines.join('\n') + '\n');
    if (opts.sync !== false) await h.sync();
  } finally {
    await h.close();
  }
}
