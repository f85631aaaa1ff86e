// The functional core is pure (STYLE §1, §5): contracts → observe parsers → assess → plan take
// plain data and the time as an argument. No file system, processes, clock or environment, and
// no import of the imperative shell (act/, journal/ I/O, check, loop, watch, cli).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const OBSERVE_PURE = ['tool-input-summary', 'line-splitter', 'transcript-state', 'parse-transcript-record', 'parse-transcript', 'parse-hook-activity', 'hook-line', 'observation', 'observe-row', 'observer'];
const CORE = [
  ...readdirSync(path.join(src, 'contracts')).map((f) => `contracts/${f}`),
  ...OBSERVE_PURE.map((n) => `observe/${n}.ts`),
  'assess.ts', 'plan.ts', 'policy.ts', 'overlay.ts', 'report.ts', 'format.ts', 'journal/history.ts',
];

describe('the functional core', () => {
  it.each(CORE)('%s does no I/O, reads no clock and imports no shell module', (file) => {
    const text = readFileSync(path.join(src, file), 'utf8');
    expect(text).not.toMatch(/from 'node:(fs|fs\/promises|child_process|os|net|http|https)'/);
    expect(text).not.toMatch(/Date\.now\(|new Date\(\)|process\.(env|cwd|hrtime|kill|pid)|performance\.now/);
    expect(text).not.toMatch(/from '\.\.?\/(act|demo)\/|from '\.\/(check|loop|watch|cli|wiring|deps)\.js'|from '\.\.\/(check|loop|watch|cli|wiring|deps)\.js'/);
  });
});
