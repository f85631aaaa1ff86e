// `hook install|uninstall`: merges our block into the right settings file as a text edit (other
// settings keep their bytes), idempotently, with one backup outside the project; refuses a
// package-manager cache path.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/contracts/errors.js';
import { Readable } from 'node:stream';
import { hookMain, hookSettingsBlock } from '../../src/commands/hook.js';
import { backupFileFor, packageCacheOf, runHookInstall, settingsFileFor, type HookInstallOptions } from '../../src/commands/hook-install.js';
import { isOurHookCommand, planHookInstall, planHookUninstall } from '../../src/commands/hook-settings.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const ENTRY = '/opt/dw/node_modules/dispatch-watchdog/dist/src/hook-entry.js';
const block = (stateDir = '/srv/state') => hookSettingsBlock(`node ${ENTRY} --state-dir ${stateDir}`);

// A settings file as a person writes it: 4-space indent, an inline entry, other keys and hooks.
const USER_SETTINGS = `{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "~/bin/guard.sh" } ] }
        ],
        "SessionStart": [{"hooks":[{"type":"command","command":"echo hi"}]}]
    },
    "env": { "FOO": "1" }
}
`;

function capture() {
  const out = { stdout: '', stderr: '' };
  return { out, output: { out: (t: string) => (out.stdout += t), err: (t: string) => (out.stderr += t) } };
}

function project(): { cwd: string; home: string; opts: (o?: Partial<HookInstallOptions>) => HookInstallOptions; settings: string } {
  const root = tempDir();
  const cwd = path.join(root, 'proj');
  const home = path.join(root, 'home');
  mkdirSync(path.join(cwd, '.onex_state'), { recursive: true });
  mkdirSync(home);
  const opts = (o: Partial<HookInstallOptions> = {}): HookInstallOptions => ({
    scope: 'local',
    isDryRun: false,
    stateDir: path.join(cwd, '.onex_state'),
    env: { HOME: home },
    cwd,
    entryPath: ENTRY,
    ...o,
  });
  return { cwd, home, opts, settings: path.join(cwd, '.claude', 'settings.local.json') };
}

/** Every file under `dir`, relative (none when it does not exist). */
const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => statSync(path.join(dir, f)).isFile())
        .sort()
    : [];

describe('planHookInstall / planHookUninstall (text edits)', () => {
  it('adds our handler to every event and keeps every other byte; uninstall gives the original back', () => {
    const edit = planHookInstall(USER_SETTINGS, block(), 'settings.json');
    expect(edit).toMatchObject({ isChanged: true, removed: 0 });
    // The user's own entries are still there, character for character.
    expect(edit.text).toContain('            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "~/bin/guard.sh" } ] },\n');
    expect(edit.text).toContain('"SessionStart": [{"hooks":[{"type":"command","command":"echo hi"}]}]');
    expect(edit.text.startsWith('{\n    "model": "opus",\n    "hooks": {\n        "PreToolUse": [\n')).toBe(true);
    expect(edit.text.endsWith('    },\n    "env": { "FOO": "1" }\n}\n')).toBe(true);
    const parsed = JSON.parse(edit.text) as { hooks: Record<string, { hooks: { command: string }[] }[]>; model: string };
    expect(parsed.model).toBe('opus');
    expect(parsed.hooks.PreToolUse!.map((e) => e.hooks[0]!.command)).toEqual(['~/bin/guard.sh', `node ${ENTRY} --state-dir /srv/state`]);
    expect(Object.keys(parsed.hooks)).toEqual([
      'PreToolUse',
      'SessionStart',
      'PostToolUse',
      'PostToolUseFailure',
      'SubagentStart',
      'SubagentStop',
      'Stop',
      'StopFailure',
      'Notification',
      'PermissionRequest',
      'SessionEnd',
      'Interrupt',
    ]);
    // New entries follow the file's own 4-space indentation.
    expect(edit.text).toContain('\n        "Stop": [\n            {\n                "hooks": [\n');
    expect(planHookUninstall(edit.text, 'settings.json')).toEqual({ text: USER_SETTINGS, isChanged: true, removed: 11, added: [] });
  });

  it('changes nothing when the same block is already installed', () => {
    const once = planHookInstall(USER_SETTINGS, block(), 'settings.json').text;
    expect(planHookInstall(once, block(), 'settings.json')).toEqual({ text: once, isChanged: false, removed: 0, added: [] });
  });

  it('replaces an older install (another state dir, or the bin form) instead of adding a second one', () => {
    const old = planHookInstall(USER_SETTINGS, hookSettingsBlock('dispatch-watchdog hook'), 'settings.json').text;
    const edit = planHookInstall(old, block('/new/state'), 'settings.json');
    expect(edit).toMatchObject({ isChanged: true, removed: 11 });
    const commands = JSON.stringify(JSON.parse(edit.text)).match(/"command":"[^"]*"/g);
    expect(commands).toEqual([
      '"command":"~/bin/guard.sh"',
      `"command":"node ${ENTRY} --state-dir /new/state"`,
      '"command":"echo hi"',
      ...Array(10).fill(`"command":"node ${ENTRY} --state-dir /new/state"`),
    ]);
  });

  it('an install from before Interrupt (the 10 events 2.1.197 knows) gains it when installed again', () => {
    const { Interrupt: _, ...older } = block().hooks;
    const before = planHookInstall(USER_SETTINGS, { hooks: older }, 'settings.json').text;
    const edit = planHookInstall(before, block(), 'settings.json');
    expect(edit).toMatchObject({ isChanged: true, removed: 10, added: Object.keys(block().hooks) });
    expect(Object.keys((JSON.parse(edit.text) as { hooks: object }).hooks)).toContain('Interrupt');
  });

  it('takes only our handler out of an entry it shares with the user', () => {
    const shared = `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"},{"type":"command","command":"dispatch-watchdog hook"}]}]}}`;
    expect(planHookUninstall(shared, 's.json').text).toBe(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}`);
  });

  it('writes a compact file compactly and a new file with 2 spaces', () => {
    const compact = planHookInstall('{"model":"opus"}', block(), 's.json').text;
    expect(compact.startsWith('{"model":"opus","hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command"')).toBe(true);
    expect(planHookUninstall(compact, 's.json').text).toBe('{"model":"opus"}');
    expect(planHookInstall(undefined, block(), 's.json').text).toBe(JSON.stringify(block(), null, 2) + '\n');
  });

  it.each([
    {
      name: 'a syntax error',
      text: '{\n  "hooks": {\n    "Stop": [,]\n  }\n}\n',
      message: 's.json:3:14: not valid JSON: expected a JSON value, got ",". Fix the file (or move it away) and run the command again; nothing was written.',
    },
    { name: 'a root that is not an object', text: '[]', message: 's.json: expected a JSON object at the top of the settings file. Nothing was written.' },
    {
      name: 'hooks that are not an object',
      text: '{"hooks": []}',
      message:
        's.json hooks: expected an object of events, got []. Claude Code expects "hooks": { "<Event>": [ … ] }; fix it and run the command again; nothing was written.',
    },
    {
      name: 'an event that is not an array',
      text: '{"hooks": {"Stop": {}}}',
      message: 's.json hooks.Stop: expected an array of matcher entries. Fix it and run the command again; nothing was written.',
    },
  ])('refuses $name, naming the place', ({ text, message }) => {
    for (const run of [() => planHookInstall(text, block(), 's.json'), () => planHookUninstall(text, 's.json')]) {
      try {
        run();
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(InputError);
        expect((e as InputError).describe()).toBe(message);
      }
    }
  });

  it.each([
    ['node /x/node_modules/dispatch-watchdog/dist/src/hook-entry.js --state-dir /s', true],
    ["node '/a b/dist/src/hook-entry.js' --state-dir /s", true],
    ['dispatch-watchdog hook', true],
    ['npx dispatch-watchdog hook --state-dir /s', true],
    ['/usr/local/bin/dispatch-watchdog hook', true],
    ['dispatch-watchdog hooked', false],
    ['node other/hook-entry.js', false],
    ['my-dispatch-watchdog-hook.sh', false],
  ])('isOurHookCommand(%j) = %s', (command, expected) => {
    expect(isOurHookCommand(command)).toBe(expected);
  });
});

describe('runHookInstall', () => {
  it('installs into ./.claude/settings.local.json by default, says so; a second install changes nothing and writes no backup', async () => {
    const p = project();
    const c = capture();
    expect(await runHookInstall('install', p.opts(), c.output)).toBe(0);
    expect(c.out.stdout).toBe(
      `added the dispatch-watchdog hook for 11 events (PreToolUse, PostToolUse, PostToolUseFailure, SubagentStart, SubagentStop, Stop, StopFailure, Notification, PermissionRequest, SessionEnd, Interrupt) in ${p.settings}; new file.\n` +
        "settings.local.json holds this machine's paths: keep it out of git.\n" +
        'Sessions already running may need a restart (or a look at /hooks) to pick it up.\n',
    );
    expect(c.out.stderr).toBe('');
    const first = readFileSync(p.settings, 'utf8');
    expect(JSON.parse(first)).toEqual(hookSettingsBlock(`node ${ENTRY} --state-dir ${path.join(p.cwd, '.onex_state')}`));
    expect(existsSync(path.join(p.cwd, '.claude', 'settings.json'))).toBe(false);
    const mtime = statSync(p.settings).mtimeMs;
    const again = capture();
    await runHookInstall('install', p.opts(), again.output);
    expect(again.out.stdout).toBe(`the dispatch-watchdog hook is already installed in ${p.settings}; nothing changed.\n`);
    expect(readFileSync(p.settings, 'utf8')).toBe(first);
    expect(statSync(p.settings).mtimeMs).toBe(mtime);
    expect(filesUnder(path.join(p.home, '.claude'))).toEqual([]);
    expect(filesUnder(path.join(p.cwd, '.claude'))).toEqual(['settings.local.json']);
  });

  it('--project writes the shared .claude/settings.json', async () => {
    const p = project();
    await runHookInstall('install', p.opts({ scope: 'project' }), capture().output);
    expect(filesUnder(path.join(p.cwd, '.claude'))).toEqual(['settings.json']);
    expect(readFileSync(path.join(p.cwd, '.claude', 'settings.json'), 'utf8')).toContain(ENTRY);
  });

  it('keeps ONE backup of the previous file, out of the project (under the config dir, 0600), its mode, and the file behind a symlink', async () => {
    const p = project();
    const real = path.join(p.home, 'dotfiles-settings.json');
    writeFileSync(real, USER_SETTINGS);
    chmodSync(real, 0o640);
    mkdirSync(path.dirname(p.settings));
    symlinkSync(real, p.settings);
    const c = capture();
    await runHookInstall('install', p.opts(), c.output);
    const bak = backupFileFor(p.settings, { HOME: p.home });
    expect(bak).toBe(path.join(p.home, '.claude', 'backups', 'dispatch-watchdog', `${p.settings.replace(/[/.]/g, '-')}.bak`));
    expect(c.out.stdout).toContain(`the previous file is in ${bak}.\n`);
    expect(readFileSync(bak, 'utf8')).toBe(USER_SETTINGS);
    expect(statSync(bak).mode & 0o777).toBe(0o600);
    expect(lstatSync(p.settings).isSymbolicLink()).toBe(true);
    expect(statSync(real).mode & 0o777).toBe(0o640);
    expect(readFileSync(real, 'utf8')).toContain(ENTRY);
    const installed = readFileSync(real, 'utf8');
    const u = capture();
    await runHookInstall('uninstall', p.opts(), u.output);
    expect(u.out.stdout).toBe(`removed 11 dispatch-watchdog hook handlers from ${p.settings}; the previous file is in ${bak}.\n`);
    expect(readFileSync(real, 'utf8')).toBe(USER_SETTINGS);
    // Still one backup: the text before the last change.
    expect(readFileSync(bak, 'utf8')).toBe(installed);
    expect(filesUnder(path.join(p.home, '.claude'))).toEqual([path.relative(path.join(p.home, '.claude'), bak)]);
    expect(filesUnder(path.join(p.cwd, '.claude'))).toEqual(['settings.local.json']);
    const none = capture();
    await runHookInstall('uninstall', p.opts(), none.output);
    expect(none.out.stdout).toBe(`no dispatch-watchdog hook in ${p.settings}; nothing changed.\n`);
  });

  it('--dry-run prints the result and writes nothing', async () => {
    const p = project();
    const c = capture();
    await runHookInstall('install', p.opts({ isDryRun: true }), c.output);
    expect(c.out.stdout).toMatch(/^would add the dispatch-watchdog hook for 11 events .* \(dry run: nothing written\)\. The file would read:\n\{\n {2}"hooks"/);
    expect(existsSync(path.dirname(p.settings))).toBe(false);
  });

  it('--user is $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json; --local (the default) is settings.local.json', () => {
    expect(settingsFileFor('user', { HOME: '/h' }, '/p')).toBe('/h/.claude/settings.json');
    expect(settingsFileFor('user', { HOME: '/h', CLAUDE_CONFIG_DIR: '/cfg' }, '/p')).toBe('/cfg/settings.json');
    expect(settingsFileFor('project', { HOME: '/h' }, '/p')).toBe('/p/.claude/settings.json');
    expect(settingsFileFor('local', { HOME: '/h' }, '/p')).toBe('/p/.claude/settings.local.json');
  });

  it('says when the state dir does not exist yet', async () => {
    const p = project();
    const c = capture();
    await runHookInstall('install', p.opts({ stateDir: path.join(p.cwd, 'nope') }), c.output);
    expect(c.out.stderr).toBe(
      `note: ${path.join(p.cwd, 'nope')} does not exist yet; the hook records nothing until it does (mkdir -p ${path.join(p.cwd, 'nope')})\n`,
    );
  });

  it.each([
    ['/home/u/.npm/_npx/6a9f/node_modules/dispatch-watchdog/dist/src/hook-entry.js', 'npx'],
    ['/home/u/.cache/pnpm/dlx/abc123/node_modules/dispatch-watchdog/dist/src/hook-entry.js', 'pnpm dlx / yarn dlx'],
    ['/tmp/dlx-4242/node_modules/dispatch-watchdog/dist/src/hook-entry.js', 'pnpm dlx / yarn dlx'],
    ['/tmp/xfs-1a2b3c4d/node_modules/dispatch-watchdog/dist/src/hook-entry.js', 'yarn dlx'],
    ['/tmp/bunx-1000-dispatch-watchdog@latest/node_modules/dispatch-watchdog/dist/src/hook-entry.js', 'bunx'],
    ['/usr/lib/node_modules/dispatch-watchdog/dist/src/hook-entry.js', undefined],
    ['/home/u/proj/node_modules/dispatch-watchdog/dist/src/hook-entry.js', undefined],
  ])('packageCacheOf(%s) = %s', (file, cache) => {
    expect(packageCacheOf(file)).toBe(cache);
  });

  it('refuses to pin the hook to a copy in the npx cache, and writes nothing', async () => {
    const p = project();
    const entry = '/home/u/.npm/_npx/6a9f/node_modules/dispatch-watchdog/dist/src/hook-entry.js';
    const err = await runHookInstall('install', p.opts({ entryPath: entry }), capture().output).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).describe()).toBe(
      `refusing to install a hook that runs ${entry}: that copy of dispatch-watchdog lives in npx's cache, which may be deleted at any time, and every tool call would then fail its hook. ` +
        'Install the package where it stays (npm install -g dispatch-watchdog, or npm install -D dispatch-watchdog in the project), then run that copy: dispatch-watchdog hook install. Nothing was written.',
    );
    expect(existsSync(path.dirname(p.settings))).toBe(false);
  });
});

describe('hook --print-settings', () => {
  it("warns when the entry it prints lives in a package manager's cache, and still prints the block", async () => {
    const entry = '/home/u/.npm/_npx/6a9f/node_modules/dispatch-watchdog/dist/src/hook-entry.js';
    const state = tempDir();
    let out = '';
    let warning = '';
    await hookMain(
      ['--print-settings', '--state-dir', state],
      Readable.from([]),
      {},
      { out: (t) => (out += t), warn: (t) => (warning += t), entryPath: entry },
    );
    expect(out).toContain(`"command": "node ${entry} --state-dir ${state}"`);
    expect(warning).toBe(
      `note: this block runs ${entry}, a copy in npx's cache that may be deleted at any time (then every tool call fails its hook); install the package (npm install -g dispatch-watchdog) and print the block from that copy\n`,
    );
  });
});

describe('the CLI', () => {
  it('routes `hook install --user` past the hook fast path to the full CLI, into $HOME/.claude', async () => {
    const p = project();
    const r = await runCli(['hook', 'install', '--user', '--state-dir', path.join(p.cwd, '.onex_state')], {
      cwd: p.cwd,
      env: { HOME: p.home, CLAUDE_CONFIG_DIR: '' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const file = path.join(p.home, '.claude', 'settings.json');
    expect(r.stdout).toContain(`in ${file}; new file.`);
    const command = (JSON.parse(readFileSync(file, 'utf8')) as { hooks: { Stop: { hooks: { command: string }[] }[] } }).hooks.Stop[0]!.hooks[0]!.command;
    // The pinned entry is the package's real fast entry, and it exists.
    const entry = /^node (\S+hook\.cjs) --state-dir /.exec(command)![1]!;
    expect(existsSync(entry)).toBe(true);
    const printed = await runCli(['hook', '--print-settings', '--state-dir', path.join(p.cwd, '.onex_state')]);
    expect(JSON.parse(printed.stdout)).toEqual(JSON.parse(readFileSync(file, 'utf8')));
  });

  it('exits 2 on two scopes at once', async () => {
    const p = project();
    const r = await runCli(['hook', 'uninstall', '--user', '--project'], { cwd: p.cwd, env: { HOME: p.home } });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'dispatch-watchdog: choose one of --user, --project and --local, got --user and --project.\n(run dispatch-watchdog hook uninstall --help for usage)\n',
    });
  });
});
