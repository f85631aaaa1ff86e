// Files under a hostile or broken world (issue 8): torn log lines, short writes, temp files left by
// failures, symlinks inside the state dir, and the umask.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { appendLine, appendLines, createFileExclusive, guardStateDir, removeStaleTemps, writeFileAtomic } from '../../src/files/atomic-write.js';
import { DispatchLog, readDispatchLog } from '../../src/journal/dispatch-log.js';
import { acquireLock } from '../../src/journal/lock.js';
import { StatePaths } from '../../src/files/paths.js';
import { readProcessIdentity } from '../../src/sys/proc-identity.js';
import { isRunning, spawnFixture } from '../helpers/spawn-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runMain } from '../helpers/in-process-cli.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const mode = (p: string) => statSync(p).mode & 0o777;

describe('log lines after a torn last line', () => {
  it('a fragment left by a crash gets its newline back: the next event is readable, the fragment reported once', async () => {
    const dir = tempDir();
    const paths = new StatePaths(dir);
    const file = paths.dispatchLog('2026-04-02');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      '{"timestamp_utc":"2026-04-02T09:00:00Z","event":"healthy","epic_id":"E-1","run_id":"r","ticket_id":"P-1","task_id":"t1","agent_id":"t1","idle_seconds":1}\n{"timestamp_utc":"2026-04-02T09:',
    );
    await new DispatchLog(paths, 'E-1', 'r2', () => T0).append({ event: 'watchdog_stopped', reason: 'signal' });
    expect(readFileSync(file, 'utf8').split('\n').slice(1)).toEqual(['{"timestamp_utc":"2026-04-02T09:', expect.stringContaining('"watchdog_stopped"'), '']);
    const read = await readDispatchLog(paths);
    expect(read.events.map((e) => e.event)).toEqual(['healthy', 'watchdog_stopped']);
    expect(read.diagnostics).toEqual([expect.objectContaining({ line: 2 })]);
  });

  it('a short write (a full disk) is closed with a newline and reported; the next append is a whole line', async () => {
    const file = path.join(tempDir(), 'log.ndjson');
    const short = async (h: import('node:fs/promises').FileHandle, data: Buffer) => (await h.write(data, 0, 7)).bytesWritten;
    await expect(appendLines(file, ['{"n":1}', '{"n":2}'], { write: short })).rejects.toMatchObject({ code: 'ENOSPC' });
    await appendLine(file, '{"n":3}');
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":3}\n');
  });
});

describe('a derived file written as lines, a few hundred KB per write', () => {
  const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ path: `/p/agent-${i}.jsonl`, state: 'x'.repeat(300 + (i % 7)) }));
  const whole = lines.join('\n') + '\n';

  it('appends the same bytes as one write, in several writes of whole lines; a short one is closed and reported', async () => {
    const file = path.join(tempDir(), 'transcripts.json');
    const sizes: number[] = [];
    const counted = async (h: import('node:fs/promises').FileHandle, data: Buffer) => (
      sizes.push(data.length), (await h.write(data, 0, data.length)).bytesWritten
    );
    writeFileSync(file, '{"torn":');
    await appendLines(file, lines, { sync: false, isChunked: true, write: counted });
    expect(readFileSync(file, 'utf8')).toBe('{"torn":\n' + whole);
    expect(sizes.length).toBeGreaterThan(1);
    // Every write ends at a line's end.
    let at = '{"torn":'.length;
    for (const n of sizes) {
      at += n;
      expect(
        readFileSync(file)
          .subarray(at - 1, at)
          .toString(),
      ).toBe('\n');
    }
    const fresh = path.join(tempDir(), 'transcripts.json');
    let writes = 0;
    const fullDisk = async (h: import('node:fs/promises').FileHandle, data: Buffer) =>
      ++writes === 2 ? (await h.write(data, 0, 10)).bytesWritten : (await h.write(data, 0, data.length)).bytesWritten;
    await expect(appendLines(fresh, lines, { sync: false, isChunked: true, write: fullDisk })).rejects.toMatchObject({ code: 'ENOSPC' });
    // The first write's lines are whole; the second's fragment is closed; nothing after it was written.
    const got = readFileSync(fresh, 'utf8').split('\n');
    expect(got.at(-1)).toBe('');
    expect(got.at(-2)).toHaveLength(10);
    expect(got.slice(0, -2)).toEqual(lines.slice(0, got.length - 2));
  });

  it('replaces a file with exactly the joined lines', async () => {
    const file = path.join(tempDir(), 'transcripts.json');
    writeFileSync(file, 'old\n');
    await writeFileAtomic(file, { lines });
    expect(readFileSync(file, 'utf8')).toBe(whole);
    await writeFileAtomic(file, { lines: [] });
    expect(readFileSync(file, 'utf8')).toBe('');
  });
});

describe('temp files', () => {
  it('a write that fails leaves no temp file behind (watchdog.json, markers)', async () => {
    const dir = tempDir();
    const bad = Symbol('not data') as unknown as string;
    await expect(writeFileAtomic(path.join(dir, 'watchdog.json'), bad)).rejects.toThrow();
    await expect(createFileExclusive(path.join(dir, 'note.md'), bad)).rejects.toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("temp files of a killed writer are removed at the next start, a live writer's and a fresh one are kept", async () => {
    const dir = tempDir();
    const dead = await spawnFixture('sleep-forever.mjs');
    dead.child.kill('SIGKILL');
    await dead.exited;
    const old = (name: string) => {
      writeFileSync(path.join(dir, name), '');
      utimesSync(path.join(dir, name), new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    };
    old(`.watchdog.json.${dead.pid}.0123abcd.tmp`);
    old(`note.md.${dead.pid}.0123abcd.tmp`);
    old(`.watchdog.json.${process.pid}.0123abcd.tmp`);
    old('.notes.tmp'); // not named like ours
    writeFileSync(path.join(dir, `.state.yaml.${dead.pid}.0123abcd.tmp`), ''); // within the grace: another pid namespace may be writing it
    expect(await removeStaleTemps(dir, isRunning)).toBe(2);
    expect(readdirSync(dir).sort()).toEqual([`.notes.tmp`, `.state.yaml.${dead.pid}.0123abcd.tmp`, `.watchdog.json.${process.pid}.0123abcd.tmp`]);
  });

  it('a watchdog start sweeps the temp files a kill -9 left in launches/, agents/, pipeline_checkpoints/ and observe/', async () => {
    const dir = tempDir();
    const dead = await spawnFixture('sleep-forever.mjs');
    dead.child.kill('SIGKILL');
    await dead.exited;
    const left = [
      `epics/E-1/launches/.E-1__t1__redispatch.redispatch.json.${dead.pid}.0123abcd.tmp`,
      `epics/E-1/agents/.t1-r1.prompt.md.${dead.pid}.0123abcd.tmp`,
      `epics/E-1/commands/.E-1__t1__cancel.cancel.json.${dead.pid}.0123abcd.tmp`,
      `epics/E-1/acks/.E-1__t1__cancel.ack.json.${dead.pid}.0123abcd.tmp`,
      `pipeline_checkpoints/P-1/.recovery-1.yaml.${dead.pid}.0123abcd.tmp`,
      `observe/.transcripts.json.${dead.pid}.0123abcd.tmp`,
      `observe/history/.E-1.json.${dead.pid}.0123abcd.tmp`,
    ];
    const recent = new Date(Date.now() - 5_000).toISOString();
    mkdirSync(path.join(dir, 'epics', 'E-1'), { recursive: true });
    writeFileSync(
      path.join(dir, 'epics', 'E-1', 'state.yaml'),
      `current_wave:\n  dispatched_at: "${recent}"\n  tasks:\n    - { task_id: t1, ticket_id: P-1, status: merged }\n`,
    );
    const at = new Date(Date.now() - 60_000);
    utimesSync(path.join(dir, 'epics', 'E-1', 'state.yaml'), at, at);
    for (const f of left) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      writeFileSync(path.join(dir, f), 'partial');
      utimesSync(path.join(dir, f), new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    }
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once']);
    expect(r.code).toBe(0);
    expect(left.filter((f) => existsSync(path.join(dir, f)))).toEqual([]);
  });
});

describe('symlinks inside the state dir', () => {
  it('are never written through: a linked log directory, a linked log file, a linked requests directory', async () => {
    const dir = tempDir();
    const outside = tempDir('dw-outside-');
    const paths = new StatePaths(dir);
    guardStateDir(dir);
    symlinkSync(outside, paths.dispatchLogDir());
    const log = new DispatchLog(paths, 'E-1', 'r', () => T0);
    await expect(log.append({ event: 'watchdog_stopped', reason: 'signal' })).rejects.toMatchObject({ code: 'ELOOP' });

    const dir2 = tempDir();
    const paths2 = new StatePaths(dir2);
    guardStateDir(dir2);
    mkdirSync(paths2.dispatchLogDir());
    const target = path.join(outside, 'target.ndjson');
    writeFileSync(target, '');
    symlinkSync(target, paths2.dispatchLog('2026-04-02'));
    await expect(new DispatchLog(paths2, 'E-1', 'r', () => T0).append({ event: 'watchdog_stopped', reason: 'signal' })).rejects.toMatchObject({
      code: 'ELOOP',
    });

    mkdirSync(paths.epicDir('E-1'), { recursive: true });
    symlinkSync(outside, paths.requestsDir('E-1'));
    await expect(createFileExclusive(path.join(paths.requestsDir('E-1'), 'k.cancel.json'), '{}')).rejects.toMatchObject({ code: 'ELOOP' });
    expect(readdirSync(outside)).toEqual(['target.ndjson']);
    expect(readFileSync(target, 'utf8')).toBe('');
  });

  it('are refused once the shell guards the state dir, not because its paths were computed', async () => {
    const dir = tempDir();
    const outside = tempDir('dw-outside-');
    const paths = new StatePaths(dir);
    mkdirSync(paths.epicDir('E-1'), { recursive: true });
    symlinkSync(outside, paths.requestsDir('E-1'));
    // new StatePaths() registers nothing process-wide: the path is only arithmetic.
    await writeFileAtomic(path.join(paths.requestsDir('E-1'), 'a.json'), '{}');
    expect(readdirSync(outside)).toEqual(['a.json']);
    guardStateDir(dir);
    await expect(writeFileAtomic(path.join(paths.requestsDir('E-1'), 'b.json'), '{}')).rejects.toMatchObject({ code: 'ELOOP' });
    expect(readdirSync(outside)).toEqual(['a.json']);
  });
});

describe('file modes', () => {
  it('files are 0600 and directories 0700 whatever the umask', async () => {
    const old = process.umask(0o000);
    onTestFinished(() => void process.umask(old));
    const dir = tempDir();
    const paths = new StatePaths(dir);
    await new DispatchLog(paths, 'E-1', 'r', () => T0).append({ event: 'watchdog_stopped', reason: 'signal' });
    await writeFileAtomic(paths.watchdogJson('E-1'), '{}');
    await createFileExclusive(path.join(paths.requestsDir('E-1'), 'k.cancel.json'), '{}');
    const lock = await acquireLock(paths.lockFile('E-1'), { pid: process.pid, run_id: 'r', started_at: '2026-04-02T10:00:00Z' }, 'E-1');
    for (const f of [paths.dispatchLog('2026-04-02'), paths.watchdogJson('E-1'), path.join(paths.requestsDir('E-1'), 'k.cancel.json'), paths.lockFile('E-1')]) {
      expect([f, mode(f).toString(8)]).toEqual([f, '600']);
    }
    for (const d of [paths.dispatchLogDir(), paths.epicDir('E-1'), paths.requestsDir('E-1')]) expect([d, mode(d).toString(8)]).toEqual([d, '700']);
    await lock.release();
    expect(existsSync(paths.lockFile('E-1'))).toBe(false);
    expect(lstatSync(dir).isDirectory()).toBe(true);
  });
});

describe('a stale lock', () => {
  const info = { pid: process.pid, run_id: 'me', started_at: '2026-04-02T10:00:00Z' };
  const lockAt = (dir: string, body: object) => {
    const paths = new StatePaths(dir);
    mkdirSync(paths.epicDir('E-1'), { recursive: true });
    writeFileSync(paths.lockFile('E-1'), JSON.stringify(body) + '\n');
    return paths.lockFile('E-1');
  };

  it('whose pid now belongs to another process (other start time) is taken over', async () => {
    const other = await spawnFixture('sleep-forever.mjs');
    const live = (await readProcessIdentity(other.pid))!;
    const file = lockAt(tempDir(), {
      pid: other.pid,
      run_id: 'old',
      started_at: '2026-04-01T00:00:00Z',
      start_ticks: live.startTicks - 1,
      boot_id: live.bootId,
    });
    const lock = await acquireLock(file, info, 'E-1');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, run_id: 'me', start_ticks: expect.any(Number) });
    await lock.release();
    expect(isRunning(other.pid)).toBe(true);
  });

  it('held by the live watchdog that wrote it is refused (exit 2), naming the holder', async () => {
    const holder = await spawnFixture('sleep-forever.mjs');
    const live = (await readProcessIdentity(holder.pid))!;
    const file = lockAt(tempDir(), { pid: holder.pid, run_id: 'old', started_at: '2026-04-01T00:00:00Z', start_ticks: live.startTicks, boot_id: live.bootId });
    await expect(acquireLock(file, info, 'E-1')).rejects.toMatchObject({ code: 'lock_held', message: expect.stringContaining(`pid ${holder.pid}`) });
  });
});

describe('the hook', () => {
  it('never writes activity through a symlinked activity/ directory', async () => {
    const { runHookPayload } = await import('../../src/commands/hook.js');
    const payload = { hook_event_name: 'PreToolUse', session_id: 's1', tool_name: 'Bash', tool_input: { command: 'ls' } };
    expect((await runHookPayload(payload, { stateDir: tempDir(), nowMs: T0 })).isWritten).toBe(true); // the same payload, no link: written
    const dir = tempDir();
    const outside = tempDir('dw-outside-');
    symlinkSync(outside, path.join(dir, 'activity'));
    const r = await runHookPayload(
      { hook_event_name: 'PreToolUse', session_id: 's1', tool_name: 'Bash', tool_input: { command: 'ls' } },
      { stateDir: dir, nowMs: T0 },
    );
    expect(r.isWritten).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
  });
});
