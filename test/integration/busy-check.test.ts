// A busy wave (issue 37): most checks find hundreds of files that grew. What each changed file
// costs beyond its bytes is cut here, and each cut must keep the results exact.
import { appendFileSync, chmodSync, fstatSync, openSync, renameSync, statSync, unlinkSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscriptLine } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { emptyTranscriptState, isTranscriptState, type TranscriptState } from '../../src/agents/claude-code/parse/transcript-state.js';
import { PrefixIds } from '../../src/agents/claude-code/read/prefix-ids.js';
import { ChangeNotes } from '../../src/observe/read/change-notes.js';
import { OpenFiles } from '../../src/observe/read/open-files.js';
import { TailReader } from '../../src/observe/read/tail-file.js';
import { TailStore } from '../../src/observe/read/tail-store.js';
import { SAVE_MOVED_BYTES, TailTracker } from '../../src/observe/read/tail-tracker.js';
import { assistant, jsonl, ms, text } from '../helpers/claude-lines.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Change notes whose checks come fast (so directories are watched), on a clock the test moves. */
function watchedNotes() {
  const clock = { now: 0 };
  const notes = new ChangeNotes({ now: () => clock.now, trustMs: 60_000, watch: (d, listener) => watch(d, { persistent: false }, listener) });
  notes.beginCheck();
  clock.now = 10;
  notes.beginCheck();
  return notes;
}

/** One transcript with one record in a temp dir, read once by a tracker over `notes`. */
async function trackedFile(notes: ChangeNotes) {
  const dir = tempDir();
  const file = path.join(dir, 'agent-a1.jsonl');
  writeFileSync(file, jsonl(assistant(0, [text('first')])));
  const reader = new TailReader({}, notes);
  const t = new TailTracker<TranscriptState>(reader, { empty: emptyTranscriptState, line: parseTranscriptLine });
  const r0 = await t.read(file, ms(1));
  if (!r0.ok) throw new Error(r0.reason);
  return { dir, file, notes, reader, t, r0 };
}

describe('a file that change notification says was written', () => {
  it('is read with no stat and no open before it (the descriptor kept from its last read, and its fstat), and a touch that changed nothing reads nothing', async () => {
    const { file, notes, reader, t, r0 } = await trackedFile(watchedNotes());
    await notes.settle();
    t.beginCheck();
    // Untouched: vouched for by the notes, no stat.
    const stats = reader.stats;
    expect(t.peekHandle(r0.handle, ms(2))).toBe(r0.version);
    expect(reader.stats).toBe(stats);

    appendFileSync(file, jsonl(assistant(3, [text('second')])));
    await notes.settle();
    t.beginCheck();
    // Written: "changed" with no stat, then read with no stat either (the fstat is enough), through
    // the descriptor its last read kept open (issue 37): no open either.
    expect(t.peekHandle(r0.handle, ms(3))).toBeUndefined();
    const opens = reader.opens;
    const r1 = await t.read(file, ms(3));
    if (!r1.ok) throw new Error(r1.reason);
    expect(r1.state).toMatchObject({ records: 2, lastOutput: 'second' });
    expect(r1.version).not.toBe(r0.version);
    expect(reader.stats).toBe(stats);
    expect(reader.opens).toBe(opens);
    expect(reader.reads).toBe(2);
    // Even when the verdict needs a stat: a written file needs none to be read again.
    appendFileSync(file, jsonl(assistant(4, [text('third')])));
    await notes.settle();
    t.beginCheck();
    expect(t.peekHandle(r1.handle, ms(4), true)).toBeUndefined();
    expect(reader.stats).toBe(stats);
    const r2 = await t.read(file, ms(4));
    expect(r2.ok && r2.state.lastOutput).toBe('third');

    // Touched but not grown (its mode changed): opened, nothing read, the same version.
    await notes.settle();
    chmodSync(file, 0o640);
    await notes.settle();
    t.beginCheck();
    const bytes = reader.bytesRead;
    const r3 = await t.read(file, ms(5));
    if (!r2.ok || !r3.ok) throw new Error('read failed');
    expect(r3.version).toBe(r2.version);
    expect(r3.state.records).toBe(3);
    expect(reader.bytesRead).toBe(bytes);
    notes.close();
  });

  it('is stat-checked again once anything was created or renamed in its directory (then another file may stand at its path)', async () => {
    const { dir, file, notes, reader, t, r0 } = await trackedFile(watchedNotes());
    await notes.settle();
    appendFileSync(file, jsonl(assistant(3, [text('second')])));
    writeFileSync(path.join(dir, 'agent-a2.jsonl'), jsonl(assistant(3, [text('other')])));
    await notes.settle();
    expect(notes.isTouched(file)).toBe(false);
    t.beginCheck();
    const stats = reader.stats;
    expect(t.peekHandle(r0.handle, ms(3))).toBeUndefined();
    expect(reader.stats).toBe(stats + 1);
    // The read takes the stat that found it changed, and the descriptor that stat vouched for.
    const opens = reader.opens;
    const r1 = await t.read(file, ms(3));
    expect(r1.ok && r1.state.lastOutput).toBe('second');
    expect(reader.stats).toBe(stats + 1);
    expect(reader.opens).toBe(opens);
    notes.close();
    reader.open?.closeAll();
  });
});

describe('a file a stat found changed (its directory too busy for the notes to vouch)', () => {
  /** Make the notes unable to vouch for anything in `dir`: a file created there since. */
  let n = 0;
  const stir = (dir: string) => writeFileSync(path.join(dir, `other-${n++}.jsonl`), '');

  it('is read with that stat and, while the path names its inode, through the descriptor its last read kept: one stat and one read, no open, no fstat', async () => {
    const { dir, file, notes, reader, t, r0 } = await trackedFile(watchedNotes());
    await notes.settle();
    appendFileSync(file, jsonl(assistant(3, [text('second')])));
    stir(dir);
    await notes.settle();
    t.beginCheck();
    const [stats, opens] = [reader.stats, reader.opens];
    expect(t.peekHandle(r0.handle, ms(3))).toBeUndefined();
    const r1 = await t.read(file, ms(3));
    if (!r1.ok) throw new Error(r1.reason);
    expect(r1.state).toMatchObject({ records: 2, lastOutput: 'second' });
    expect([reader.stats - stats, reader.opens - opens]).toEqual([1, 0]);

    // Truncated and written shorter, on the same inode: read again from its start.
    writeFileSync(file, jsonl(assistant(4, [text('rewritten')])));
    stir(dir);
    await notes.settle();
    t.beginCheck();
    expect(t.peekHandle(r1.handle, ms(4))).toBeUndefined();
    const r2 = await t.read(file, ms(4));
    expect(r2.ok && r2.state).toMatchObject({ records: 1, lastOutput: 'rewritten' });
    expect([reader.stats - stats, reader.opens - opens]).toEqual([2, 0]);
    notes.close();
    reader.open?.closeAll();
  });

  it('is opened by its path when another file stands there (a rename over it): the new file is read, never the kept one', async () => {
    const { dir, file, notes, reader, t, r0 } = await trackedFile(watchedNotes());
    await notes.settle();
    const next = path.join(dir, 'agent-a1.jsonl.tmp');
    writeFileSync(next, jsonl(assistant(2, [text('replacement')])) + jsonl(assistant(3, [text('grown')])));
    renameSync(next, file);
    await notes.settle();
    t.beginCheck();
    const [stats, opens] = [reader.stats, reader.opens];
    expect(t.peekHandle(r0.handle, ms(3))).toBeUndefined();
    const r1 = await t.read(file, ms(3));
    expect(r1.ok && r1.state).toMatchObject({ records: 2, lastOutput: 'grown' });
    expect([reader.stats - stats, reader.opens - opens]).toEqual([1, 1]);
    notes.close();
    reader.open?.closeAll();
  });

  it('is stat-checked again when another read came between', async () => {
    const notes = watchedNotes();
    const a = await trackedFile(notes);
    const fileB = path.join(a.dir, 'agent-b1.jsonl');
    writeFileSync(fileB, jsonl(assistant(0, [text('b first')])));
    const b0 = await a.t.read(fileB, ms(1));
    if (!b0.ok) throw new Error(b0.reason);
    await notes.settle();
    appendFileSync(a.file, jsonl(assistant(3, [text('a second')])));
    appendFileSync(fileB, jsonl(assistant(3, [text('b second')])));
    stir(a.dir);
    await notes.settle();
    a.t.beginCheck();
    const stats = a.reader.stats;
    expect(a.t.peekHandle(a.r0.handle, ms(3))).toBeUndefined();
    // B is read first: A's read stats A again (the stat taken is only ever the last one, for the next read).
    const b1 = await a.t.read(fileB, ms(3));
    expect(b1.ok && b1.state.lastOutput).toBe('b second');
    const r1 = await a.t.read(a.file, ms(3));
    expect(r1.ok && r1.state.lastOutput).toBe('a second');
    expect(a.reader.stats - stats).toBe(3);
    notes.close();
    a.reader.open?.closeAll();
  });
});

describe('a descriptor kept open between reads (issue 37)', () => {
  it('is dropped when the file is replaced or removed: the new file at the path is read, never the old one', async () => {
    const { dir, file, notes, reader, t } = await trackedFile(watchedNotes());
    await notes.settle();
    // Replaced by a rename (an editor's save, a rotated log), then written again.
    const next = path.join(dir, 'agent-a1.jsonl.tmp');
    writeFileSync(next, jsonl(assistant(2, [text('replacement')])));
    renameSync(next, file);
    appendFileSync(file, jsonl(assistant(3, [text('after the replacement')])));
    await notes.settle();
    t.beginCheck();
    const opens = reader.opens;
    const r1 = await t.read(file, ms(3));
    if (!r1.ok) throw new Error(r1.reason);
    expect(r1.state).toMatchObject({ records: 2, lastOutput: 'after the replacement' });
    expect(reader.opens).toBe(opens + 1);
    // Removed: missing, not read from the descriptor of the file that was.
    await notes.settle();
    unlinkSync(file);
    await notes.settle();
    t.beginCheck();
    const r2 = await t.read(file, ms(4));
    expect(r2.ok).toBe(false);
    notes.close();
    reader.open?.closeAll();
  });

  it('vouches for growth only: a replacement whose rename event was lost is read from the path, never judged from the old file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-a1.jsonl');
    writeFileSync(file, jsonl(assistant(0, [text('first')])));
    // A watch that delivers only what the test hands it: the rename's event is "lost" (a queue overflow).
    let deliver: (event: string, name: string) => void = () => undefined;
    const clock = { now: 0 };
    const notes = new ChangeNotes({
      now: () => clock.now,
      trustMs: 60_000,
      watch: (d, listener) => {
        deliver = listener;
        return watch(d, { persistent: false }, () => undefined);
      },
    });
    notes.beginCheck();
    clock.now = 10;
    notes.beginCheck();
    const reader = new TailReader({}, notes);
    const t = new TailTracker<TranscriptState>(reader, { empty: emptyTranscriptState, line: parseTranscriptLine });
    const r0 = await t.read(file, ms(1));
    if (!r0.ok) throw new Error(r0.reason);
    const next = path.join(dir, 'agent-a1.jsonl.tmp');
    writeFileSync(next, jsonl(assistant(2, [text('replacement')])));
    renameSync(next, file);
    // Only a 'change' arrives: the notes say "written". The old file's kept descriptor shows no growth,
    // which proves nothing (a silent agent must never be judged from the file it no longer writes): the path is read.
    deliver('change', 'agent-a1.jsonl');
    t.beginCheck();
    const opens = reader.opens;
    const r1 = await t.read(file, ms(3));
    expect(r1.ok && r1.state).toMatchObject({ records: 1, lastOutput: 'replacement' });
    expect(reader.opens).toBe(opens + 1);
    // Then the new file's descriptor is the one kept: its growth is read through it.
    appendFileSync(file, jsonl(assistant(3, [text('more')])));
    deliver('change', 'agent-a1.jsonl');
    t.beginCheck();
    const r2 = await t.read(file, ms(4));
    expect(r2.ok && r2.state).toMatchObject({ records: 2, lastOutput: 'more' });
    expect(reader.opens).toBe(opens + 1);
    notes.close();
    reader.open?.closeAll();
  });
});

describe('the kept descriptors', () => {
  it('are bounded in number (the least recently used closed) and in age (then the path is opened again)', () => {
    const dir = tempDir();
    const clock = { now: 0 };
    const open = new OpenFiles(2, () => clock.now, 1000);
    const files = [0, 1, 2].map((k) => path.join(dir, `f${k}`));
    const fds = files.map((f) => {
      writeFileSync(f, 'x\n');
      const st = statSync(f);
      const fd = openSync(f, 'r');
      open.keep(f, fd, st.dev, st.ino);
      return { fd, st };
    });
    expect(open.size).toBe(2);
    // The first one was closed when the third came.
    expect(open.take(files[0]!, fds[0]!.st.dev, fds[0]!.st.ino)).toBeUndefined();
    expect(() => fstatSync(fds[0]!.fd)).toThrow();
    // Another inode than the one asked for: closed, not handed out.
    expect(open.take(files[1]!, fds[1]!.st.dev, fds[1]!.st.ino + 1)).toBeUndefined();
    expect(() => fstatSync(fds[1]!.fd)).toThrow();
    // Past its age: closed.
    clock.now = 1000;
    expect(open.take(files[2]!, fds[2]!.st.dev, fds[2]!.st.ino)).toBeUndefined();
    expect(open.size).toBe(0);
    // Handed out while young, and kept again with its first age.
    const st = statSync(files[0]!);
    open.keep(files[0]!, openSync(files[0]!, 'r'), st.dev, st.ino);
    clock.now = 1500;
    const k = open.take(files[0]!, st.dev, st.ino);
    expect(k?.openedAtMs).toBe(1000);
    open.keep(files[0]!, k!.fd, st.dev, st.ino, k!.openedAtMs);
    clock.now = 2000;
    expect(open.take(files[0]!, st.dev, st.ino)).toBeUndefined();
    // Swept once a check: one past its age is closed though its file is never read again (removed, its space freed).
    const young = openSync(files[1]!, 'r');
    const old = openSync(files[2]!, 'r');
    open.keep(files[2]!, old, st.dev, st.ino, 1000);
    open.keep(files[1]!, young, st.dev, st.ino, 1900);
    unlinkSync(files[2]!);
    open.sweep();
    expect(open.size).toBe(1);
    expect(() => fstatSync(old)).toThrow();
    expect(fstatSync(young).isFile()).toBe(true);
    open.closeAll();
  });
});

describe('saving positions under a busy wave', () => {
  it('saves a changed file at most once a minute unless it moved far, loses no record across a crash, and saves all on shutdown', async () => {
    const dir = tempDir();
    const files = [0, 1, 2].map((k) => path.join(dir, `agent-a${k}.jsonl`));
    for (const f of files) writeFileSync(f, jsonl(assistant(0, [text('start')])));
    const storeFile = path.join(dir, 'observe', 'transcripts.json');
    const make = () =>
      new TailTracker<TranscriptState>(
        new TailReader(),
        { empty: emptyTranscriptState, line: parseTranscriptLine },
        new TailStore(storeFile, isTranscriptState),
      );
    const saved = async () => new Map([...(await new TailStore(storeFile, isTranscriptState).load())].map(([f, e]) => [f, e.cursor.offset]));
    const readAll = async (t: TailTracker<TranscriptState>, nowMs: number) => {
      const out = [];
      for (const f of files) {
        const r = await t.read(f, nowMs);
        if (!r.ok) throw new Error(r.reason);
        out.push(r.state);
      }
      return out;
    };
    const t = make();
    await readAll(t, ms(10));
    // Never saved: saved at once.
    await t.flush(ms(10), 60_000);
    const first = await saved();
    expect([...first.keys()].sort()).toEqual([...files].sort());

    // Ten seconds on, all three grew: only the one that moved past the bound is saved now.
    appendFileSync(files[0]!, jsonl(assistant(12, [text('more 0')])));
    appendFileSync(files[1]!, jsonl(assistant(12, [text('more 1')])));
    appendFileSync(files[2]!, jsonl(assistant(12, [text('x'.repeat(SAVE_MOVED_BYTES))])));
    const live = await readAll(t, ms(20));
    await t.flush(ms(20), 60_000);
    const second = await saved();
    expect(second.get(files[0]!)).toBe(first.get(files[0]!));
    expect(second.get(files[1]!)).toBe(first.get(files[1]!));
    expect(second.get(files[2]!)).toBeGreaterThan(first.get(files[2]!)!);

    // A crash now: a restart reads the two unsaved files again from their older positions and
    // folds the same records (nothing lost, nothing twice).
    const restarted = await readAll(make(), ms(21));
    expect(restarted).toEqual(live);

    // A minute after their last save, the waiting files are saved by the periodic flush.
    await t.flush(ms(71), 60_000);
    const third = await saved();
    for (const f of files) expect(third.get(f)).toBe(statSync(f).size);

    // Shutdown saves whatever changed, however recently it was saved.
    appendFileSync(files[0]!, jsonl(assistant(72, [text('last')])));
    await readAll(t, ms(72));
    await t.flush(ms(72));
    expect((await saved()).get(files[0]!)).toBe(statSync(files[0]!).size);
  });
});

describe("a parent's prefix ids", () => {
  it('are vouched for by the inode of the read just done, with no stat for each subagent that asks', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'sess.jsonl');
    const report = `${JSON.stringify({ type: 'user', toolUseResult: { status: 'completed', agentId: 'a1' } })}\n`;
    writeFileSync(file, report + jsonl(assistant(1, [text('tail')])));
    const from = Buffer.byteLength(report);
    const p = new PrefixIds(4 * 1024 * 1024);
    expect(await p.mention(file, from, 'a1')).toBe(true);
    expect(p.scans).toBe(1);
    const st = statSync(file);
    expect(await p.mention(file, from, 'a2', { dev: st.dev, ino: st.ino })).toBe(false);
    expect(p.scans).toBe(1);
    // Another inode than the one scanned: scanned again.
    expect(await p.mention(file, from, 'a1', { dev: st.dev, ino: st.ino + 1 })).toBe(true);
    expect(p.scans).toBe(2);
  });
});
