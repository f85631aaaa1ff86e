// The state dir's layout (src/files/paths.ts STATE_DIR_LAYOUT) is complete: every path StatePaths
// computes belongs to one of its entries, and docs/state-files.md lists every entry. prune walks
// it (test/integration/prune.test.ts), so a file the layout misses would never be pruned.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { layoutEntryOf, STATE_DIR_LAYOUT, StatePaths } from '../../src/files/paths.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const paths = new StatePaths('/state');

/** Every path method of StatePaths, called with sample arguments. */
function everyPath(): string[] {
  const proto = StatePaths.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const methods = Object.getOwnPropertyNames(StatePaths.prototype).filter((m) => m !== 'constructor' && m !== 'relative');
  expect(methods.length).toBeGreaterThan(10);
  return methods.map((m) => {
    const fn = proto[m]!;
    const args = Array.from({ length: fn.length }, (_, i) =>
      m === 'checkpoint' && i === 1 ? 1 : m.includes('dispatchLog') || m.includes('friction') ? (i === 0 ? '2026-04-02' : 'T-1') : 'E-1',
    );
    return paths.relative(String(fn.apply(paths, args)));
  });
}

describe('the state-dir layout', () => {
  it('owns every path StatePaths computes', () => {
    const missing = everyPath().filter((p) => !layoutEntryOf(p));
    expect(missing).toEqual([]);
    expect(layoutEntryOf('epics/E-1/acks/k.ack.json')).toMatchObject({ in: 'epic', name: 'acks', prune: 'finished_epic' });
    expect(layoutEntryOf('epics/E-1/state.yaml')).toMatchObject({ prune: 'never' });
    expect(layoutEntryOf('epics/E-1/watchdog.lock.stale.12.ab')).toMatchObject({ name: 'watchdog.lock.stale.*' });
    expect(layoutEntryOf('epics/E-1/notes.txt')).toBeUndefined();
  });

  it('is the table of docs/state-files.md', () => {
    const table = readFileSync(path.join(root, 'docs/state-files.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    const named = (e: (typeof STATE_DIR_LAYOUT)[number]) => {
      const prefix = e.in === 'epic' ? `epics/<epic>/${e.name.replace(/\*$/, '')}` : e.name;
      return table.some((l) => l.split('|')[1]!.includes('`' + prefix));
    };
    expect(STATE_DIR_LAYOUT.filter((e) => e.name !== 'epics' && !named(e)).map((e) => e.name)).toEqual([]);
  });
});
