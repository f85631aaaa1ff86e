// The plugin installed the way Claude Code users install it, with the real Claude Code 2.1.197.
// Two marketplaces over a clone of this working tree (a git repo with one commit): a local one
// whose plugin source is the clone's git URL (what the issue tried: Claude Code clones it into
// ~/.claude/plugins/cache/… and runs `npm install` there, never a build), and the clone itself,
// the repo as its own marketplace (.claude-plugin/marketplace.json, source "./": README's
// `/plugin marketplace add OmniNode-ai/dispatch-watchdog`). After `claude plugin marketplace add`
// + `claude plugin install`, a real `claude -p` session against the scripted model server calls
// tools, which reach activity/ through the installed hook, and calls
// Skill("dispatch-watchdog:dispatch-watchdog"), whose text gives the command the model then runs:
// `next`, from the installed copy's bundle. Then `--plugin-dir` on the bare clone (no npm install,
// no build): the route for trying it once. `claude plugin validate --strict` passes on the repo.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_BIN, claudeEnv, claudeSkip, startClaude } from '../helpers/claude-session.js';
import { REPO_ROOT, until } from '../helpers/cli.js';
import { bash, contentText, startModelServer, text, toolUse, type LoggedRequest, type ModelServer } from '../helpers/model-server.js';
import { writeWave } from '../helpers/state.js';

const run = promisify(execFile);
let server: ModelServer;
let scratch = '';
/** The clone of the working tree (a git repo with one commit), and the HOME that installed it. */
let clone = '';
/** HOME of the git-URL marketplace's install, and where it put the plugin. */
let home = '';
let installPath = '';
/** HOME of the repo-as-marketplace install. */
let repoHome = '';

/** Copy every file git would keep (tracked, or new and not ignored) into `dest`, and commit it there. */
async function cloneWorkingTree(dest: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 });
  for (const f of stdout.split('\0').filter(Boolean)) {
    if (!existsSync(path.join(REPO_ROOT, f))) continue; // deleted in the working tree
    mkdirSync(path.dirname(path.join(dest, f)), { recursive: true });
    cpSync(path.join(REPO_ROOT, f), path.join(dest, f));
  }
  const git = (...args: string[]) => run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dest });
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'snapshot');
}

const claude = (args: string[], inHome = home, timeout = 300_000) => run(CLAUDE_BIN, args, { cwd: scratch, env: claudeEnv(server, inHome), timeout, maxBuffer: 16 * 1024 * 1024 });

beforeAll(async () => {
  server = await startModelServer();
  if (claudeSkip) return;
  scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dw-plugin-')));
  clone = path.join(scratch, 'dispatch-watchdog');
  home = path.join(scratch, 'home');
  repoHome = path.join(scratch, 'home-repo-marketplace');
  mkdirSync(home);
  mkdirSync(repoHome);
  await cloneWorkingTree(clone);
  const market = path.join(scratch, 'marketplace');
  mkdirSync(path.join(market, '.claude-plugin'), { recursive: true });
  const source = { source: 'url', url: `file://${clone}` };
  writeFileSync(path.join(market, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'local', owner: { name: 'test' }, plugins: [{ name: 'dispatch-watchdog', source, description: 'the clone' }] }));
  await claude(['plugin', 'marketplace', 'add', market]);
  await claude(['plugin', 'install', 'dispatch-watchdog@local']);
  const installed = JSON.parse(readFileSync(path.join(home, '.claude', 'plugins', 'installed_plugins.json'), 'utf8')) as { plugins: Record<string, { installPath: string }[]> };
  installPath = installed.plugins['dispatch-watchdog@local']![0]!.installPath;
  await claude(['plugin', 'marketplace', 'add', clone], repoHome);
  await claude(['plugin', 'install', 'dispatch-watchdog@dispatch-watchdog'], repoHome);
}, 600_000);
// Each install holds the plugin's npm install (devDependencies included: ~330 MB with Claude Code itself).
afterAll(async () => {
  await server?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
}, 300_000);

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
async function leadRunsTheSkill(marker: string, opts: { pluginDir?: string; home: string }): Promise<{ command: string; result: string; sessionId: string; stateDir: string; cwd: string }> {
  const cwd = realpathSync(mkdtempSync(path.join(scratch, 'project-')));
  const stateDir = path.join(cwd, '.onex_state');
  const epic = `E-${marker}`;
  // A wave whose only row is finished: next says wave_complete at once (exit 0).
  writeWave(stateDir, epic, new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'completed' }]);
  let command = '';
  server.script(marker, [
    { blocks: [toolUse('Skill', { skill: 'dispatch-watchdog:dispatch-watchdog', args: `--epic-id ${epic}` })] },
    (req) => ({ blocks: [bash((command = nextCommandOf(req, epic)))] }),
    { blocks: [text('The wave is complete.')] },
  ]);
  const s = startClaude({ server, prompt: `${marker}: watch the wave`, cwd, home: opts.home, pluginDir: opts.pluginDir });
  expect(await s.exited, s.stderr()).toEqual({ code: 0, signal: null });
  const last = server.of(marker).find((r) => r.turn === 2);
  expect(last, 'the third model request').toBeDefined();
  return { command, result: contentText(last!.body.messages.at(-1)?.content), sessionId: s.sessionId, stateDir, cwd };
}

/** The activity lines the hook wrote for a session. */
const activityOf = (stateDir: string, sessionId: string) =>
  readFileSync(path.join(stateDir, 'activity', `${sessionId}.ndjson`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { event: string; tool_name?: string; command?: string });

/** The session's activity lines once the Stop line is in (it comes ~0.2 s after the final answer: wait for it, never assume it). */
const activityToStop = (r: { stateDir: string; sessionId: string }) =>
  until(() => {
    const got = existsSync(path.join(r.stateDir, 'activity', `${r.sessionId}.ndjson`)) ? activityOf(r.stateDir, r.sessionId) : [];
    return got.some((l) => l.event === 'Stop') && got;
  }, 30_000, 'the Stop line in activity/');

describe.skipIf(claudeSkip !== undefined)('the plugin, installed with the real Claude Code', () => {
  it('claude plugin validate --strict passes on the repo (marketplace) and on the plugin manifest', async () => {
    for (const target of [REPO_ROOT, path.join(REPO_ROOT, '.claude-plugin', 'plugin.json')]) {
      const { stdout } = await claude(['plugin', 'validate', '--strict', target], home, 60_000);
      expect(stdout).toContain('Validation passed');
    }
  });

  it('is installed into the plugin cache from git, with the committed bundles and no build', () => {
    expect(installPath.startsWith(path.join(home, '.claude', 'plugins', 'cache', 'local', 'dispatch-watchdog'))).toBe(true);
    for (const f of ['bundle/hook.cjs', 'bundle/cli.cjs', 'hooks/hooks.json', 'skills/dispatch-watchdog/SKILL.md']) {
      expect(readFileSync(path.join(installPath, f), 'utf8'), f).toBe(readFileSync(path.join(REPO_ROOT, f), 'utf8'));
    }
    expect(existsSync(path.join(installPath, 'dist')), 'no build ran').toBe(false);
  });

  it("a real session's tool calls reach activity/ through the installed hook, and the skill runs next from the installed copy", async () => {
    const r = await leadRunsTheSkill('PLUGIN-INSTALLED', { home });
    expect(r.command).toBe(`node "${installPath}/bundle/cli.cjs" next --epic-id E-PLUGIN-INSTALLED --json`);
    expect(JSON.parse(r.result)).toMatchObject({ reason: 'wave_complete', epic_id: 'E-PLUGIN-INSTALLED' });
    const lines = await activityToStop(r);
    expect(lines.filter((l) => l.event === 'PreToolUse').map((l) => l.tool_name)).toEqual(['Skill', 'Bash']);
    expect(lines.find((l) => l.event === 'PreToolUse' && l.tool_name === 'Bash')?.command).toBe(r.command);
    expect(lines.filter((l) => l.event === 'PostToolUse').map((l) => l.tool_name)).toEqual(['Skill', 'Bash']);
  });

  it('the repo as its own marketplace (source "./"): the same session works', async () => {
    const r = await leadRunsTheSkill('PLUGIN-REPO-MARKET', { home: repoHome });
    // 2.1.197 gives a relative-path plugin's skill the marketplace's own copy as its root (here the
    // clone, for a GitHub marketplace its clone under ~/.claude/plugins/marketplaces/), not the
    // cache: neither had a build, so the committed bundle is what runs.
    expect(r.command.replace('//', '/')).toBe(`node "${clone}/bundle/cli.cjs" next --epic-id E-PLUGIN-REPO-MARKET --json`);
    expect(JSON.parse(r.result)).toMatchObject({ reason: 'wave_complete' });
    const lines = await activityToStop(r);
    expect(lines.filter((l) => l.event === 'PreToolUse').map((l) => l.tool_name)).toEqual(['Skill', 'Bash']);
  });

  it('--plugin-dir on a bare clone (no npm install, no build) works the same, for trying it once', async () => {
    expect(existsSync(path.join(clone, 'node_modules'))).toBe(false);
    // A HOME of its own: the marketplace install above must not be what answers.
    const bare = path.join(scratch, 'home-plugin-dir');
    mkdirSync(bare);
    const r = await leadRunsTheSkill('PLUGIN-DIR', { pluginDir: clone, home: bare });
    expect(r.command).toBe(`node "${clone}/bundle/cli.cjs" next --epic-id E-PLUGIN-DIR --json`);
    expect(JSON.parse(r.result)).toMatchObject({ reason: 'wave_complete' });
    const lines = await activityToStop(r);
    expect(lines.filter((l) => l.event === 'PreToolUse').map((l) => l.tool_name)).toEqual(['Skill', 'Bash']);
  });
});
