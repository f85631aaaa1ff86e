// A directory's watch is dropped while its events cost more than the stats it saves, and taken up
// again once stats find its files quiet (issue 37: a busy wave at the 30 s default raises ~18
// events a file between two checks and leaves none unwritten to vouch for).
import { EventEmitter } from 'node:events';
import { appendFileSync, writeFileSync, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangeNotes, PAUSE_CHECKS } from '../../src/observe/read/change-notes.js';
import { TailReader, type TailPosition } from '../../src/observe/read/tail-file.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A watch the test drives: `emit(name)` is one change event for a file of the directory. */
function scriptedWatches() {
  const open: { dir: string; emit: (name: string) => void; isClosed: boolean }[] = [];
  const watch = (dir: string, listener: (event: string, name: string | Buffer | null) => void) => {
    const w = { dir, emit: (name: string) => listener('change', name), isClosed: false };
    open.push(w);
    return Object.assign(new EventEmitter(), {
      close() {
        w.isClosed = true;
      },
      ref() {
        return this;
      },
      unref() {
        return this;
      },
    }) as unknown as FSWatcher;
  };
  return { watch, open, live: () => open.filter((w) => !w.isClosed) };
}

describe('ChangeNotes: a watch that costs more than it saves', () => {
  it("is dropped at the check after a busy spell, its files stat'ed; watched again once stats find them quiet", async () => {
    const dir = tempDir();
    const names = ['agent-a1.jsonl', 'agent-a2.jsonl', 'agent-a3.jsonl', 'agent-a4.jsonl'];
    const files = names.map((n) => path.join(dir, n));
    for (const f of files) writeFileSync(f, '{"a":1}\n');
    let now = 0;
    const w = scriptedWatches();
    const notes = new ChangeNotes({ now: () => now, share: () => 1, watch: w.watch });
    const reader = new TailReader({}, notes);
    const none = { reset() {}, line() {}, oversize() {} };
    const check = () => {
      now += 10;
      notes.beginCheck();
    };
    const pos = new Map<string, TailPosition>();
    const readAll = async () => {
      for (const f of files) {
        const r = await reader.read(f, pos.get(f), none);
        if (!r.ok) throw new Error(r.reason);
        pos.set(f, r.position);
      }
    };
    const unchangedAll = () => files.map((f) => reader.unchangedBy(f, pos.get(f)!));
    check();
    check();
    await readAll();
    expect(w.live()).toHaveLength(1);
    expect(unchangedAll()).toEqual(['notes', 'notes', 'notes', 'notes']);

    // A quiet spell: one file written once. Three files to vouch for, one event: kept.
    appendFileSync(files[0]!, '{"a":2}\n');
    w.live()[0]!.emit(names[0]!);
    check();
    expect(notes.pausedDirs()).toBe(0);
    expect(unchangedAll()).toEqual([undefined, 'notes', 'notes', 'notes']);
    await readAll();

    // A busy spell: every file written three times. Twelve events, none left to vouch for: dropped.
    for (let k = 0; k < 3; k++)
      for (let i = 0; i < files.length; i++) {
        appendFileSync(files[i]!, '{"a":3}\n');
        w.live()[0]!.emit(names[i]!);
      }
    check();
    expect(notes.pausedDirs()).toBe(1);
    expect(w.live()).toHaveLength(0);
    // Nothing vouched for while dropped: every change is found by a stat, and no watch is taken up.
    expect(unchangedAll()).toEqual([undefined, undefined, undefined, undefined]);
    await readAll();
    expect(unchangedAll()).toEqual(['stat', 'stat', 'stat', 'stat']);
    expect(w.open).toHaveLength(1);

    // Its pause: quiet stats do not end it early.
    for (let k = 0; k < PAUSE_CHECKS; k++) {
      check();
      expect(unchangedAll()).toEqual(['stat', 'stat', 'stat', 'stat']);
    }
    expect(notes.pausedDirs()).toBe(1);
    // After it, stats that find most files changed keep it dropped (a check asks, then reads: each file counts once).
    for (const f of files) appendFileSync(f, '{"a":4}\n');
    expect(unchangedAll()).toEqual([undefined, undefined, undefined, undefined]);
    await readAll();
    check();
    expect(notes.pausedDirs()).toBe(1);
    // Stats that find at most a quarter changed take it up again at the next check.
    appendFileSync(files[3]!, '{"a":5}\n');
    expect(unchangedAll()).toEqual(['stat', 'stat', 'stat', undefined]);
    await readAll();
    check();
    expect(notes.pausedDirs()).toBe(0);
    expect(w.live()).toHaveLength(0);
    expect(unchangedAll()).toEqual(['stat', 'stat', 'stat', 'stat']);
    expect(w.live()).toHaveLength(1);
    expect(unchangedAll()).toEqual(['notes', 'notes', 'notes', 'notes']);

    // Busy again at the first check after it was taken up: the next pause is twice as long.
    for (let i = 0; i < files.length; i++) {
      appendFileSync(files[i]!, '{"a":6}\n');
      w.live()[0]!.emit(names[i]!);
      w.live()[0]!.emit(names[i]!);
    }
    check();
    expect(notes.pausedDirs()).toBe(1);
    await readAll();
    let checks = 0;
    while (notes.pausedDirs() > 0) {
      unchangedAll();
      check();
      checks++;
      if (checks > 10 * PAUSE_CHECKS) throw new Error('never watched again');
    }
    expect(checks).toBe(2 * PAUSE_CHECKS + 1);
    notes.close();
  });

  it('leaves alone a directory whose events name files it never vouched for only when they are few', () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-a1.jsonl');
    writeFileSync(file, 'x\n');
    let now = 0;
    const w = scriptedWatches();
    const notes = new ChangeNotes({ now: () => now, share: () => 1, watch: w.watch });
    const check = () => {
      now += 10;
      notes.beginCheck();
    };
    check();
    check();
    notes.beforeStat(file);
    notes.atEnd(file);
    // Two events for files nobody asked about (another session's writes), one file to vouch for: kept.
    w.live()[0]!.emit('other.jsonl');
    w.live()[0]!.emit('other.jsonl');
    check();
    expect(notes.pausedDirs()).toBe(0);
    expect(notes.isUntouched(file)).toBe(true);
    // Three: they cost more than the one stat the watch saves.
    for (let k = 0; k < 3; k++) w.live()[0]!.emit('other.jsonl');
    check();
    expect(notes.pausedDirs()).toBe(1);
    expect(notes.isUntouched(file)).toBe(false);
    notes.close();
  });
});
