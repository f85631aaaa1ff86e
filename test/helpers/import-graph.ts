// The import graph of a source tree, as the architecture tests read it: relative imports (static,
// re-exports and dynamic) between .ts files, and its cycles (test/unit/architecture.test.ts for
// src/, test/unit/bench-architecture.test.ts for bench/).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The .ts files under `root/dir`, relative to `root` with forward slashes. */
export function tsFiles(root: string, dir = ''): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const p = dir ? path.posix.join(dir, e.name) : e.name;
    if (e.isDirectory()) return tsFiles(root, p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports of a source text (static, re-exports and dynamic), as paths relative to the same root as `file`. */
export function importsIn(file: string, text: string): string[] {
  const statics = [...text.matchAll(/^\s*(?:import|export)\b[^;']*?from\s+'(\.{1,2}\/[^']+)'/gm)];
  const dynamics = [...text.matchAll(/\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)];
  return [...statics, ...dynamics].map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
}

/** The graph of `files` (relative to `root`): each file to the files it imports. */
export function graphOf(root: string, files: readonly string[]): Map<string, string[]> {
  return new Map(files.map((f) => [f, importsIn(f, readFileSync(path.join(root, f), 'utf8'))]));
}

/** Every cycle (Tarjan's strongly connected component of two or more files, or a file importing itself), each sorted. */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
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
