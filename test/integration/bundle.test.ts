// ┌──────────────────────────────────────────────────────────────────────────────────────────┐
// │ After ANY change under src/: run `npm run bundle` and commit bundle/ with the change.      │
// │ On a rebase conflict in bundle/*: take either side, run `npm run bundle`, never hand-merge. │
// └──────────────────────────────────────────────────────────────────────────────────────────┘
// The Claude Code plugin runs from a plain git clone (Claude Code clones it and runs `npm install`,
// never a build), so the hook and the CLI the skill calls are committed files built from src/ by
// scripts/bundle.mjs. This test fails when they differ from a fresh build, and checks what makes
// them fit to commit and to run there: deterministic, no machine paths, nothing heavy loaded.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLES, buildBundles, CLI_EXTERNAL } from '../../scripts/bundle.mjs';
import { REPO_ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
let fresh: Awaited<ReturnType<typeof buildBundles>> = [];
beforeAll(async () => void (fresh = await buildBundles()));

/** Bare module ids a bundle require()s: node built-ins and what it leaves to node_modules. */
const requiresOf = (text: string) => [...new Set([...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!))];

describe('bundle/', () => {
  it.each(BUNDLES)('%s is byte-identical to a fresh build (else: npm run bundle, and commit bundle/)', (file) => {
    const built = fresh.find((b) => b.file === file);
    expect(built, file).toBeDefined();
    const committed = readFileSync(path.join(REPO_ROOT, file), 'utf8');
    // Not toBe: a megabyte of diff helps nobody. The fix is one command.
    if (committed !== built!.text) expect.fail(`${file} is stale: run \`npm run bundle\` and commit bundle/ (it is built from src/ by scripts/bundle.mjs)`);
  });

  it('builds the same bytes twice, with no machine path in them', async () => {
    const again = await buildBundles();
    expect(again.map((b) => b.text)).toEqual(fresh.map((b) => b.text));
    for (const { file, text } of fresh) {
      // As a directory (`/root/`): a short home such as /root is also a word of protobufjs's prose ("namespace/root first").
      for (const machine of [REPO_ROOT, os.homedir(), os.tmpdir()]) expect(text.includes(machine + path.sep), `${file} holds ${machine}`).toBe(false);
    }
  });

  it('the hook holds src/ only and requires node built-ins only, as does the scan worker; the CLI leaves only @linear/sdk and @opentelemetry/* to node_modules', () => {
    const [hook, cli, scan] = BUNDLES.map((f) => fresh.find((b) => b.file === f)!);
    expect(hook!.inputs.filter((f) => !f.startsWith('src/'))).toEqual([]);
    // The log's scan worker is self-contained: the CLI starts it from bundle/ in a plain clone too.
    expect(requiresOf(scan!.text).filter((m) => !isBuiltin(m))).toEqual([]);
    expect(requiresOf(hook!.text).filter((m) => !m.startsWith('node:'))).toEqual([]);
    const external = requiresOf(cli!.text).filter((m) => !isBuiltin(m));
    expect(external).toContain('@linear/sdk');
    expect(external.filter((m) => !CLI_EXTERNAL.some((p) => (p.endsWith('/*') ? m.startsWith(p.slice(0, -1)) : m === p)))).toEqual([]);
  });

  it('runs from a copy holding nothing but bundle/ and package.json: no node_modules, no build', async () => {
    const dir = tempDir();
    cpSync(path.join(REPO_ROOT, 'bundle'), path.join(dir, 'bundle'), { recursive: true });
    cpSync(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
    cpSync(path.join(REPO_ROOT, '.onex_state.example'), path.join(dir, 'example'), { recursive: true });
    const cli = path.join(dir, 'bundle', 'cli.cjs');
    const version = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version as string;
    expect((await run(process.execPath, [cli, '--version'], { cwd: dir })).stdout).toBe(`${version}\n`);
    const check = await run(process.execPath, [cli, '--state-dir', 'example', '--epic-id', 'PROJ-1000', '--now', '2026-04-02T10:10:00Z'], { cwd: dir }).catch((e: { code: number; stdout: string }) => e);
    expect([(check as { code?: number }).code, check.stdout]).toEqual([3, expect.stringMatching(/task-1002\s+PROJ-1002\s+STALLED/)]);
    // The hook, as hooks/hooks.json runs it.
    mkdirSync(path.join(dir, 'state'));
    const hook = execFile(process.execPath, [path.join(dir, 'bundle', 'hook.cjs'), '--state-dir', path.join(dir, 'state')]);
    hook.stdin!.end(JSON.stringify({ hook_event_name: 'Stop', session_id: 'sess-1' }));
    expect(await new Promise((resolve) => hook.on('exit', resolve))).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'state', 'activity', 'sess-1.ndjson'), 'utf8'))).toMatchObject({ event: 'Stop', session_id: 'sess-1' });
  });
});
