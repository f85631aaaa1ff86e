// Friction notes are written once per ticket and attempt (and once per run for orphans), on real files.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findFrictionNote, frictionNotePathFor, writeFrictionNote, writeOrphanNote, type FrictionNoteInput } from '../../src/act/friction/friction.js';
import { StatePaths } from '../../src/files/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

const DAY1 = Date.parse('2026-04-02T13:00:00Z');
const DAY2 = Date.parse('2026-04-03T09:00:00Z');

function input(paths: StatePaths, over: Partial<FrictionNoteInput> = {}): FrictionNoteInput {
  return {
    ticketId: 'ENG-123',
    attempts: 3,
    maxRedispatches: 2,
    history: [],
    evidencePaths: { dispatchLogs: [paths.dispatchLog('2026-04-02')], checkpoints: [paths.checkpoint('ENG-123', 2)] },
    trackerOutcome: { kind: 'skipped' },
    ...over,
  };
}

const list = async (paths: StatePaths) => (await fs.readdir(paths.frictionDir())).sort();

describe('writeFrictionNote', () => {
  it('writes the note once, with evidence links relative to the state dir', async () => {
    const paths = new StatePaths(tempDir());
    const first = await writeFrictionNote(paths, input(paths), { nowMs: DAY1 });
    expect(first).toEqual({ path: path.join(paths.frictionDir(), '2026-04-02-stall-escalation-eng-123.md'), written: true });
    const text = await fs.readFile(first.path, 'utf8');
    expect(text).toContain('- Dispatch log: [dispatch-log/2026-04-02.ndjson](../dispatch-log/2026-04-02.ndjson)');
    expect(text).toContain('- Checkpoint: [pipeline_checkpoints/ENG-123/recovery-2.yaml](../pipeline_checkpoints/ENG-123/recovery-2.yaml)');
    expect(text).toContain('Escalated at 2026-04-02T13:00:00Z.');

    const again = await writeFrictionNote(paths, input(paths, { trackerOutcome: { kind: 'updated' } }), { nowMs: DAY1 });
    expect(again).toEqual({ path: first.path, written: false });
    expect(await fs.readFile(first.path, 'utf8')).toBe(text);
  });

  it('does not write a second note for the same attempt on a later day (a retry after midnight)', async () => {
    const paths = new StatePaths(tempDir());
    const first = await writeFrictionNote(paths, input(paths), { nowMs: DAY1 });
    await expect(writeFrictionNote(paths, input(paths), { nowMs: DAY2 })).resolves.toEqual({ path: first.path, written: false });
    expect(await list(paths)).toEqual(['2026-04-02-stall-escalation-eng-123.md']);
    await expect(findFrictionNote(paths, 'ENG-123', 3)).resolves.toBe(first.path);
    await expect(findFrictionNote(paths, 'ENG-123', 5)).resolves.toBeUndefined();
  });

  it('writes a later attempt of the same ticket on the same day to a suffixed file', async () => {
    const paths = new StatePaths(tempDir());
    await expect(frictionNotePathFor(paths, 'ENG-123', 3, DAY1)).resolves.toBe(path.join(paths.frictionDir(), '2026-04-02-stall-escalation-eng-123.md'));
    await writeFrictionNote(paths, input(paths), { nowMs: DAY1 });
    const planned = await frictionNotePathFor(paths, 'ENG-123', 6, DAY1);
    const later = await writeFrictionNote(paths, input(paths, { attempts: 6 }), { nowMs: DAY1 });
    expect(later).toEqual({ path: path.join(paths.frictionDir(), '2026-04-02-stall-escalation-eng-123-attempt-6.md'), written: true });
    expect(planned).toBe(later.path);
    await expect(writeFrictionNote(paths, input(paths, { attempts: 6 }), { nowMs: DAY1 })).resolves.toEqual({ ...later, written: false });
    // Another ticket whose id starts the same way is a different note.
    await writeFrictionNote(paths, input(paths, { ticketId: 'ENG-12' }), { nowMs: DAY1 });
    expect(await list(paths)).toEqual([
      '2026-04-02-stall-escalation-eng-12.md',
      '2026-04-02-stall-escalation-eng-123-attempt-6.md',
      '2026-04-02-stall-escalation-eng-123.md',
    ]);
  });

  it('writes only one note when two writers race', async () => {
    const paths = new StatePaths(tempDir());
    const results = await Promise.all([1, 2, 3].map(() => writeFrictionNote(paths, input(paths), { nowMs: DAY1 })));
    expect(results.filter((r) => r.written)).toHaveLength(1);
    expect(await list(paths)).toEqual(['2026-04-02-stall-escalation-eng-123.md']);
  });

  it('refuses an unsafe ticket id', async () => {
    const paths = new StatePaths(tempDir());
    await expect(writeFrictionNote(paths, input(paths, { ticketId: '../x' }), { nowMs: DAY1 })).rejects.toThrow(/ticket id "..\/x" cannot be used/);
  });
});

describe('writeOrphanNote', () => {
  it('writes one note per run, once', async () => {
    const paths = new StatePaths(tempDir());
    const orphans = [{ key: 'epic-1:t1:cancel', action: 'cancel', taskId: 't1' }];
    const first = await writeOrphanNote(paths, orphans, { runId: 'run-1', nowMs: DAY1 });
    expect(first).toEqual({ path: path.join(paths.frictionDir(), '2026-04-02-orphaned-actions-run-1.md'), written: true });
    await expect(writeOrphanNote(paths, orphans, { runId: 'run-1', nowMs: DAY1 })).resolves.toEqual({ ...first, written: false });
    expect(await fs.readFile(first.path, 'utf8')).toContain('| `epic-1:t1:cancel` | cancel | – | t1 | – | – |');
  });
});
