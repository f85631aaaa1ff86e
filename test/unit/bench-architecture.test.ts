// bench/ stands outside the source layering (docs/architecture.md "Habits"): it may import src/,
// src/ never imports bench/, and bench/ has no import cycle of its own.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The .ts files under `dir`, relative to the repository root with forward slashes. */
function tsFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const p = path.posix.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports of a source text (static, re-exports and dynamic), as repository paths. */
function importsIn(file: string, text: string): string[] {
  const statics = [...text.matchAll(/^\s*(?:import|export)\b[^;']*?from\s+'(\.{1,2}\/[^']+)'/gm)];
  const dynamics = [...text.matchAll(/\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)];
  return [...statics, ...dynamics].map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
}

/** Every cycle (strongly connected component of two or more files, or a file importing itself) of a graph. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || graph.get(v)?.includes(v)) cycles.push(comp.sort());
    }
  };
  for (const f of graph.keys()) if (!idx.has(f)) visit(f);
  return cycles;
}

const graphOf = (files: string[]) => new Map(files.map((f) => [f, importsIn(f, readFileSync(path.join(root, f), 'utf8'))]));

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
