import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendLine, createFileExclusive, writeFileAtomic } from '../../src/files/atomic-write.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('atomic writes', () => {
  it('replaces a file whole and leaves no temp file behind', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'sub', 'watchdog.json');
    await writeFileAtomic(file, 'old\n');
    await writeFileAtomic(file, 'new\n');
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    expect(readdirSync(path.dirname(file))).toEqual(['watchdog.json']);
  });

  it('creates a file exclusively once; the second call changes nothing', async () => {
    const file = path.join(tempDir(), 'marker.json');
    expect(await createFileExclusive(file, 'first')).toBe(true);
    expect(await createFileExclusive(file, 'second')).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('first');
    expect(readdirSync(path.dirname(file))).toEqual(['marker.json']);
  });

  it('appends complete lines and refuses a line with a newline inside', async () => {
    const file = path.join(tempDir(), 'log.ndjson');
    writeFileSync(file, '');
    await Promise.all(Array.from({ length: 50 }, (_, i) => appendLine(file, JSON.stringify({ i, pad: 'x'.repeat(500) }))));
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(50);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    await expect(appendLine(file, 'a\nb')).rejects.toThrow('must not contain a newline');
  });
});
