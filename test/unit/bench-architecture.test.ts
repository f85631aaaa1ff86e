// bench/ stands outside the source layering (docs/architecture.md "Habits"): it may import src/,
// src/ never imports bench/, and bench/ has no import cycle of its own.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cyclesOf, graphOf as graphOfFiles, importsIn, tsFiles as tsFilesUnder } from '../helpers/import-graph.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const tsFiles = (dir: string) => tsFilesUnder(root, dir);
const graphOf = (files: string[]) => graphOfFiles(root, files);

describe('bench/ outside the source layering', () => {
  it('bench/ has no import cycle', () => {
    const bench = graphOf(tsFiles('bench'));
    expect(bench.size).toBeGreaterThan(5);
    expect(cyclesOf(bench)).toEqual([]);
  });

  it('src/ never imports bench/', () => {
    const up = [...graphOf(tsFiles('src'))].flatMap(([f, deps]) => deps.filter((d) => d.startsWith('bench/')).map((d) => `${f} → ${d}`));
    expect(up).toEqual([]);
  });

  it('the checks can fail: a cycle is found, and an import of bench/ from src/ is seen as one', () => {
    const g = new Map([
      ['bench/a.ts', importsIn('bench/a.ts', "import { b } from './b.js';")],
      ['bench/b.ts', importsIn('bench/b.ts', "export { a } from './a.js';")],
      ['bench/c.ts', importsIn('bench/c.ts', "const m = await import('./a.js');")],
    ]);
    expect(cyclesOf(g)).toEqual([['bench/a.ts', 'bench/b.ts']]);
    expect(importsIn('src/watch.ts', "import { x } from '../bench/figures.js';")).toEqual(['bench/figures.ts']);
  });
});
