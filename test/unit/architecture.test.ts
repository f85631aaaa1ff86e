// The rooms of the house (docs/architecture.md): every import in src/ points to the same layer
// or a lower one, and no module reaches itself through its imports, statically or through a
// dynamic import(). A new folder must be given a layer here before anything can import it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cyclesOf, graphOf, importsIn, tsFiles } from '../helpers/import-graph.js';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** Lower layers never import higher ones. The first matching prefix wins. */
const LAYERS: [prefix: string, layer: number][] = [
  ['contracts/', 0],
  ['deps.ts', 0],
  // Text from files made safe to print (redaction, control characters): below everything that prints or quotes it.
  ['present/', 0],
  ['core/', 1],
  ['observe/parse/', 1],
  // An agent CLI's wing (docs/architecture.md "How to add an agent CLI"): its pure parsers, its readers, its adapter.
  ['agents/claude-code/parse/', 1],
  ['agents/claude-code/act/', 4],
  ['agents/codex/parse/', 1],
  ['agents/codex/row.ts', 1],
  ['agents/codex/commands.ts', 1],
  ['agents/codex/act/', 4],
  ['agents/', 3],
  // The state-dir layout, safe writes and the sync append: every layer above contracts may use them.
  ['files/', 1],
  ['sys/', 2],
  ['version.ts', 2],
  ['journal/', 3],
  ['observe/read/', 3],
  // The OTLP/HTTP receiver: an HTTP server that appends what it gets under the state dir.
  ['receive/', 3],
  ['act/agents/', 4],
  ['act/tracker/', 4],
  ['act/friction/', 4],
  ['act/notify/', 4],
  ['act/telemetry/', 4],
  ['act/recovery/', 5],
  ['options.ts', 6],
  ['check.ts', 6],
  ['check-read.ts', 6],
  ['check-observe.ts', 6],
  ['check-memory.ts', 6],
  ['check-requests.ts', 6],
  ['check-judge.ts', 6],
  ['loop.ts', 7],
  ['watch-view.ts', 8],
  ['watch.ts', 8],
  ['watch-deps.ts', 8],
  ['serve.ts', 8],
  ['commands/', 10],
  ['wiring.ts', 9],
  ['check-wave.ts', 9],
  ['demo/', 10],
  ['cli.ts', 11],
  ['cli-help.ts', 10],
  ['hook-entry.ts', 11],
  ['bundle-cli.ts', 12],
  ['emit-schemas.ts', 11],
  ['index.ts', 12],
];

function layerOf(file: string): number {
  const hit = LAYERS.find(([prefix]) => file === prefix || file.startsWith(prefix));
  if (!hit) throw new Error(`${file} has no layer: add its folder to LAYERS in test/unit/architecture.test.ts and docs/architecture.md`);
  return hit[1];
}

/** Relative imports of one file, as paths relative to src/. */
function importsOf(file: string): string[] {
  return importsIn(file, readFileSync(path.join(src, file), 'utf8'));
}

const files = tsFiles(src);
const graph = graphOf(src, files);

describe('the architecture', () => {
  it('every import points to the same layer or a lower one', () => {
    const upward: string[] = [];
    for (const [file, deps] of graph) {
      for (const dep of deps) {
        if (layerOf(dep) > layerOf(file)) upward.push(`${file} (layer ${layerOf(file)}) → ${dep} (layer ${layerOf(dep)})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import cycle', () => {
    const cycles = cyclesOf(graph);
    expect(cycles).toEqual([]);
  });

  it('the check finds a cycle and an upward arrow when there is one', () => {
    // Guard against a test that cannot fail: the regex sees dynamic imports and re-exports.
    expect(importsOf('act/recovery/perform.ts').length).toBeGreaterThan(0);
    expect(layerOf('cli.ts')).toBeGreaterThan(layerOf('contracts/events.ts'));
  });
});
