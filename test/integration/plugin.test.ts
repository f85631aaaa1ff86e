// The Claude Code plugin (the tree scripts/build-plugin.mjs builds, and the package): the manifest,
// the marketplace entry, the skill's front matter and the hooks file, checked against the formats Claude Code reads (plugin manifest: kebab-case name,
// semver, `./` paths; skill: name = folder, description ≤ 1024; hooks: settings.json's shape),
// the hook command run the way Claude Code runs it (sh -c, ${CLAUDE_PLUGIN_ROOT} set), and every
// command the skill tells the lead to run, run.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BUNDLES } from '../../scripts/bundle.mjs';
import { RELEASE_BRANCH } from '../../scripts/release-plugin.mjs';
import { HOOK_EVENTS, hookSettingsBlock, NEWER_HOOK_EVENTS } from '../../src/commands/hook.js';
import { REPO_ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { writeWave } from '../helpers/state.js';

const run = promisify(execFile);
const read = (rel: string) => readFileSync(path.join(REPO_ROOT, rel), 'utf8');
const pkg = JSON.parse(read('package.json')) as { name: string; version: string; files: string[]; license: string };

/** Every hook event Claude Code knew up to 2.1.332 (claude-code-surfaces.md §2.3; its `--strict` validate calls any other "unknown"). */
const KNOWN_EVENTS = new Set(
  'PreToolUse PostToolUse PostToolUseFailure PostToolBatch Notification UserPromptSubmit UserPromptExpansion SessionStart SessionEnd Stop StopFailure SubagentStart SubagentStop PreCompact PostCompact PermissionRequest PermissionDenied Setup TeammateIdle TaskCreated TaskCompleted Elicitation ElicitationResult ConfigChange WorktreeCreate WorktreeRemove InstructionsLoaded CwdChanged FileChanged MessageDisplay'.split(
    ' ',
  ),
);

describe('.claude-plugin/plugin.json', () => {
  const manifest = JSON.parse(read('.claude-plugin/plugin.json')) as Record<string, unknown>;

  it('has a kebab-case name, the package version and a description', () => {
    expect(manifest.name).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
    expect(manifest.name).toBe(pkg.name);
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect(manifest.version).toBe(pkg.version);
    expect(typeof manifest.description).toBe('string');
    expect((manifest.description as string).length).toBeLessThanOrEqual(200);
    expect(manifest.license).toBe(pkg.license);
  });

  it('names one component path, hooks/newer-events.json: skills/ and hooks/hooks.json load from their default place (naming hooks.json again loads it twice)', () => {
    const known = ['name', 'version', 'description', 'author', 'homepage', 'repository', 'license', 'keywords', 'engines', 'hooks'];
    expect(Object.keys(manifest).filter((k) => !known.includes(k))).toEqual([]);
    expect(manifest.hooks).toBe('./hooks/newer-events.json');
    expect(existsSync(path.join(REPO_ROOT, 'skills', 'dispatch-watchdog', 'SKILL.md'))).toBe(true);
    expect(existsSync(path.join(REPO_ROOT, 'hooks', 'hooks.json'))).toBe(true);
  });

  it('declares the Claude Code versions it is tested with (engines, read by 2.1.323+): from 2.1.197, the oldest the install test runs, on', () => {
    // test/long/plugin-install.test.ts installs it with 2.1.197 and 2.1.332; a range that left
    // either out would make 2.1.332 refuse the install.
    expect(manifest.engines).toEqual({ 'claude-code': '>=2.1.197' });
  });
});

describe('.claude-plugin/marketplace.json', () => {
  const market = JSON.parse(read('.claude-plugin/marketplace.json')) as { name: string; plugins: { name: string; source: unknown }[] };

  it("is this repo as a marketplace whose one plugin is fetched from the release branch (the built tree only), not from main's source", () => {
    expect(market.name).toBe(pkg.name);
    expect(market.plugins.map((p) => p.name)).toEqual([pkg.name]);
    const repo = new URL(JSON.parse(read('package.json')).repository.url.replace(/^git\+/, '')).pathname.replace(/^\//, '').replace(/\.git$/, '');
    expect(market.plugins[0]!.source).toEqual({ source: 'github', repo, ref: RELEASE_BRANCH });
  });
});

/** The YAML front matter and the body of a SKILL.md. */
function splitSkill(text: string): { front: Record<string, unknown>; body: string } {
  const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!m) throw new Error('SKILL.md must open with a --- front matter block');
  return { front: parseYaml(m[1]!) as Record<string, unknown>, body: m[2]! };
}

describe('skills/dispatch-watchdog/SKILL.md', () => {
  const skillDirs = readdirSync(path.join(REPO_ROOT, 'skills'));
  const { front, body } = splitSkill(read('skills/dispatch-watchdog/SKILL.md'));

  it('has the front matter Claude Code reads: name = its folder, a description that says when to use it', () => {
    expect(skillDirs).toEqual(['dispatch-watchdog']);
    const known = [
      'name',
      'description',
      'argument-hint',
      'allowed-tools',
      'disable-model-invocation',
      'user-invocable',
      'model',
      'license',
      'compatibility',
      'metadata',
    ];
    expect(Object.keys(front).filter((k) => !known.includes(k))).toEqual([]);
    expect(front.name).toBe('dispatch-watchdog');
    expect(front.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect((front.name as string).length).toBeLessThanOrEqual(64);
    expect(typeof front.description).toBe('string');
    expect((front.description as string).length).toBeLessThanOrEqual(1024);
    expect(front.description).toMatch(/after you dispatch a wave/);
    // The seed's composition passes these flags; the skill hands them to `next`.
    expect(front['argument-hint']).toBe('--epic-id <EPIC> [--timeout <seconds>] [--action report|cancel|redispatch]');
    expect(body).toContain('$ARGUMENTS');
  });

  it("says how to stop an agent and launch its replacement with the prompt from the request, with Claude Code 2.1.197's real tools", () => {
    expect(body).toContain('TaskStop(task_id="<agent_id>")');
    // SendMessage's message is a string (an object is an InputValidationError), for teammates only.
    expect(body).toContain('SendMessage(to="<agent_name>", message="Stop working on <ticket_id> now: <reason>")');
    expect(body).not.toMatch(/message=\{/);
    expect(body).toContain("prompt=<the request's prompt, verbatim>");
    expect(body).toContain('run_in_background: true');
    expect(body).toContain('task_id: <recovery_task_id>');
  });

  it('tells a -p lead to run next in the foreground, and what a failed notification of next means', () => {
    expect(body).toMatch(/\*\*`claude -p` lead\*\*[\s\S]*?\*\*foreground\*\*/);
    expect(body).toContain('**Exits 10–13 are not failures.**');
  });

  it('carries out each request kind', () => {
    for (const kind of ['cancel', 'redispatch', 'resume', 'nudge', 'reconcile']) expect(body).toContain(`**\`${kind}\`**`);
    // A resume is the request's own resume_command, run as given (its values single-quoted: issue 36 item 5).
    expect(body).toContain("the request's `resume_command` exactly as given");
  });
});

/** How the skill runs the CLI: the plugin's own bundle, nothing on the PATH. */
const SKILL_CLI = 'node "${CLAUDE_PLUGIN_ROOT}/bundle/cli.cjs"';

const PLUGIN_COMMAND = 'node "${CLAUDE_PLUGIN_ROOT}/bundle/hook.cjs" --state-dir "${ONEX_STATE_DIR:-${CLAUDE_PROJECT_DIR:-.}/.onex_state}"';

type HooksDoc = { description?: unknown; hooks: Record<string, { matcher?: unknown; hooks: Record<string, unknown>[] }[]> };

describe('hooks/hooks.json and hooks/newer-events.json', () => {
  const doc = JSON.parse(read('hooks/hooks.json')) as HooksDoc;
  const newer = JSON.parse(read('hooks/newer-events.json')) as HooksDoc;

  it.each([
    ['hooks/hooks.json', doc],
    ['hooks/newer-events.json', newer],
  ])('%s has the plugin hooks shape: { description, hooks: { <Event>: [{ matcher?, hooks: [command handlers] }] } }', (_file, d) => {
    expect(Object.keys(d).sort()).toEqual(['description', 'hooks']);
    expect(typeof d.description).toBe('string');
    for (const entries of Object.values(d.hooks)) {
      for (const entry of entries) {
        expect(Object.keys(entry).filter((k) => k !== 'matcher' && k !== 'hooks')).toEqual([]);
        if ('matcher' in entry) expect(typeof entry.matcher).toBe('string');
        for (const h of entry.hooks) {
          expect(h.type).toBe('command');
          expect(typeof h.timeout).toBe('number'); // seconds
          expect(h.command).toBe(PLUGIN_COMMAND);
        }
      }
    }
  });

  it('hooks.json names only events every supported version knows; the newer ones are apart (2.1.197 drops every hook of a file naming one it does not know)', () => {
    for (const event of Object.keys(doc.hooks)) expect(KNOWN_EVENTS.has(event), event).toBe(true);
    expect(Object.keys(newer.hooks)).toEqual([...NEWER_HOOK_EVENTS]);
    for (const event of Object.keys(newer.hooks)) expect(KNOWN_EVENTS.has(event), event).toBe(false);
  });

  it('installs the same handlers as `hook --print-settings`, with a ${CLAUDE_PLUGIN_ROOT}-relative entry that the package ships', () => {
    expect({ ...doc.hooks, ...newer.hooks }).toEqual(hookSettingsBlock(PLUGIN_COMMAND).hooks);
    expect(Object.keys(doc.hooks)).toEqual([...HOOK_EVENTS]);
    // Built into the plugin's tree (scripts/build-plugin.mjs) and the package (prepack), and into bundle/ of a checkout by npm test / npm run build.
    expect(BUNDLES).toContain('bundle/hook.cjs');
    expect(existsSync(path.join(REPO_ROOT, 'bundle', 'hook.cjs'))).toBe(true);
  });

  const payload = JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: 'sess-1',
    agent_id: 'a1b2c3d',
    transcript_path: '/x/sess-1.jsonl',
    cwd: '/x',
    tool_name: 'Bash',
    tool_input: { command: 'npm test' },
    tool_use_id: 'toolu_1',
  });

  it.each([
    { name: 'the project dir', env: (dir: string) => ({ CLAUDE_PROJECT_DIR: dir }), stateDir: (dir: string) => path.join(dir, '.onex_state') },
    {
      name: '$ONEX_STATE_DIR',
      env: (dir: string) => ({ CLAUDE_PROJECT_DIR: path.join(dir, 'elsewhere'), ONEX_STATE_DIR: path.join(dir, 'state') }),
      stateDir: (dir: string) => path.join(dir, 'state'),
    },
  ])('run as Claude Code runs it (sh -c), records into the state dir of $name', async ({ env, stateDir }) => {
    const dir = tempDir();
    mkdirSync(stateDir(dir), { recursive: true });
    const child = execFile('sh', ['-c', PLUGIN_COMMAND], { env: { PATH: process.env.PATH, CLAUDE_PLUGIN_ROOT: REPO_ROOT, ...env(dir) } });
    child.stdin!.end(payload);
    const [code, out] = await new Promise<[number | null, string]>((resolve) => {
      let text = '';
      child.stdout!.on('data', (d) => (text += d));
      child.stderr!.on('data', (d) => (text += d));
      child.on('close', (c) => resolve([c, text]));
    });
    expect([code, out]).toEqual([0, '']);
    const line = JSON.parse(readFileSync(path.join(stateDir(dir), 'activity', 'a1b2c3d.ndjson'), 'utf8')) as Record<string, unknown>;
    expect(line).toMatchObject({ event: 'PreToolUse', agent_id: 'a1b2c3d', tool_name: 'Bash', command: 'npm test' });
  });
});

describe('the package', () => {
  it('ships the plugin: .claude-plugin/, skills/ and hooks/ are in the tarball', async () => {
    for (const f of ['.claude-plugin', 'skills', 'hooks']) expect(pkg.files).toContain(f);
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining(['.claude-plugin/plugin.json', 'skills/dispatch-watchdog/SKILL.md', 'hooks/hooks.json', 'hooks/newer-events.json']),
    );
    // The bundles hooks/hooks.json and the skill run (test/integration/bundle.test.ts).
    expect(files).toEqual(expect.arrayContaining(['bundle/hook.cjs', 'bundle/cli.cjs']));
  });
});

/** Every line of the skill's ```sh blocks: the commands it tells the lead to run. */
function skillCommands(body: string): string[] {
  return [...body.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n').filter((l) => l.trim() !== ''));
}

describe('the commands the skill tells the lead to run', () => {
  const { body } = splitSkill(read('skills/dispatch-watchdog/SKILL.md'));
  const commands = skillCommands(body);

  it('are these (a new one needs a run below)', () => {
    expect(commands).toEqual([
      `${SKILL_CLI} next --epic-id <EPIC> --json`,
      `${SKILL_CLI} ack <KEY>`,
      `${SKILL_CLI} ack <KEY> --task-id <TASK_ID>`,
      `${SKILL_CLI} status --epic-id <EPIC>`,
    ]);
  });

  /**
   * Run one of the skill's commands in `cwd` (the directory holding .onex_state/), placeholders
   * filled, the way the lead's Bash tool does: through sh, ${CLAUDE_PLUGIN_ROOT} already replaced by
   * Claude Code (it fills it in SKILL.md; the Bash tool's environment does not have it), PATH empty
   * of dispatch-watchdog. So it runs the bundle (built into bundle/ by npm test), not dist/.
   */
  const runSkillCommand = (command: string, cwd: string, fill: Record<string, string>, home: string): Promise<CliResult> => {
    const line = command.replaceAll('${CLAUDE_PLUGIN_ROOT}', REPO_ROOT).replace(/<([A-Z_]+)>/g, (_, k: string) => fill[k] ?? `<${k}>`);
    return new Promise((resolve) => {
      execFile(
        'sh',
        ['-c', line],
        { cwd, env: { PATH: path.dirname(process.execPath), HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude') }, timeout: 20_000 },
        (err, stdout, stderr) => {
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
        },
      );
    });
  };

  it('status runs in the project dir', async () => {
    const project = tempDir();
    const home = path.join(project, 'home');
    mkdirSync(home);
    const now = Date.now();
    writeWave(path.join(project, '.onex_state'), 'PROJ-1000', new Date(now - 5_000).toISOString(), [
      { task_id: 't1', ticket_id: 'PROJ-1001', status: 'in_progress', last_activity_ts: new Date(now - 1_000).toISOString() },
    ]);
    expect(
      await runCli(['--epic-id', 'PROJ-1000', '--once', '--action', 'report'], {
        cwd: project,
        env: { HOME: home, ONEX_STATE_DIR: '', CLAUDE_CONFIG_DIR: path.join(home, '.claude') },
      }),
    ).toMatchObject({ code: 0 });
    const status = await runSkillCommand(`${SKILL_CLI} status --epic-id <EPIC>`, project, { EPIC: 'PROJ-1000' }, home);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/t1\s+PROJ-1001\s+healthy/);
  });

  it('next, then the answer the skill describes, then ack, until next says the wave is complete', async () => {
    const project = tempDir();
    const home = path.join(project, 'home');
    mkdirSync(home);
    const state = path.join(project, '.onex_state');
    const old = new Date(Date.now() - 600_000).toISOString();
    writeWave(state, 'PROJ-1000', old, [
      { task_id: 't1', ticket_id: 'PROJ-1001', status: 'in_progress', dispatched_at: old, last_activity_ts: old, agent_id: 'a1', agent_name: 'impl-proj-1001' },
      { task_id: 't2', ticket_id: 'PROJ-1002', status: 'completed', dispatched_at: old },
    ]);
    const first = await runSkillCommand(`${SKILL_CLI} next --epic-id <EPIC> --json`, project, { EPIC: 'PROJ-1000' }, home);
    expect(first.code, first.stderr).toBe(10);
    const doc = JSON.parse(first.stdout) as { reason: string; requests: { key: string; kind: string; recovery_task_id: string; prompt: string }[] };
    expect(doc.reason).toBe('requests');
    const [req] = doc.requests;
    expect(req).toMatchObject({ kind: 'redispatch', recovery_task_id: 't1-r1' });
    // status shows what still waits for the lead.
    const waiting = await runSkillCommand(`${SKILL_CLI} status --epic-id <EPIC>`, project, { EPIC: 'PROJ-1000' }, home);
    expect(waiting.stdout).toMatch(/requests to the orchestrator:\n {2}pending redispatch t1 \(PROJ-1001\) -> t1-r1/);
    // The answer the skill describes: the stalled row cancelled, the replacement's row added.
    const now = new Date().toISOString();
    writeWave(state, 'PROJ-1000', old, [
      { task_id: 't1', ticket_id: 'PROJ-1001', status: 'cancelled', dispatched_at: old, agent_id: 'a1' },
      { task_id: 't2', ticket_id: 'PROJ-1002', status: 'completed', dispatched_at: old },
      {
        task_id: req!.recovery_task_id,
        ticket_id: 'PROJ-1001',
        status: 'completed',
        dispatched_at: now,
        last_activity_ts: now,
        agent_id: 'a2',
        agent_name: 'recovery-PROJ-1001-attempt-1',
      },
    ]);
    const ack = await runSkillCommand(`${SKILL_CLI} ack <KEY>`, project, { KEY: req!.key }, home);
    expect(ack.code, ack.stderr).toBe(0);
    const ackTask = await runSkillCommand(`${SKILL_CLI} ack <KEY> --task-id <TASK_ID>`, project, { KEY: req!.key, TASK_ID: req!.recovery_task_id }, home);
    expect(ackTask.code, ackTask.stderr).toBe(0);
    const unknown = await runSkillCommand(`${SKILL_CLI} ack <KEY>`, project, { KEY: 'PROJ-1000:nope:redispatch' }, home);
    expect(unknown.code).toBe(2);
    const last = await runSkillCommand(`${SKILL_CLI} next --epic-id <EPIC> --json`, project, { EPIC: 'PROJ-1000' }, home);
    expect(last.code, last.stderr).toBe(0);
    expect(JSON.parse(last.stdout)).toMatchObject({ reason: 'wave_complete', pending: [] });
  });
});
