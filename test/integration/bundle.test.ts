// The generated files: the bundles (scripts/bundle.mjs) and the Claude Code plugin's tree
// (scripts/build-plugin.mjs), never committed on main (.gitignore), built by `npm run build`,
// `npm test`, `prepack` and the plugin scripts. What makes them fit to run where nothing is
// built and no node_modules of ours exists: deterministic, no machine paths, nothing heavy
// loaded. And the release: scripts/release-plugin.mjs, run in a clean clone of this working
// tree, publishes on the release branch exactly the tree the script builds from src/, once per
// version, and `--check` tells a published tree that is not the build of src/.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLES, buildBundles, CLI_EXTERNAL } from '../../scripts/bundle.mjs';
import { buildPluginTree, writePluginTree } from '../../scripts/build-plugin.mjs';
import { RELEASE_BRANCH, releaseTag } from '../../scripts/release-plugin.mjs';
import { REPO_ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { cloneWorkingTree, GIT_IDENTITY, gitIn } from '../helpers/worktree-clone.js';

const run = promisify(execFile);
let fresh: Awaited<ReturnType<typeof buildBundles>> = [];
beforeAll(async () => void (fresh = await buildBundles()), 120_000);
const version = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version as string;

/** Bare module ids a bundle require()s: node built-ins and what it leaves to node_modules. */
const requiresOf = (text: string) => [...new Set([...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!))];

describe('the bundles', () => {
  it('are not in git: bundle/ and plugin/ are ignored, nothing under them is tracked', async () => {
    expect((await run('git', ['ls-files', '--', 'bundle', 'plugin'], { cwd: REPO_ROOT })).stdout).toBe('');
    const { stdout } = await run('git', ['check-ignore', 'bundle/cli.cjs', 'plugin/bundle/cli.cjs'], { cwd: REPO_ROOT });
    expect(stdout.split('\n').filter(Boolean)).toEqual(['bundle/cli.cjs', 'plugin/bundle/cli.cjs']);
  });

  it.each(BUNDLES)('%s in the checkout is the fresh build (npm test and npm run build write it)', (file) => {
    const built = fresh.find((b) => b.file === file);
    expect(built, file).toBeDefined();
    const abs = path.join(REPO_ROOT, file);
    expect(existsSync(abs), `${file} is missing: npm run build (or npm test) writes it`).toBe(true);
    // Not toBe: a megabyte of diff helps nobody. The fix is one command.
    if (readFileSync(abs, 'utf8') !== built!.text) expect.fail(`${file} is older than src/: run \`npm run build\` (or \`npm run bundle\`)`);
  });

  it('builds the same bytes twice, with no machine path in them', async () => {
    const again = await buildBundles();
    expect(again.map((b) => b.text)).toEqual(fresh.map((b) => b.text));
    for (const { file, text } of fresh) {
      // As a directory (`/root/`): a short home such as /root is also a word of protobufjs's prose ("namespace/root first").
      for (const machine of [REPO_ROOT, realpathSync(REPO_ROOT), os.homedir(), os.tmpdir()])
        expect(text.includes(machine + path.sep), `${file} holds ${machine}`).toBe(false);
      // A node_modules reached through a symlink (a worktree sharing one) is named as the checkout names it.
      expect(text.includes('../node_modules/'), `${file} names a node_modules outside the checkout`).toBe(false);
    }
  }, 120_000);

  it('the hook holds src/ only and requires node built-ins only, as does the scan worker; the CLI leaves only @linear/sdk and @opentelemetry/* to node_modules', () => {
    const [hook, cli, scan] = BUNDLES.map((f) => fresh.find((b) => b.file === f)!);
    expect(hook!.inputs.filter((f) => !f.startsWith('src/'))).toEqual([]);
    // The log's scan worker is self-contained: the CLI starts it from bundle/ in the plugin's tree too.
    expect(requiresOf(scan!.text).filter((m) => !isBuiltin(m))).toEqual([]);
    expect(requiresOf(hook!.text).filter((m) => !m.startsWith('node:'))).toEqual([]);
    const external = requiresOf(cli!.text).filter((m) => !isBuiltin(m));
    expect(external).toContain('@linear/sdk');
    expect(external.filter((m) => !CLI_EXTERNAL.some((p) => (p.endsWith('/*') ? m.startsWith(p.slice(0, -1)) : m === p)))).toEqual([]);
  });

  it('run from the plugin tree alone (no package.json, no node_modules, no build): the version is compiled in', async () => {
    const dir = tempDir();
    const { files } = await writePluginTree(path.join(dir, 'plugin'));
    expect(files.map((f) => f.file).filter((f) => /package(-lock)?\.json$|node_modules/.test(f))).toEqual([]);
    const cli = path.join(dir, 'plugin', 'bundle', 'cli.cjs');
    expect((await run(process.execPath, [cli, '--version'], { cwd: dir })).stdout).toBe(`${version}\n`);
    const check = await run(
      process.execPath,
      [cli, '--state-dir', path.join(REPO_ROOT, '.onex_state.example'), '--epic-id', 'PROJ-1000', '--now', '2026-04-02T10:10:00Z'],
      { cwd: dir },
    ).catch((e: { code: number; stdout: string }) => e);
    expect([(check as { code?: number }).code, check.stdout]).toEqual([3, expect.stringMatching(/task-1002\s+PROJ-1002\s+STALLED/)]);
    // The hook, as hooks/hooks.json runs it.
    mkdirSync(path.join(dir, 'state'));
    const hook = execFile(process.execPath, [path.join(dir, 'plugin', 'bundle', 'hook.cjs'), '--state-dir', path.join(dir, 'state')]);
    hook.stdin!.end(JSON.stringify({ hook_event_name: 'Stop', session_id: 'sess-1' }));
    expect(await new Promise((resolve) => hook.on('exit', resolve))).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'state', 'activity', 'sess-1.ndjson'), 'utf8'))).toMatchObject({ event: 'Stop', session_id: 'sess-1' });
  }, 120_000);
});

describe('the release (scripts/release-plugin.mjs) in a clean clone', () => {
  let clone = '';
  let scratch = '';
  const release = (...args: string[]) =>
    run(process.execPath, [path.join(clone, 'scripts', 'release-plugin.mjs'), ...args], { cwd: clone, env: { ...process.env, ...GIT_IDENTITY } }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
  /** The files of a commit's tree and their bytes. */
  const treeOf = async (ref: string) => {
    const names = (await gitIn(clone, 'ls-tree', '-r', '--name-only', ref)).split('\n');
    return Promise.all(
      names.map(async (file) => ({ file, text: (await run('git', ['show', `${ref}:${file}`], { cwd: clone, maxBuffer: 64 * 1024 * 1024 })).stdout })),
    );
  };

  beforeAll(async () => {
    scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dw-release-')));
    clone = path.join(scratch, 'dispatch-watchdog');
    await cloneWorkingTree(clone);
  }, 120_000);
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('a clean clone holds no generated file', () => {
    for (const f of ['bundle', 'plugin', 'dist']) expect(existsSync(path.join(clone, f)), f).toBe(false);
  });

  it('publishes on the release branch exactly the tree the script builds from src/ (and nothing else), tagged with the version, naming the commit it was built from', async () => {
    const r = await release();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^published ${RELEASE_BRANCH} [0-9a-f]{12} .*${releaseTag(version)}`));
    const published = await treeOf(RELEASE_BRANCH);
    const built = await buildPluginTree();
    expect(published.map((f) => f.file)).toEqual(built.map((f) => f.file));
    for (const { file, text } of built) if (published.find((f) => f.file === file)!.text !== text) expect.fail(`${file} on ${RELEASE_BRANCH} is not the build`);
    expect(published.map((f) => f.file).sort()).toEqual([
      '.claude-plugin/plugin.json',
      'LICENSE',
      'bundle/cli.cjs',
      'bundle/hook.cjs',
      'bundle/log-scan.cjs',
      'hooks/hooks.json',
      'hooks/newer-events.json',
      'skills/dispatch-watchdog/SKILL.md',
    ]);
    expect(await gitIn(clone, 'rev-parse', `${releaseTag(version)}^{commit}`)).toBe(await gitIn(clone, 'rev-parse', RELEASE_BRANCH));
    expect(await gitIn(clone, 'log', '-1', '--format=%s', RELEASE_BRANCH)).toBe(
      `dispatch-watchdog ${version}: the Claude Code plugin, built from ${await gitIn(clone, 'rev-parse', 'main')}`,
    );
    // main is untouched: the checkout, its index and its branch.
    expect(await gitIn(clone, 'status', '--porcelain')).toBe('');
    expect(await gitIn(clone, 'rev-list', '--count', 'main')).toBe('1');
    expect((await release('--check')).stdout).toBe(`${RELEASE_BRANCH} is exactly the plugin tree src/ builds\n`);
  }, 180_000);

  it('publishing an unchanged tree again makes no commit', async () => {
    const before = await gitIn(clone, 'rev-parse', RELEASE_BRANCH);
    const r = await release();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^already published/);
    expect(await gitIn(clone, 'rev-parse', RELEASE_BRANCH)).toBe(before);
  }, 180_000);

  it('after a source change: --check names what differs, the same version is refused, a new version is the next commit of the branch', async () => {
    const before = await gitIn(clone, 'rev-parse', RELEASE_BRANCH);
    const file = path.join(clone, 'src', 'bundle-cli.ts');
    writeFileSync(file, `${readFileSync(file, 'utf8')}if (process.env.DW_A_CHANGE) console.log('a change');\n`);
    const dirty = await release();
    expect([dirty.code, dirty.stderr]).toEqual([1, expect.stringContaining("uncommitted changes in the plugin's inputs")]);
    await gitIn(clone, 'commit', '-qam', 'a source change');
    const stale = await release('--check');
    expect([stale.code, stale.stderr]).toEqual([1, `${RELEASE_BRANCH} is not the plugin tree src/ builds; these differ: bundle/cli.cjs\n`]);
    const same = await release();
    expect([same.code, same.stderr]).toEqual([1, expect.stringContaining(`${releaseTag(version)} is already published with another tree: bump the version`)]);
    const bump = (rel: string) =>
      writeFileSync(path.join(clone, rel), readFileSync(path.join(clone, rel), 'utf8').replace(`"version": "${version}"`, '"version": "9.9.9"'));
    bump('package.json');
    await gitIn(clone, 'commit', '-qam', 'version 9.9.9 in package.json only');
    const half = await release();
    expect([half.code, half.stderr]).toEqual([
      1,
      expect.stringContaining(`.claude-plugin/plugin.json says version ${version}, package.json 9.9.9: make them the same`),
    ]);
    bump('.claude-plugin/plugin.json');
    await gitIn(clone, 'commit', '-qam', 'version 9.9.9');
    const next = await release();
    expect(next.code, next.stderr).toBe(0);
    expect(await gitIn(clone, 'rev-parse', `${RELEASE_BRANCH}^`)).toBe(before);
    expect(await gitIn(clone, 'rev-parse', `${releaseTag('9.9.9')}^{commit}`)).toBe(await gitIn(clone, 'rev-parse', RELEASE_BRANCH));
    expect((await release('--check')).code).toBe(0);
  }, 300_000);
});
