// The hook's fast path on real files and descriptors: the synchronous append keeps the line
// discipline of atomic-write.ts (modes, symlinks, torn lines, short writes), stdin read from a
// descriptor loses nothing (a non-blocking one is handed to a stream), and the built entries
// (the CommonJS bundle, installed; the ES module) write a whole payload at once and never hang.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { isOurHookCommand } from '../../src/commands/hook-settings.js';
import { readStdinFd } from '../../src/commands/hook-stdin.js';
import { appendLineSync, SYNC_DIR_MODE, SYNC_FILE_MODE } from '../../src/files/append-line-sync.js';
import { DIR_MODE, FILE_MODE } from '../../src/files/atomic-write.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

describe('appendLineSync', () => {
  it('creates activity/ 0700 and the file 0600 whatever the umask, the same modes as atomic-write', () => {
    expect([SYNC_FILE_MODE, SYNC_DIR_MODE]).toEqual([FILE_MODE, DIR_MODE]);
    const old = process.umask(0o000);
    onTestFinished(() => void process.umask(old));
    const root = tempDir();
    const file = path.join(root, 'activity', 'a1.ndjson');
    appendLineSync(file, '{"n":1}', root);
    appendLineSync(file, '{"n":2}', root);
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    expect([mode(path.dirname(file)), mode(file)]).toEqual(['700', '600']);
  });

  it('gives a torn last line its newline back before appending', () => {
    const root = tempDir();
    const file = path.join(root, 'activity', 'a1.ndjson');
    mkdirSync(path.dirname(file));
    writeFileSync(file, '{"n":1}\n{"n":');
    appendLineSync(file, '{"n":3}', root);
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":\n{"n":3}\n');
  });

  it('closes a short write (a full disk) with a newline and reports ENOSPC; the next line is whole', () => {
    const root = tempDir();
    const file = path.join(root, 'activity', 'a1.ndjson');
    expect(() => appendLineSync(file, '{"n":1,"pad":"xxxx"}', root, { write: (fd, data) => writeSync(fd, data, 0, 7) })).toThrow(
      expect.objectContaining({ code: 'ENOSPC' }),
    );
    appendLineSync(file, '{"n":2}', root);
    expect(readFileSync(file, 'utf8')).toBe('{"n":1,\n{"n":2}\n');
  });

  it('never writes through a symlinked directory under the root, nor a line with a newline inside', () => {
    const root = tempDir();
    const outside = tempDir('dw-outside-');
    symlinkSync(outside, path.join(root, 'activity'));
    expect(() => appendLineSync(path.join(root, 'activity', 'a1.ndjson'), '{}', root)).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(readdirSync(outside)).toEqual([]);
    expect(() => appendLineSync(path.join(tempDir(), 'x.ndjson'), 'a\nb', root)).toThrow('must not contain a newline');
  });
});

describe('readStdinFd', () => {
  it('reads a descriptor to its end, and keeps only the head and tail past the cap', async () => {
    const dir = tempDir();
    const small = path.join(dir, 'small.json');
    writeFileSync(small, '{"hook_event_name":"Stop"}');
    const fd = openSync(small, 'r');
    onTestFinished(() => closeSync(fd));
    expect(await readStdinFd(fd, 5000, () => process.stdin)).toEqual({
      text: '{"hook_event_name":"Stop"}',
      isCut: false,
      tail: '',
      isEnded: true,
      payload: { hook_event_name: 'Stop' },
    });

    const big = path.join(dir, 'big.json');
    writeFileSync(big, 'h'.repeat(100_000) + 'x'.repeat(200_000) + 't'.repeat(100_000));
    const bigFd = openSync(big, 'r');
    onTestFinished(() => closeSync(bigFd));
    const got = await readStdinFd(bigFd, 5000, () => process.stdin, 150_000);
    expect([got.isCut, got.isEnded, got.text, got.tail]).toEqual([true, true, 'h'.repeat(64 * 1024), 't'.repeat(64 * 1024)]);
  });

  it('hands a non-blocking descriptor (EAGAIN) over to a stream, losing nothing', async () => {
    const fifo = path.join(tempDir(), 'stdin.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(writer, '{"hook_event_name":');
    let stream: net.Socket | undefined;
    onTestFinished(() => void stream?.destroy());
    const reading = readStdinFd(reader, 5000, () => {
      stream = new net.Socket({ fd: reader, readable: true, writable: false });
      // The first bytes were read from the descriptor; the rest arrive on the stream.
      writeSync(writer, '"Stop"}');
      closeSync(writer);
      return stream;
    });
    expect(await reading).toEqual({ text: '{"hook_event_name":"Stop"}', isCut: false, tail: '', isEnded: true });
    expect(stream).toBeDefined();
  });
});

describe('the built fast entry', () => {
  const cjsEntry = path.join(REPO_ROOT, 'bundle', 'hook.cjs');
  const esmEntry = path.join(REPO_ROOT, 'dist', 'src', 'hook-entry.js');
  /** Run `entry` with `input` written to a stdin that is never closed. */
  const runOpen = (entry: string, input: string, state: string) => {
    const child = spawn(process.execPath, [entry, '--state-dir', state], { stdio: ['pipe', 'pipe', 'pipe'] });
    onTestFinished(() => void child.kill('SIGKILL'));
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.stdin.write(input); // and never end()
    const t0 = Date.now();
    return new Promise<{ code: number | null; signal: string | null; out: string; ms: number }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal, out, ms: Date.now() - t0 })),
    );
  };

  it('is what hook install and --print-settings pin: the CommonJS bundle (bundle/hook.cjs), the one hooks/hooks.json runs', async () => {
    const printed = await runCli(['hook', '--print-settings', '--state-dir', '/srv/state']);
    expect(printed.stdout).toContain(JSON.stringify(`node ${cjsEntry} --state-dir /srv/state`));
    expect(isOurHookCommand(`node ${cjsEntry} --state-dir /s`)).toBe(true);
  });

  it.each([
    { name: 'the CommonJS bundle (installed)', entry: cjsEntry },
    { name: 'ES module (older installs, the bin)', entry: esmEntry },
  ])('$name: a whole payload on a stdin that never closes is written and the entry exits 0 at once, silently', async ({ entry }) => {
    const state = tempDir();
    const r = await runOpen(entry, JSON.stringify({ hook_event_name: 'Stop', session_id: 'sess-9' }) + '\n', state);
    expect([r.code, r.out]).toEqual([0, '']);
    expect(r.ms).toBeLessThan(1900); // did not wait for the 2 s stdin timeout
    expect(JSON.parse(readFileSync(path.join(state, 'activity', 'sess-9.ndjson'), 'utf8'))).toMatchObject({ event: 'Stop', session_id: 'sess-9' });
  });

  it('a stdin that cannot be read (a directory) is no payload: exits 0 at once, silently, writing nothing', async () => {
    const state = tempDir();
    const dirFd = openSync(tempDir(), 'r');
    onTestFinished(() => closeSync(dirFd));
    const child = spawn(process.execPath, [cjsEntry, '--state-dir', state], { stdio: [dirFd, 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect([code, out]).toEqual([0, '']);
    expect(existsSync(path.join(state, 'activity'))).toBe(false);
  });

  it('half a payload on a stdin that never closes: ends itself after the 2 s stdin timeout, writing nothing', async () => {
    const state = tempDir();
    const r = await runOpen(cjsEntry, '{"hook_event_name":"Stop","sess', state);
    expect([r.signal, r.out]).toEqual(['SIGKILL', '']);
    expect(r.ms).toBeGreaterThanOrEqual(1900);
    expect(existsSync(path.join(state, 'activity'))).toBe(false);
  });
});
