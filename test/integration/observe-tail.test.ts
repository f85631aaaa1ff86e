// The incremental transcript reader on real files: torn lines, truncation, replacement,
// multi-MB lines, a 100 MB transcript, cold start and restart from the persisted offset.
import { appendFileSync, openSync, closeSync, renameSync, truncateSync, writeFileSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscriptLine } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { TailReader, type TailOptions } from '../../src/observe/read/tail-file.js';
import { TailStore } from '../../src/observe/read/tail-store.js';
import { TailTracker } from '../../src/observe/read/tail-tracker.js';
import { emptyTranscriptState, isTranscriptState, type TranscriptState } from '../../src/agents/claude-code/parse/transcript-state.js';
import { assistant, jsonl, ms, text, toolResult, toolUse, user } from '../helpers/claude-lines.js';
import { tempDir } from '../helpers/temp-dir.js';

function tracker(dir: string, opts: Partial<TailOptions> = {}, isPersistent = false) {
  const store = isPersistent ? new TailStore(path.join(dir, 'observe', 'transcripts.json'), isTranscriptState) : undefined;
  const reader = new TailReader(opts);
  return {
    reader,
    t: new TailTracker<TranscriptState>(reader, { empty: emptyTranscriptState, line: parseTranscriptLine, skipped: (s) => void s.skippedLines++ }, store),
  };
}

async function readOk(t: TailTracker<TranscriptState>, file: string, nowMs = ms(0)) {
  const r = await t.read(file, nowMs);
  if (!r.ok) throw new Error(r.reason);
  return r;
}

/** `n` assistant lines of about `bytes` bytes each, starting at second `from`. */
const lines = (n: number, from: number, bytes = 200) =>
  Array.from({ length: n }, (_, i) => assistant(from + i, [text(`step ${from + i} `.padEnd(bytes - 190, '.'))]));

describe('TailTracker on a transcript file', () => {
  it('keeps a torn last line and parses it once the rest arrives, reading each byte once', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-a1.jsonl');
    const whole = assistant(1, [text('second')]);
    writeFileSync(file, jsonl(assistant(0, [text('first')])) + whole.slice(0, 30));
    const { reader, t } = tracker(dir);
    expect((await readOk(t, file)).state).toMatchObject({ records: 1, lastOutput: 'first' });
    const before = reader.bytesRead;
    appendFileSync(file, whole.slice(30) + '\n');
    expect((await readOk(t, file)).state).toMatchObject({ records: 2, lastOutput: 'second' });
    expect(reader.bytesRead - before).toBe(whole.length - 30 + 1);
  });

  it('starts over when the file is truncated', async () => {
    const dir = tempDir();
    const file = path.join(dir, 't.jsonl');
    writeFileSync(file, jsonl(...lines(5, 0)));
    const { t } = tracker(dir);
    await readOk(t, file);
    writeFileSync(file, jsonl(assistant(100, [text('fresh')])));
    const r = await readOk(t, file);
    expect(r.reset).toBe('truncated');
    expect(r.state).toMatchObject({ records: 1, lastOutput: 'fresh', lastEventMs: ms(100) });
  });

  it('starts over when the file is replaced (new inode), even by a longer one', async () => {
    const dir = tempDir();
    const file = path.join(dir, 't.jsonl');
    writeFileSync(file, jsonl(assistant(0, [toolUse('t1', 'Bash', { command: 'sleep 1' })])));
    const { t } = tracker(dir);
    expect((await readOk(t, file)).state.open).toHaveLength(1);
    writeFileSync(path.join(dir, 'new.jsonl'), jsonl(...lines(3, 50)));
    renameSync(path.join(dir, 'new.jsonl'), file);
    const r = await readOk(t, file);
    expect(r.reset).toBe('replaced');
    expect(r.state).toMatchObject({ records: 3, open: [] });
  });

  it('starts over when the file was rewritten in place (the byte before the offset is no longer a newline)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 't.jsonl');
    writeFileSync(file, jsonl(assistant(0, [text('a')])));
    const { t } = tracker(dir);
    await readOk(t, file);
    writeFileSync(file, jsonl(assistant(9, [text('a much longer first line than before')]), assistant(10, [text('b')])));
    const r = await readOk(t, file);
    expect(r.reset).toBe('rewritten');
    expect(r.state).toMatchObject({ records: 2, lastOutput: 'b' });
  });

  it('ignores unknown record types and reports a corrupt line with file and line, then goes on', async () => {
    const dir = tempDir();
    const file = path.join(dir, 't.jsonl');
    writeFileSync(file, jsonl(assistant(0, [text('a')]), '{"type":"future-type","x":1}', 'garbage', assistant(1, [text('b')])));
    const { t } = tracker(dir);
    const r = await readOk(t, file);
    expect(r.state).toMatchObject({ records: 3, badLines: 1, lastOutput: 'b' });
    expect(t.drainDiagnostics().map((d) => d.message)).toEqual([expect.stringMatching(/t\.jsonl:3: not a JSON record/)]);
  });

  it('parses a 3 MB line written in two parts, and skips a line over the cap without losing later lines', async () => {
    const dir = tempDir();
    const file = path.join(dir, 't.jsonl');
    const big = user(1, [toolResult('t1', 'x'.repeat(3 * 1024 * 1024))]);
    writeFileSync(file, jsonl(assistant(0, [toolUse('t1', 'Read', { file_path: '/big' })])) + big.slice(0, 1_000_000));
    const { t } = tracker(dir, { maxLineBytes: 4 * 1024 * 1024, tailBytes: 16 * 1024 * 1024 });
    expect((await readOk(t, file)).state.open).toHaveLength(1);
    appendFileSync(file, big.slice(1_000_000) + '\n');
    expect((await readOk(t, file)).state).toMatchObject({ open: [], records: 2 });

    const capped = tracker(dir, { maxLineBytes: 1024 * 1024, tailBytes: 16 * 1024 * 1024 });
    const r = await readOk(capped.t, file);
    expect(r.state).toMatchObject({ records: 1, skippedLines: 1 });
    appendFileSync(file, jsonl(assistant(5, [text('after')])));
    expect((await readOk(capped.t, file)).state).toMatchObject({ records: 2, lastOutput: 'after' });
    expect(capped.t.drainDiagnostics().map((d) => d.message)).toEqual([`${file}:2: line of ${big.length} bytes is over the 1048576-byte cap; skipped`]);
  });

  it('a 100 MB transcript: the cold start reads only the tail, 10 KB more reads about 10 KB', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'big.jsonl');
    writeFileSync(file, jsonl(...lines(10, 0)));
    truncateSync(file, 100 * 1024 * 1024); // sparse: 100 MB on paper, a few KB on disk
    appendFileSync(file, '\n' + jsonl(...lines(1500, 1000))); // ~300 KB of real records at the end
    expect(statSync(file).size).toBeGreaterThan(100 * 1024 * 1024);

    const { reader, t } = tracker(dir);
    const cold = await readOk(t, file);
    expect(reader.bytesRead).toBeLessThanOrEqual(256 * 1024 + 1);
    expect(cold.state.lastEventMs).toBe(ms(2499));
    expect(cold.state.badLines).toBe(0);

    const grow = jsonl(...lines(43, 3000));
    expect(grow.length).toBeGreaterThan(9_500);
    expect(grow.length).toBeLessThan(10_500); // about 10 KB
    appendFileSync(file, grow);
    const before = reader.bytesRead;
    const warm = await readOk(t, file);
    expect(reader.bytesRead - before).toBe(grow.length + 1); // + the 1-byte newline check
    expect(warm.state.lastEventMs).toBe(ms(3042));

    const idle = reader.bytesRead;
    await readOk(t, file);
    expect(reader.bytesRead).toBe(idle); // nothing appended: nothing read
  });

  it('resumes from the persisted offset after a restart, and a corrupt store means a cold start', async () => {
    const dir = tempDir();
    const file = path.join(dir, 't.jsonl');
    writeFileSync(file, jsonl(...lines(100, 0)));
    const first = tracker(dir, {}, true);
    await readOk(first.t, file, ms(100));
    await first.t.flush(ms(100));

    const grow = jsonl(...lines(50, 200));
    appendFileSync(file, grow);
    const second = tracker(dir, {}, true);
    const r = await readOk(second.t, file, ms(300));
    expect(second.reader.bytesRead).toBe(grow.length + 1);
    expect(r.state).toMatchObject({ records: 150, lastEventMs: ms(249) });

    writeFileSync(path.join(dir, 'observe', 'transcripts.json'), '{"version":1,"entr');
    const third = tracker(dir, {}, true);
    const cold = await readOk(third.t, file, ms(400));
    expect(cold.reset).toBe('cold');
    expect(cold.state.records).toBe(150);
  });

  it('keeps the store bounded: least recently used files are dropped', async () => {
    const dir = tempDir();
    const store = new TailStore(path.join(dir, 's.json'), isTranscriptState, { maxEntries: 3 });
    const entry = (usedAtMs: number) => ({ cursor: { dev: 1, ino: 1, offset: 0, size: 0, mtimeMs: 0 }, state: emptyTranscriptState(), usedAtMs });
    await store.save(
      new Map([
        ['a', entry(1)],
        ['b', entry(2)],
        ['c', entry(3)],
        ['d', entry(4)],
      ]),
      10,
    );
    expect([...(await store.load()).keys()].sort()).toEqual(['b', 'c', 'd']);
    await store.save(new Map([['e', entry(5)]]), 8 * 86_400_000);
    expect([...(await store.load()).keys()]).toEqual([]);
  });

  it('reports a missing file without throwing', async () => {
    const dir = tempDir();
    const { t } = tracker(dir);
    const r = await t.read(path.join(dir, 'nope.jsonl'), 0);
    expect(r).toMatchObject({ ok: false, code: 'ENOENT' });
  });

  it('serialises concurrent reads of one file (a parent shared by several tasks)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 't.jsonl');
    writeFileSync(file, jsonl(...lines(20, 0)));
    const { t } = tracker(dir);
    const [a, b] = await Promise.all([readOk(t, file), readOk(t, file)]);
    expect(a.state.records).toBe(20);
    expect(b.state.records).toBe(20);
    closeSync(openSync(file, 'r'));
  });
});

describe('TailTracker levels of a lazy tail (short, sized in records, wide, read back)', () => {
  // A lazy parser whose tail never vouches (no turn boundary in these lines): each level is read as asked.
  function lazyTracker() {
    const reader = new TailReader({ lazyTailBytes: 4 * 1024, tailBytes: 64 * 1024, maxColdBytes: 256 * 1024 });
    const t = new TailTracker<TranscriptState>(reader, {
      empty: emptyTranscriptState,
      line: parseTranscriptLine,
      beginTail: (s, cutAt) => void (s.tail = { from: cutAt, callsSinceFresh: 0 }),
      hasContext: (s) => s.tail === undefined,
    });
    return { reader, t };
  }
  /** A transcript of 2,000 short records (~400 KB) in a temp dir, and its size. */
  function bigFile(): { file: string; size: number } {
    const file = path.join(tempDir(), 'agent-a1.jsonl');
    writeFileSync(file, jsonl(...lines(2000, 0)));
    return { file, size: statSync(file).size };
  }
  const read = async (t: TailTracker<TranscriptState>, file: string, opts: Parameters<TailTracker<TranscriptState>['read']>[2]) => {
    const r = await t.read(file, ms(0), opts);
    if (!r.ok) throw new Error(r.reason);
    return r;
  };

  it('reads `more` at the size asked, then `wide`, then back to the bound', async () => {
    const { file, size } = bigFile();
    const { reader, t } = lazyTracker();
    const tailOf = (r: { state: TranscriptState }) => size - r.state.tail!.from;
    expect(tailOf(await read(t, file, {}))).toBe(4 * 1024 + 1);
    expect(tailOf(await read(t, file, { context: 'more', tailBytes: 20_000 }))).toBe(20_001);
    // Asked again at the same level: nothing is read.
    const before = reader.bytesRead;
    await read(t, file, { context: 'more', tailBytes: 30_000 });
    expect(reader.bytesRead).toBe(before);
    expect(tailOf(await read(t, file, { context: 'wide' }))).toBe(64 * 1024 + 1);
    expect((await read(t, file, { context: 'full' })).state.tail).toBeUndefined();
    expect(reader.bytesRead - before).toBeGreaterThan(64 * 1024 + 256 * 1024 - 2);
  });

  it('a `more` size outside the short and the wide tail, or none: the wide tail at once', async () => {
    const { file, size } = bigFile();
    for (const tailBytes of [undefined, 2 * 1024, 4 * 1024, 64 * 1024, 1024 * 1024]) {
      const { t } = lazyTracker();
      await read(t, file, {});
      const r = await read(t, file, { context: 'more', tailBytes });
      expect(size - r.state.tail!.from, `tailBytes ${tailBytes}`).toBe(64 * 1024 + 1);
      // The wide level was read: asking for it reads nothing more.
      expect((await read(t, file, { context: 'wide' })).state).toBe(r.state);
    }
  });

  it('context asked for at once skips the short and the sized tail', async () => {
    const { file, size } = bigFile();
    const { reader, t } = lazyTracker();
    const r = await read(t, file, { context: 'wide' });
    expect(size - r.state.tail!.from).toBe(64 * 1024 + 1);
    expect(reader.bytesRead).toBe(64 * 1024 + 1);
  });
});

describe('hostile transcript paths', () => {
  it('a FIFO or a directory named as a transcript is refused at once, never read or waited on', async () => {
    const dir = tempDir();
    const fifo = path.join(dir, 'agent-x.jsonl');
    execFileSync('mkfifo', [fifo]);
    const reader = new TailReader();
    const noop = { line: () => undefined, reset: () => undefined, oversize: () => undefined };
    expect(await reader.read(fifo, undefined, noop)).toEqual({ ok: false, code: 'ENOTFILE', reason: `${fifo}: not a regular file` });
    expect(await reader.read(dir, undefined, noop)).toMatchObject({ ok: false });
  });
});
