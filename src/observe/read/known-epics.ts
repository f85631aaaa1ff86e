// The epics a state dir knows: every epics/<id>/ that holds a state file. For "did you mean"
// and for listing (a mistyped --epic-id must be an error, not a silent wait).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isSafeId } from '../../contracts/ids.js';
import type { StatePaths } from '../../files/paths.js';

/** Epic ids with a state file, sorted. */
export async function knownEpicIds(paths: StatePaths): Promise<string[]> {
  const dir = path.join(paths.root, 'epics');
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const out: string[] = [];
  for (const n of names.filter(isSafeId).sort()) {
    const isFile = await fs.stat(path.join(dir, n, 'state.yaml')).then((s) => s.isFile(), () => false);
    if (isFile) out.push(n);
  }
  return out;
}
