// The hook's append: the same line discipline as atomic-write.ts appendLines (one write() on an
// O_APPEND descriptor, private modes, never through a symlink, a torn last line closed first)
// but with synchronous calls and no fsync. A hook process does one append and exits, and the
// async version would start libuv's thread pool and wait on it for each call, a few
// milliseconds on every tool call. Node built-ins only (fs, path), so the hook starts fast.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { InternalError } from '../contracts/errors.js';

const { O_RDWR, O_CREAT, O_APPEND, O_NOFOLLOW } = constants;

/** Same modes as atomic-write.ts FILE_MODE / DIR_MODE (a test keeps them equal). */
export const SYNC_FILE_MODE = 0o600;
export const SYNC_DIR_MODE = 0o700;

/**
 * Append `line` + "\n" to `file` with one write(), creating its directory (0700) if needed.
 * Throws (ELOOP) when a directory between `root` and the file is a symlink, as ensureDir does
 * for a guarded root; ENOSPC on a short write, after closing the torn line with "\n" (`write`:
 * the one write(), which tests replace with a short one, as on a full disk).
 */
export function appendLineSync(file: string, line: string, root: string, opts: { write?: (fd: number, data: Buffer) => number } = {}): void {
  if (line.includes('\n')) throw new InternalError('appendLine: a line must not contain a newline');
  const dir = path.resolve(path.dirname(file));
  mkdirSync(dir, { recursive: true, mode: SYNC_DIR_MODE });
  const rel = path.relative(path.resolve(root), dir);
  if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) {
    let p = path.resolve(root);
    for (const part of rel.split(path.sep)) {
      p = path.join(p, part);
      if (lstatSync(p).isSymbolicLink()) {
        const e: NodeJS.ErrnoException = new Error(
          `refusing to write through the symlink ${p}: every file the watchdog writes stays inside the state dir. Replace the link with a directory.`,
        );
        e.code = 'ELOOP';
        e.path = p;
        throw e;
      }
    }
  }
  const fd = openSync(file, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW, SYNC_FILE_MODE);
  try {
    const { size } = fstatSync(fd);
    let restore = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) restore = '\n';
    }
    const data = Buffer.from(restore + line + '\n');
    const written = opts.write ? opts.write(fd, data) : writeSync(fd, data, 0, data.length);
    if (written < data.length) {
      try {
        writeSync(fd, '\n');
      } catch {
        // the disk is full: the reader skips the torn line either way
      }
      const e: NodeJS.ErrnoException = new Error(
        `short write to ${file}: ${written} of ${data.length} bytes (disk full?); the torn line was closed with a newline`,
      );
      e.code = 'ENOSPC';
      e.syscall = 'write';
      throw e;
    }
  } finally {
    closeSync(fd);
  }
}
