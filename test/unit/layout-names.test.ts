// The state-dir layout is owned once (issue 32 item 4): every path under the state dir is built by
// a StatePaths method (src/files/paths.ts), so no module outside src/files/ spells a layout name
// (`'agents'`, `epics/…/state.yaml`, `dispatch-log/${f}`) in a path it builds.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { STATE_DIR_LAYOUT } from '../../src/files/paths.js';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** The layout's names (a final `*` dropped: its prefix is the name). */
const NAMES = new Set(STATE_DIR_LAYOUT.map((e) => e.name.replace(/\*$/, '').replace(/\.$/, '')));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [path.relative(src, p).split(path.sep).join('/')] : [];
  });
}

/** Where a line of code spells a layout name in a path: `file:line: literal`. */
function layoutSpellings(file: string, text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    const code = line.trim();
    // Comments, and import specifiers (a module path is not a state-dir path).
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*') || /^(import|export)\b.*\bfrom\s/.test(code) || /\bimport\(/.test(code)) return;
    const buildsPath = /\bpath(\.posix)?\.(join|resolve)\(|\breaddir\(/.test(code);
    for (const m of code.matchAll(/'([^'\n]*)'|`([^`\n]*)`|"([^"\n]*)"/g)) {
      const literal = (m[1] ?? m[2] ?? m[3] ?? '').replace(/\$\{[^}]*\}/g, '{}');
      // Prose that names a path (a schema's description, an example in --help) builds none.
      if (/[\s<]/.test(literal)) continue;
      const segments = literal.split('/');
      const isHit = segments.length > 1 ? segments.some((s) => NAMES.has(s)) : buildsPath && NAMES.has(literal);
      if (isHit) out.push(`${file}:${i + 1}: ${m[0]}`);
    }
  });
  return out;
}

describe('the state-dir layout, owned once', () => {
  it('no module outside src/files/ spells a layout name in a path it builds', () => {
    const found = sourceFiles(src)
      .filter((f) => !f.startsWith('files/'))
      .flatMap((f) => layoutSpellings(f, readFileSync(path.join(src, f), 'utf8')));
    expect(found).toEqual([]);
  });

  it('the check finds a spelled name, and lets the same word through where it is no path', () => {
    expect(layoutSpellings('a.ts', "const dir = path.join(paths.epicDir(id), 'agents');")).toEqual(["a.ts:1: 'agents'"]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text under test
    expect(layoutSpellings('a.ts', 'const rel = `dispatch-log/${f}`;')).toEqual(['a.ts:1: `dispatch-log/${f}`']);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text under test
    expect(layoutSpellings('a.ts', 'const f = `epics/${id}/state.yaml`;')).toHaveLength(1);
    expect(layoutSpellings('a.ts', "if (reason === 'requests') return;")).toEqual([]);
    expect(layoutSpellings('a.ts', "import { x } from './act/agents/adapter.js';")).toEqual([]);
    expect(layoutSpellings('a.ts', '// epics/<epic>/requests/<key>.json')).toEqual([]);
  });
});
