// The checkpoint file is created once and is the marker of its step.
import { promises as fs } from 'node:fs';
import { expect, it } from 'vitest';
import { buildCheckpoint, checkpointMarker, readCheckpoint, writeCheckpoint } from '../../src/act/recovery/checkpoint.js';
import { StatePaths } from '../../src/files/paths.js';
import { makeTask, T0 } from '../helpers/builders.js';
import { tempDir } from '../helpers/temp-dir.js';

it('writes the checkpoint once, reads it back, and marks the step done', async () => {
  const paths = new StatePaths(tempDir());
  const cp = buildCheckpoint({
    epicId: 'PROJ-1000',
    task: makeTask(),
    attempt: 1,
    stallReason: 'inactivity',
    idleSeconds: 130,
    nowMs: T0,
    row: { remaining_work: ['Finish: the "retry" path'] },
  });
  expect(await checkpointMarker(paths, 'PROJ-1001', 1)).toBe('absent');
  const first = await writeCheckpoint(paths, cp);
  expect(first).toEqual({ path: paths.checkpoint('PROJ-1001', 1), wasCreated: true });
  const second = await writeCheckpoint(paths, { ...cp, stall_reason: 'looping' });
  expect(second.wasCreated).toBe(false);
  expect(await checkpointMarker(paths, 'PROJ-1001', 1)).toBe('done');
  expect(await readCheckpoint(paths, 'PROJ-1001', 1)).toEqual({ ok: true, value: cp });
  expect(await fs.readFile(first.path, 'utf8')).toContain('stall_reason: inactivity');
  expect(await readCheckpoint(paths, 'PROJ-1001', 2)).toBeUndefined();
});
