// The start-up sweep of temp files a killed watchdog left finds its folders in STATE_DIR_LAYOUT
// (issue 32 item 4: a hand-kept list had missed notify/ and telemetry/).
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeStaleTemps, tempFileDirs } from '../../src/files/atomic-write.js';
import { STATE_DIR_LAYOUT, StatePaths } from '../../src/files/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';
const DEAD_PID = 999_999_999;

/** A temp file as writeFileAtomic names it, from a writer long dead, in `dir`. */
function plantStaleTemp(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `.${name}.${DEAD_PID}.0123abcd.tmp`);
  writeFileSync(file, 'half a write');
  const old = new Date(Date.now() - 3600_000);
  utimesSync(file, old, old);
  return file;
}

describe('the temp-file sweep', () => {
  it('removes a stale temp from every folder the layout says is written by rename, and nothing else', async () => {
    const paths = new StatePaths(tempDir());
    const planted: string[] = [];
    const entries = STATE_DIR_LAYOUT.filter((e) => e.temps && !e.name.endsWith('*'));
    for (const e of entries) {
      const at = path.join(e.in === 'epic' ? paths.epicDir(EPIC) : paths.root, e.name);
      const dir = e.temps === 'beside' ? path.dirname(at) : at;
      planted.push(plantStaleTemp(dir, `${e.name}-file.json`));
      if (e.temps === 'inside_and_below') planted.push(plantStaleTemp(path.join(at, 'T-1'), 'below.json'));
    }
    // Not ours to touch: a file not named like our temps, and an epic of another watchdog.
    const keep = path.join(paths.notifyDir(EPIC), 'E-1--t1--stall.json');
    writeFileSync(keep, '{}');
    const other = plantStaleTemp(paths.requestsDir('E-2'), 'x.json');

    const dirs = await tempFileDirs(paths, EPIC);
    for (const d of dirs) await removeStaleTemps(d, () => false);

    expect(planted.filter((f) => existsSync(f)).map((f) => paths.relative(f))).toEqual([]);
    expect(existsSync(keep)).toBe(true);
    expect(existsSync(other)).toBe(true);
    // What the issue found missing, by name.
    for (const d of [paths.notifyDir(EPIC), paths.telemetryDir(), paths.requestsDir(EPIC)]) expect(dirs).toContain(d);
  });
});
