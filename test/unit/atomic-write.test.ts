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

  it('writes large texts byte for byte: multi-byte text, a shorter text after a longer one, writes at once', async () => {
    const dir = tempDir();
    const big = (n: number, c: string) => `{"a":"${c.repeat(n)}"}`;
    const texts = [big(200_000, 'é'), big(300_000, 'x'), big(90_000, '😀'), big(70_000, 'y')];
    for (const [i, t] of texts.entries()) {
      const file = path.join(dir, `one-${i}.json`);
      await writeFileAtomic(file, `${t}\n`);
      expect(readFileSync(file, 'utf8')).toBe(`${t}\n`);
    }
    // Concurrent writes: none is mixed.
    const files = texts.map((_, i) => path.join(dir, `many-${i}.json`));
    await Promise.all(texts.map((t, i) => writeFileAtomic(files[i]!, t)));
    for (const [i, t] of texts.entries()) expect(readFileSync(files[i]!, 'utf8')).toBe(t);
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
