// The observe parsers are pure (STYLE §1): no file system, processes, clock or environment.
// The I/O lives in tail-file, tail-store, tail-tracker, find-transcript, hook-activity,
// transcript-tail and claude-observer.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/observe');
const PURE = ['tool-input-summary', 'line-splitter', 'transcript-state', 'parse-transcript-record', 'parse-transcript', 'parse-hook-activity', 'hook-line'];

describe('pure observe modules', () => {
  it.each(PURE)('%s.ts does no I/O and reads no clock', (name) => {
    const text = readFileSync(path.join(src, `${name}.ts`), 'utf8');
    expect(text).not.toMatch(/from 'node:(fs|child_process|os|net|http)'/);
    expect(text).not.toMatch(/Date\.now\(|process\.(env|cwd|hrtime)|performance\.now/);
  });
});
