// A busy wave (issue 37): most checks find hundreds of files that grew. What each changed file
// costs beyond its bytes is cut here, and each cut must keep the results exact.
import { appendFileSync, chmodSync, statSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscriptLine } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { emptyTranscriptState, type TranscriptState } from '../../src/agents/claude-code/parse/transcript-state.js';
import { PrefixIds } from '../../src/agents/claude-code/read/prefix-ids.js';
import { ChangeNotes } from '../../src/observe/read/change-notes.js';
import { TailReader } from '../../src/observe/read/tail-file.js';
import { TailTracker } from '../../src/observe/read/tail-tracker.js';
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

describe('a file that change notification says was written', () => {
  it('is read with no stat before it (one open and its fstat), and a touch that changed nothing reads nothing', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-a1.jsonl');
    writeFileSync(file, jsonl(assistant(0, [text('first')])));
    const notes = watchedNotes();
    const reader = new TailReader({}, notes);
    const t = new TailTracker<TranscriptState>(reader, { empty: emptyTranscriptState, line: parseTranscriptLine });
    const r0 = await t.read(file, ms(1));
    if (!r0.ok) throw new Error(r0.reason);
    await notes.settle();
    t.beginCheck();
    // Untouched: vouched for by the notes, no stat.
    const stats = reader.stats;
    expect(t.peekHandle(r0.handle, ms(2))).toBe(r0.version);
    expect(reader.stats).toBe(stats);

    appendFileSync(file, jsonl(assistant(3, [text('second')])));
    await notes.settle();
    t.beginCheck();
    // Written: "changed" with no stat, then read with no stat either (the open's fstat is enough).
    expect(t.peekHandle(r0.handle, ms(3))).toBeUndefined();
    const opens = reader.opens;
    const r1 = await t.read(file, ms(3));
    if (!r1.ok) throw new Error(r1.reason);
    expect(r1.state).toMatchObject({ records: 2, lastOutput: 'second' });
    expect(r1.version).not.toBe(r0.version);
    expect(reader.stats).toBe(stats);
    expect(reader.opens).toBe(opens + 1);
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
    const dir = tempDir();
    const file = path.join(dir, 'agent-a1.jsonl');
    writeFileSync(file, jsonl(assistant(0, [text('first')])));
    const notes = watchedNotes();
    const reader = new TailReader({}, notes);
    const t = new TailTracker<TranscriptState>(reader, { empty: emptyTranscriptState, line: parseTranscriptLine });
    const r0 = await t.read(file, ms(1));
    if (!r0.ok) throw new Error(r0.reason);
    await notes.settle();
    appendFileSync(file, jsonl(assistant(3, [text('second')])));
    writeFileSync(path.join(dir, 'agent-a2.jsonl'), jsonl(assistant(3, [text('other')])));
    await notes.settle();
    expect(notes.isTouched(file)).toBe(false);
    t.beginCheck();
    const stats = reader.stats;
    expect(t.peekHandle(r0.handle, ms(3))).toBeUndefined();
    expect(reader.stats).toBe(stats + 1);
    const r1 = await t.read(file, ms(3));
    expect(r1.ok && r1.state.lastOutput).toBe('second');
    expect(reader.stats).toBe(stats + 2);
    notes.close();
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
