// What ships (README, docs, schemas, the plugin, every --help) stands alone: no pointer to
// material a user of the package cannot see, and every relative link in the docs resolves.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { REPO_ROOT } from '../helpers/cli.js';

const OUTSIDE = /\bthe seed\b|\bseed's\b|\bupstream node\b|\bDESIGN(\.md| ?§)|§ ?\d|shared\/(reference|fixtures|seeds)|\.\.\/shared\b/i;

function files(rel: string): string[] {
  const abs = path.join(REPO_ROOT, rel);
  if (!existsSync(abs)) return [];
  if (statSync(abs).isFile()) return [rel];
  return readdirSync(abs).flatMap((n) => files(path.join(rel, n)));
}

const shipped = ['README.md', 'docs', 'schemas', 'skills', 'hooks', '.claude-plugin'].flatMap(files);

async function helpOf(argv: string[]): Promise<string> {
  let text = '';
  const output = { out: (t: string) => void (text += t), err: (t: string) => void (text += t) };
  await main({ argv, env: {}, cwd: REPO_ROOT, output, watchDeps: { clock: new ManualClock(0), signal: new AbortController().signal, pid: 1 } });
  return text;
}

describe('shipped text stands alone', () => {
  it.each(shipped)('%s names nothing outside the package', (rel) => {
    const hits = readFileSync(path.join(REPO_ROOT, rel), 'utf8')
      .split('\n')
      .map((line, i) => [i + 1, line] as const)
      .filter(([, line]) => OUTSIDE.test(line));
    expect(hits.map(([n, line]) => `${rel}:${n}: ${line.trim().slice(0, 120)}`)).toEqual([]);
  });

  it('every --help names nothing outside the package', async () => {
    const top = await helpOf(['--help']);
    const names = [...top.matchAll(/^ {2}([a-z][a-z-]*)(?: \[[^\]]*\]| <[^>]*>)*\s{2,}/gm)].map((m) => m[1]!).filter((n) => n !== 'help');
    expect(names).toEqual(expect.arrayContaining(['status', 'friction', 'prune', 'demo']));
    for (const argv of [['--help'], ...names.map((n) => [n, '--help'])]) expect((await helpOf(argv)).split('\n').filter((l) => OUTSIDE.test(l))).toEqual([]);
  });

  it.each(shipped.filter((f) => f.endsWith('.md')))('relative links in %s resolve inside the package', (rel) => {
    const text = readFileSync(path.join(REPO_ROOT, rel), 'utf8');
    const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l) && !l.startsWith('/'));
    expect(links.filter((l) => !existsSync(path.resolve(REPO_ROOT, path.dirname(rel), l)))).toEqual([]);
  });
});
