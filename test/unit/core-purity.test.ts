// The functional core is pure (STYLE §1, §5): contracts → observe parsers → assess → plan take
// plain data and the time as an argument. No file system, processes, clock or environment, and
// no import of the imperative shell (act/, journal/, files/ writers, check, loop, watch, cli).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
// Every file in these folders (and their subfolders) is pure, so a new module inherits the rule by where it lives.
const PURE_DIRS = ['contracts', 'present', 'observe/parse', 'core', 'agents/claude-code/parse', 'agents/codex/parse'];
const modulesUnder = (d: string) =>
  readdirSync(path.join(src, d), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${d}/${f.split(path.sep).join('/')}`);
const CORE = [...PURE_DIRS.flatMap(modulesUnder), 'observe/read/observer.ts'];

describe('the functional core', () => {
  it.each(CORE)('%s does no I/O, reads no clock and imports no shell module', (file) => {
    const text = readFileSync(path.join(src, file), 'utf8');
    expect(text).not.toMatch(/from 'node:(fs|fs\/promises|child_process|os|net|http|https)'/);
    expect(text).not.toMatch(/Date\.now\(|new Date\(\)|process\.(env|cwd|hrtime|kill|pid)|performance\.now/);
    expect(text).not.toMatch(/from '(\.\.\/)+(act|demo|commands|journal|sys)\/|from '(\.\.\/)+(check|loop|watch|cli|wiring|deps|options)\.js'/);
    // files/: the layout (paths.ts) is pure path arithmetic; the writers are not.
    expect(text).not.toMatch(/from '(\.\.\/)+files\/(?!paths\.js')/);
  });
});
