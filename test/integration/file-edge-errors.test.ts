// Errors at the file edge (issue 16 item 5): a refusal the user can fix — a symlinked directory in
// the state dir, a symlinked day log, a read-only or foreign state dir, a full disk — is said as
// such with its fix and no stack, never as "internal error … a dispatch-watchdog bug".
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ActionError, InputError, InternalError, fileSystemErrorOf } from '../../src/contracts/errors.js';
import { appendLineSync } from '../../src/files/append-line-sync.js';
import { appendLines } from '../../src/files/atomic-write.js';
import { parseJsonText, removeMember } from '../../src/commands/json-text.js';
import { exitCodeFor } from '../../src/contracts/exit-codes.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const STATE = `current_wave:\n  wave_id: 1\n  dispatched_at: "2026-04-02T10:00:00Z"\n  tasks:\n    - task_id: t1\n      ticket_id: PROJ-1\n      status: in_progress\n      last_activity_ts: "2026-04-02T10:00:00Z"\n`;

function errno(code: string, message: string, at?: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code, ...(at ? { path: at } : {}) });
}

function expectUserFixable(r: { code: number; stderr: string }, text: RegExp): void {
  expect(r.stderr).toMatch(text);
  expect(r.stderr).not.toMatch(/internal error|dispatch-watchdog bug/);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.code).toBe(2);
}

describe('errors at the file edge', () => {
  it('a state dir whose epics/ is a symlink: exit 2, the link named with its fix, no stack', async () => {
    const dir = tempDir();
    await fs.mkdir(path.join(dir, 'elsewhere', 'E-1'), { recursive: true });
    await fs.writeFile(path.join(dir, 'elsewhere', 'E-1', 'state.yaml'), STATE);
    await fs.mkdir(path.join(dir, 'sd'));
    await fs.symlink(path.join(dir, 'elsewhere'), path.join(dir, 'sd', 'epics'));
    const r = await runCli(['--state-dir', path.join(dir, 'sd'), '--epic-id', 'E-1', '--once', '--now', '2026-04-02T10:01:00Z', '--action', 'report']);
    // --now writes nothing, so it may judge the wave; the writing run is the one that must refuse.
    expect(r.stderr).not.toMatch(/internal error/);
    const w = await runCli(['--state-dir', path.join(dir, 'sd'), '--epic-id', 'E-1', '--once', '--action', 'report']);
    expectUserFixable(w, /symlink .*sd\/epics.*Replace the link/s);
  });

  it('a symlinked dispatch-log dir: exit 2 naming the link, nothing written through it', async () => {
    const dir = tempDir();
    await fs.mkdir(path.join(dir, 'sd', 'epics', 'E-1'), { recursive: true });
    await fs.writeFile(path.join(dir, 'sd', 'epics', 'E-1', 'state.yaml'), STATE);
    await fs.mkdir(path.join(dir, 'logs'));
    await fs.symlink(path.join(dir, 'logs'), path.join(dir, 'sd', 'dispatch-log'));
    const r = await runCli(['--state-dir', path.join(dir, 'sd'), '--epic-id', 'E-1', '--once', '--action', 'report']);
    expectUserFixable(r, /symlink .*dispatch-log/);
    expect(await fs.readdir(path.join(dir, 'logs'))).toEqual([]);
  });

  it('maps each errno the user can fix, and leaves the rest to the bug path', () => {
    const link = fileSystemErrorOf(errno('ELOOP', 'ELOOP: too many symbolic links encountered', '/s/dispatch-log/2026-04-02.ndjson'));
    expect(link).toBeInstanceOf(InputError);
    expect(link?.describe()).toBe(
      'refusing to follow the symlink /s/dispatch-log/2026-04-02.ndjson: every file the watchdog writes stays inside the state dir. Replace the link with a real directory (or point --state-dir at the directory it links to).',
    );
    const ro = fileSystemErrorOf(errno('EROFS', 'EROFS: read-only file system', '/s/epics/E-1/watchdog.json'));
    expect(ro?.describe()).toBe(
      'read-only file system on /s/epics/E-1/watchdog.json (EROFS). Make it accessible to this user (the state dir must be writable), or point --state-dir (or ONEX_STATE_DIR) at a state dir that is.',
    );
    expect(fileSystemErrorOf(errno('EACCES', 'EACCES: permission denied', '/s/epics'))?.code).toBe('state_dir_unwritable');
    const full = fileSystemErrorOf(errno('ENOSPC', 'ENOSPC: no space left on device', '/s/dispatch-log/2026-04-02.ndjson'));
    expect(full).toBeInstanceOf(ActionError);
    expect((full as ActionError).isRetryable).toBe(true);
    expect(full?.describe()).toMatch(/^cannot write \/s\/dispatch-log\/2026-04-02\.ndjson: the disk is full \(ENOSPC\)\. Free some space/);
    // A pathless EPERM (a signal refused) and an unknown errno are not the user's file to fix.
    expect(fileSystemErrorOf(errno('EPERM', 'kill EPERM'))).toBeUndefined();
    expect(fileSystemErrorOf(errno('EIO', 'i/o error', '/s/x'))).toBeUndefined();
    expect(fileSystemErrorOf(new TypeError('x is undefined'))).toBeUndefined();
  });

  it('exit codes: a fixable refusal exits 2, a full disk 1, both without a stack; a bug keeps its stack', () => {
    const said: string[] = [];
    const out = { err: (t: string) => void said.push(t) };
    expect(exitCodeFor(errno('EACCES', 'EACCES: permission denied', '/s/epics/E-1/watchdog.lock'), out)).toBe(2);
    expect(exitCodeFor(errno('ENOSPC', 'ENOSPC', '/s/x'), out)).toBe(1);
    expect(said.join('')).not.toMatch(/internal error|^\s+at /m);
    said.length = 0;
    expect(exitCodeFor(new TypeError('x is undefined'), out)).toBe(1);
    expect(said.join('')).toMatch(/internal error: x is undefined/);
  });

  it('an invariant broken by our own code is an InternalError (exit 1 with the stack, to be reported)', async () => {
    const dir = tempDir();
    expect(() => appendLineSync(path.join(dir, 'a.ndjson'), 'two\nlines', dir)).toThrow(InternalError);
    await expect(appendLines(path.join(dir, 'b.ndjson'), ['two\nlines'])).rejects.toThrow(InternalError);
    expect(() => removeMember('1', parseJsonText('1'), 0)).toThrow(InternalError);
  });
});
