// The plugin installed the way Claude Code users install it, exactly as a release publishes it,
// with the real Claude Code 2.1.337 (the pinned newest) and 2.1.197, offline. A clean clone of this working tree (no
// generated file) runs the release (scripts/release-plugin.mjs: the built tree committed onto its
// branch claude-plugin); the clone is then the repo as its own marketplace. Its marketplace entry is
// what main ships: `github` OmniNode-ai/dispatch-watchdog, ref claude-plugin. The HOME each Claude
// Code runs in has a git `url.<clone>.insteadOf` for that repository's SSH and HTTPS addresses, so
// the fetch Claude Code makes of GitHub lands on the clone: nothing in the entry is changed for the
// test. Then `claude plugin marketplace add <clone>` + `claude plugin install
// dispatch-watchdog@dispatch-watchdog` (timed), and what is in the plugin cache: the release's
// files and nothing else, ≤ 5 MB, no node_modules. A real `claude -p` session against the scripted
// model server calls tools, which reach activity/ through the installed hook, and calls
// Skill("dispatch-watchdog:dispatch-watchdog"), whose text gives the command the model runs:
// `next`, from the installed copy's bundle. Then the `--plugin-dir` routes the README gives (a
// clone of the release branch; `npm run build:plugin` in a clone of main), `claude plugin
// validate`, and `npm pack` of the clean clone (prepack builds the bundles the package ships).
//
// The install time: the issue asks ≤ 3 s on an idle machine. The suite runs on a shared 2-core
// machine under other test runs (and CI adds CPU hogs), so the bound asserted is 3 s times the
// load per core when that is above 1 (os.loadavg), and the figures are printed either way.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASE_BRANCH } from '../../scripts/release-plugin.mjs';
import { CLAUDE_BIN, CLAUDE_BIN_LATEST, claudeBin, claudeEnv, claudeSkip, NEWEST, startClaude } from '../helpers/claude-session.js';
import { REPO_ROOT, until } from '../helpers/cli.js';
import { bash, contentText, startModelServer, text, toolUse, type LoggedRequest, type ModelServer } from '../helpers/model-server.js';
import { writeWave } from '../helpers/state.js';
import { cloneWorkingTree, GIT_IDENTITY, gitIn } from '../helpers/worktree-clone.js';

const run = promisify(execFile);
const MB = 1024 * 1024;
let server: ModelServer;
let scratch = '';
/** The clean clone of the working tree, with the release branch published in it. */
let clone = '';
/** The release branch's files (path → bytes), what every install must hold. */
const released = new Map<string, string>();
const repoSlug = new URL(
  (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { repository: { url: string } }).repository.url.replace(/^git\+/, ''),
).pathname
  .replace(/^\//, '')
  .replace(/\.git$/, '');

const VERSIONS = [
  { version: NEWEST, bin: CLAUDE_BIN_LATEST },
  { version: '2.1.197', bin: CLAUDE_BIN },
];

const claude = (bin: string, args: string[], home: string, timeout = 300_000) =>
  run(bin, args, { cwd: scratch, env: claudeEnv(server, home), timeout, maxBuffer: 16 * 1024 * 1024 });

/** Every file under `dir` (relative) and the bytes they hold, symlinks not followed. */
function walk(dir: string, rel = ''): { file: string; bytes: number }[] {
  return readdirSync(path.join(dir, rel)).flatMap((name) => {
    const r = path.join(rel, name);
    const st = lstatSync(path.join(dir, r));
    return st.isDirectory() ? walk(dir, r) : [{ file: r.split(path.sep).join('/'), bytes: st.size }];
  });
}

beforeAll(async () => {
  server = await startModelServer();
  if (claudeSkip) return;
  scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dw-plugin-')));
  clone = path.join(scratch, 'dispatch-watchdog');
  await cloneWorkingTree(clone);
  await run(process.execPath, [path.join(clone, 'scripts', 'release-plugin.mjs')], { cwd: clone, env: { ...process.env, ...GIT_IDENTITY } });
  for (const file of (await gitIn(clone, 'ls-tree', '-r', '--name-only', RELEASE_BRANCH)).split('\n')) {
    released.set(file, (await run('git', ['show', `${RELEASE_BRANCH}:${file}`], { cwd: clone, maxBuffer: 64 * MB })).stdout);
  }
}, 600_000);
afterAll(async () => {
  await server?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
}, 300_000);

/** A HOME whose git fetches the GitHub repository from the clone (what a user's git fetches from GitHub). */
function homeFetchingGitHubFromClone(name: string): string {
  const home = path.join(scratch, name);
  mkdirSync(home);
  const to = `file://${clone}`;
  writeFileSync(
    path.join(home, '.gitconfig'),
    `[url "${to}"]\n\tinsteadOf = git@github.com:${repoSlug}.git\n\tinsteadOf = https://github.com/${repoSlug}.git\n`,
  );
  return home;
}

/** The `next` line of the skill's text as the model received it, <EPIC> filled in. */
function nextCommandOf(req: LoggedRequest, epic: string): string {
  const skillText = contentText(req.body.messages.at(-1)?.content);
  const line = /^node "[^"\n]+\/bundle\/cli\.cjs" next --epic-id <EPIC> --json$/m.exec(skillText)?.[0];
  if (!line) throw new Error(`the skill's text has no next command:\n${skillText.slice(0, 2000)}`);
  return line.replace('<EPIC>', epic);
}

/**
 * A lead that loads the skill, then runs the `next` command its text gives (in the foreground, to
 * keep the test short), then answers. Resolves with the command it ran and the Bash result.
 */
async function leadRunsTheSkill(
  marker: string,
  opts: { pluginDir?: string; home: string; bin?: string },
): Promise<{ command: string; result: string; sessionId: string; stateDir: string }> {
  const cwd = realpathSync(mkdtempSync(path.join(scratch, 'project-')));
  const stateDir = path.join(cwd, '.onex_state');
  const epic = `E-${marker}`;
  // A wave whose only row is finished: next says wave_complete at once (exit 0).
  writeWave(stateDir, epic, new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'completed' }]);
  let command = '';
  const sessionId = randomUUID();
  server.script(marker, [
    { blocks: [toolUse('Skill', { skill: 'dispatch-watchdog:dispatch-watchdog', args: `--epic-id ${epic}` })] },
    (req) => ({ blocks: [bash((command = nextCommandOf(req, epic)))] }),
    // The final answer waits for the Bash call's PostToolUse line. Each hook runs as a process of
    // its own, and a `-p` session whose model answers at once exits before that hook wrote its line
    // (2.1.332 under load in a clean-clone CI run: PreToolUse(Bash), Stop, SessionEnd and no
    // PostToolUse). The line must still come through the installed hook (activityToStop), only
    // not race the session's end; a line that never comes holds the answer 30 s, then fails there.
    () => ({ blocks: [text('The wave is complete.')], hold: lineLanded(stateDir, sessionId, 'PostToolUse', 'Bash') }),
  ]);
  const s = startClaude({ server, prompt: `${marker}: watch the wave`, cwd, home: opts.home, pluginDir: opts.pluginDir, bin: opts.bin, sessionId });
  expect(await s.exited, s.stderr()).toEqual({ code: 0, signal: null });
  const last = server.of(marker).find((r) => r.turn === 2);
  expect(last, 'the third model request').toBeDefined();
  return { command, result: contentText(last!.body.messages.at(-1)?.content), sessionId: s.sessionId, stateDir };
}

/** The activity lines the hook wrote for a session. */
const activityOf = (stateDir: string, sessionId: string) =>
  readFileSync(path.join(stateDir, 'activity', `${sessionId}.ndjson`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { event: string; tool_name?: string; command?: string });

/** Resolves once the session's activity holds a line of `event` for `tool`, or after 30 s (the caller's assertions say what is missing). */
const lineLanded = (stateDir: string, sessionId: string, event: string, tool: string): Promise<unknown> =>
  until(
    () =>
      existsSync(path.join(stateDir, 'activity', `${sessionId}.ndjson`)) &&
      activityOf(stateDir, sessionId).some((l) => l.event === event && l.tool_name === tool),
    30_000,
    `a ${event}(${tool}) line in activity/`,
  ).catch(() => undefined);

/**
 * The session's activity lines once the Stop line and both PostToolUse lines are in: each hook
 * runs as its own process, so the Stop line (~0.2 s after the final answer) may land before the
 * last PostToolUse line (seen with 2.1.332 in a clean-clone CI run): wait for them, never assume.
 */
const activityToStop = async (r: { stateDir: string; sessionId: string }) => {
  const seen = () => (existsSync(path.join(r.stateDir, 'activity', `${r.sessionId}.ndjson`)) ? activityOf(r.stateDir, r.sessionId) : []);
  try {
    return await until(
      () => {
        const got = seen();
        return got.some((l) => l.event === 'Stop') && got.filter((l) => l.event === 'PostToolUse').length >= 2 && got;
      },
      30_000,
      'the Stop line and both PostToolUse lines in activity/',
    );
  } catch (e) {
    // Say which line never came (it failed once under load in a clean-clone CI run, 2.1.197).
    const lines = seen().map((l) => `${l.event}${l.tool_name ? `(${l.tool_name})` : ''}`);
    throw new Error(`${(e as Error).message}; the lines there: ${lines.join(', ') || 'none'}`);
  }
};

/** The session ran the skill's next (wave complete) and its tool calls reached activity/ through the hook. */
async function expectSkillAndHookWork(r: Awaited<ReturnType<typeof leadRunsTheSkill>>, root: string, epic: string): Promise<void> {
  expect(r.command.replace('//', '/')).toBe(`node "${root}/bundle/cli.cjs" next --epic-id ${epic} --json`);
  expect(JSON.parse(r.result)).toMatchObject({ reason: 'wave_complete', epic_id: epic });
  const lines = await activityToStop(r);
  expect(lines.filter((l) => l.event === 'PreToolUse').map((l) => l.tool_name)).toEqual(['Skill', 'Bash']);
  expect(lines.find((l) => l.event === 'PreToolUse' && l.tool_name === 'Bash')?.command).toBe(r.command);
  expect(lines.filter((l) => l.event === 'PostToolUse').map((l) => l.tool_name)).toEqual(['Skill', 'Bash']);
}

describe.skipIf(claudeSkip !== undefined)('the release, the way it is published', () => {
  it('is the built plugin and nothing else: no package.json, no lockfile, ≤ 5 MB', () => {
    expect([...released.keys()].sort()).toEqual([
      '.claude-plugin/plugin.json',
      'LICENSE',
      'bundle/cli.cjs',
      'bundle/hook.cjs',
      'bundle/log-scan.cjs',
      'hooks/hooks.json',
      'hooks/newer-events.json',
      'skills/dispatch-watchdog/SKILL.md',
    ]);
    const bytes = [...released.values()].reduce((n, t) => n + Buffer.byteLength(t), 0);
    console.log(`release branch ${RELEASE_BRANCH}: ${released.size} files, ${(bytes / MB).toFixed(2)} MB`);
    expect(bytes).toBeLessThanOrEqual(5 * MB);
  });
});

describe.skipIf(claudeSkip !== undefined).each(VERSIONS)(
  'the plugin installed from the repo as its own marketplace by Claude Code $version',
  ({ version, bin }) => {
    let home = '';
    let installPath = '';
    let installSeconds = 0;
    /** The wall time of `claude plugin list` just before: Claude Code's own start on this machine now. */
    let startSeconds = 0;

    beforeAll(async () => {
      if (claudeSkip) return;
      expect((await run(bin, ['--version'], { env: claudeEnv(server, scratch) })).stdout).toContain(version);
      home = homeFetchingGitHubFromClone(`home-${version}`);
      await claude(bin, ['plugin', 'marketplace', 'add', clone], home);
      const t = performance.now();
      await claude(bin, ['plugin', 'list'], home);
      startSeconds = (performance.now() - t) / 1000;
      const t0 = performance.now();
      await claude(bin, ['plugin', 'install', 'dispatch-watchdog@dispatch-watchdog'], home);
      installSeconds = (performance.now() - t0) / 1000;
      const installed = JSON.parse(readFileSync(path.join(home, '.claude', 'plugins', 'installed_plugins.json'), 'utf8')) as {
        plugins: Record<string, { installPath: string }[]>;
      };
      installPath = installed.plugins['dispatch-watchdog@dispatch-watchdog']![0]!.installPath;
    }, 600_000);

    it('holds in the plugin cache exactly the release: its files, byte for byte, no node_modules, ≤ 5 MB; installed within 3 s (scaled by the load)', () => {
      const cache = path.join(home, '.claude', 'plugins', 'cache');
      expect(installPath.startsWith(path.join(cache, 'dispatch-watchdog', 'dispatch-watchdog'))).toBe(true);
      const all = walk(cache);
      const bytes = all.reduce((n, f) => n + f.bytes, 0);
      // Beside the plugin's files: 2.1.197 keeps the clone's .git (~0.6 MB; 2.1.332 removes it), and
      // .in_use/ is Claude Code's own mark of a process using this copy.
      const inPlugin = walk(installPath).filter((f) => !f.file.startsWith('.git/') && !f.file.startsWith('.in_use/'));
      const [load] = os.loadavg();
      const perCore = load! / os.availableParallelism();
      const bound = 3 * Math.max(1, perCore);
      console.log(
        `Claude Code ${version}: plugin cache ${(bytes / MB).toFixed(2)} MB in ${all.length} files (${inPlugin.length} of them the plugin's); install ${installSeconds.toFixed(2)} s, \`claude plugin list\` just before ${startSeconds.toFixed(2)} s (load ${load!.toFixed(1)} on ${os.availableParallelism()} cores: bound ${bound.toFixed(1)} s)`,
      );
      expect(all.filter((f) => f.file.split('/').includes('node_modules'))).toEqual([]);
      expect(bytes).toBeLessThanOrEqual(5 * MB);
      expect(inPlugin.map((f) => f.file).sort()).toEqual([...released.keys()].sort());
      for (const [file, text] of released)
        if (readFileSync(path.join(installPath, file), 'utf8') !== text) expect.fail(`${file} in the cache is not the release's`);
      expect(installSeconds).toBeLessThanOrEqual(bound);
    });

    it("a real session's tool calls reach activity/ through the installed hook, and the skill runs next from the installed copy", async () => {
      const marker = `PLUGIN-${version.replaceAll('.', '')}`;
      const r = await leadRunsTheSkill(marker, { home, bin });
      await expectSkillAndHookWork(r, installPath, `E-${marker}`);
    }, 300_000);
  },
);

describe.skipIf(claudeSkip !== undefined)('the other routes', () => {
  it(`claude plugin validate: ${NEWEST} --strict passes on the release, and on the repo (marketplace) but for its bin/ warning; 2.1.332 on both but for the Interrupt event it does not know; 2.1.197 knows every field but engines (it ignores it at load time)`, async () => {
    const tree = path.join(scratch, 'validate-release');
    await gitIn(clone, 'worktree', 'add', '-q', '--detach', tree, RELEASE_BRANCH);
    const home = path.join(scratch, 'home-validate');
    mkdirSync(home);
    const release = path.join(tree, '.claude-plugin', 'plugin.json');
    // 2.1.332 knows no Interrupt event (2.1.335+): hooks/newer-events.json's one entry is its only
    // warning, and it ignores the entry at run time (test/realagent/interrupt-hook.test.ts).
    for (const target of [clone, release]) {
      const { stdout } = await claude(claudeBin('2.1.332'), ['plugin', 'validate', target], home, 120_000);
      expect(stdout).toContain('Validation passed');
      expect(stdout.split('Provides:')[0]!.match(/❯ [^\n]*/g)).toEqual(['❯ hooks: hooks.Interrupt: unknown hook event; entry ignored at runtime']);
    }
    // What users install (the release branch, no bin/) passes the newest --strict.
    expect((await claude(CLAUDE_BIN_LATEST, ['plugin', 'validate', '--strict', release], home, 120_000)).stdout).toContain('Validation passed');
    // The repo's root is the marketplace and a plugin holding the npm package's bin/: 2.1.337 warns
    // that claude.ai's plugin directory refuses files in bin/ (Claude Code loads them). Its only warning.
    const repo = await claude(CLAUDE_BIN_LATEST, ['plugin', 'validate', clone], home, 120_000);
    expect(repo.stdout).toContain('Validation passed');
    expect(repo.stdout.split('Provides:')[0]!.match(/❯ [^\n]*/g)).toEqual([
      expect.stringMatching(/^❯ bin: claude\.ai refuses a plugin with files in its bin\/ folder/),
    ]);
    expect((await claude(CLAUDE_BIN, ['plugin', 'validate', '--strict', clone], home, 120_000)).stdout).toContain('Validation passed');
    const old = await claude(CLAUDE_BIN, ['plugin', 'validate', release], home, 120_000);
    expect(old.stdout).toContain('Validation passed');
    expect(old.stdout.match(/❯ [^\n]*/g)).toEqual([expect.stringMatching(/^❯ engines: Unknown field 'engines'/)]);
  }, 300_000);

  it('--plugin-dir on a clone of the release branch (no npm install, no build), with 2.1.197', async () => {
    const dir = path.join(scratch, 'dw-plugin');
    await run('git', ['clone', '-q', '-b', RELEASE_BRANCH, `file://${clone}`, dir]);
    // A HOME of its own: no marketplace install may be what answers.
    const home = path.join(scratch, 'home-plugin-dir');
    mkdirSync(home);
    const r = await leadRunsTheSkill('PLUGIN-DIR-RELEASE', { pluginDir: dir, home });
    await expectSkillAndHookWork(r, dir, 'E-PLUGIN-DIR-RELEASE');
  }, 300_000);

  it(`--plugin-dir on plugin/ built by npm run build:plugin in a clone of main, with ${NEWEST}`, async () => {
    await run('npm', ['run', 'build:plugin'], { cwd: clone, timeout: 120_000 });
    expect(existsSync(path.join(clone, 'plugin', 'package.json'))).toBe(false);
    const home = path.join(scratch, 'home-plugin-dir-built');
    mkdirSync(home);
    const r = await leadRunsTheSkill('PLUGIN-DIR-BUILT', { pluginDir: path.join(clone, 'plugin'), home, bin: CLAUDE_BIN_LATEST });
    await expectSkillAndHookWork(r, path.join(clone, 'plugin'), 'E-PLUGIN-DIR-BUILT');
  }, 300_000);

  it('npm pack of the clean clone builds (prepack) and ships the bundles the package runs', async () => {
    expect(existsSync(path.join(clone, 'dist'))).toBe(false);
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json'], {
      cwd: clone,
      timeout: 300_000,
      maxBuffer: 16 * MB,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    const files = (JSON.parse(stdout.slice(stdout.indexOf('['))) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'bundle/hook.cjs',
        'bundle/cli.cjs',
        'bundle/log-scan.cjs',
        'dist/src/cli.js',
        '.claude-plugin/plugin.json',
        'hooks/hooks.json',
        'hooks/newer-events.json',
        'skills/dispatch-watchdog/SKILL.md',
      ]),
    );
  }, 300_000);
});
