// The package as a user gets it: pack the tarball, install it into an empty directory with
// --ignore-scripts (nothing of ours may need to run at install time), then run the installed
// bin and import the installed API, types included. Packs from the dist/ the test run built
// (`npm pack --ignore-scripts`): prepack would rebuild dist/ under the other tests' feet.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { writeWave } from '../helpers/state.js';

const run = promisify(execFile);
const npm = (args: string[], cwd: string) =>
  run('npm', args, { cwd, timeout: 90_000, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } });
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, any>;

describe('package.json', () => {
  it('runs nothing at install time and builds at pack time', () => {
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts[s], s).toBeUndefined();
    expect(pkg.scripts.prepack).toMatch(/tsc -p tsconfig\.build\.json/);
    // The bundles the installed bin and the hook install run are built at pack time (bundle/ is
    // not in git); npm test builds them before this test packs with --ignore-scripts.
    expect(pkg.scripts.prepack).toMatch(/&& node scripts\/bundle\.mjs$/);
    expect(pkg.files).toContain('bundle');
  });
  it('says where it comes from and what it exports', () => {
    expect(pkg.license).toBe('MIT');
    expect(pkg.repository.url).toMatch(/^git\+https:\/\//);
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs.url).toMatch(/^https:\/\//);
    expect(pkg.exports['.']).toEqual({ types: './dist/src/index.d.ts', default: './dist/src/index.js' });
  });
});

describe('the packed tarball', () => {
  let files: string[] = [];
  let tarball = '';
  let app = '';
  let dir = '';
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dw-pack-'));
    const { stdout } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], REPO_ROOT);
    const info = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    files = info[0]!.files.map((f) => f.path);
    tarball = path.join(dir, info[0]!.filename);
    app = path.join(dir, 'app');
    mkdirSync(app);
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
    // Dependencies come from the npm cache when they are there, from the registry otherwise.
    await npm(['install', '--ignore-scripts', '--prefer-offline', '--no-package-lock', tarball], app);
  }, 120_000);

  it('holds the build, the schemas, the docs and the licence, and nothing else', () => {
    for (const f of [
      'LICENSE',
      'README.md',
      'package.json',
      'bin/dispatch-watchdog.js',
      'dist/src/cli.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'schemas/state-file.schema.json',
      'docs/state-files.md',
      'bundle/hook.cjs',
      'bundle/cli.cjs',
      'bundle/log-scan.cjs',
    ]) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => f.startsWith('dist/bench') || f.endsWith('.map') || f.startsWith('test/') || f.startsWith('src/'))).toEqual([]);
  });

  const bin = () => path.join(app, 'node_modules', '.bin', 'dispatch-watchdog');

  it('runs --version, -v and --help from the installed bin', async () => {
    expect((await run(bin(), ['--version'])).stdout).toBe(`${pkg.version}\n`);
    expect((await run(bin(), ['-v'])).stdout).toBe(`${pkg.version}\n`);
    expect((await run(bin(), ['--help'])).stdout).toContain('Usage: dispatch-watchdog');
  });

  it('pins the installed hook bundle, which records a payload', async () => {
    const state = path.join(app, 'hook-state');
    mkdirSync(state);
    const { stdout } = await run(bin(), ['hook', '--print-settings', '--state-dir', state]);
    const command = (JSON.parse(stdout) as { hooks: { Stop: { hooks: { command: string }[] }[] } }).hooks.Stop[0]!.hooks[0]!.command;
    const entry = path.join(app, 'node_modules', 'dispatch-watchdog', 'bundle', 'hook.cjs');
    expect(command).toBe(`node ${entry} --state-dir ${state}`);
    const child = execFile(process.execPath, [entry, '--state-dir', state]);
    child.stdin!.end(JSON.stringify({ hook_event_name: 'Stop', session_id: 'sess-1' }));
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    expect(JSON.parse(readFileSync(path.join(state, 'activity', 'sess-1.ndjson'), 'utf8'))).toMatchObject({ event: 'Stop', session_id: 'sess-1' });
  });

  it("runs the README's first command in the installed package, on the example it ships", async () => {
    // README line 4: `npm ci && npm run build && npx dispatch-watchdog …`; the package is already
    // built, so a consumer runs the last part, in the package's own directory.
    const first = readFileSync(path.join(app, 'node_modules', 'dispatch-watchdog', 'README.md'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('npm ci && '))!;
    const args = first.split(' && ').at(-1)!.split(' ');
    expect(args.slice(0, 2)).toEqual(['npx', 'dispatch-watchdog']);
    expect(files).toContain('.onex_state.example/epics/PROJ-1000/state.yaml');
    const r = await run(bin(), args.slice(2), {
      cwd: path.join(app, 'node_modules', 'dispatch-watchdog'),
      env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(app, 'no-claude') },
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect([(r as { code?: number }).code, r.stderr]).toEqual([3, '']);
    expect(r.stdout).toMatch(/task-1002\s+PROJ-1002\s+STALLED/);
  });

  it('hook install (npm install + hook install): writes .claude/settings.local.json, and the command it pins records a payload run as Claude Code runs it', async () => {
    const project = path.join(app, 'proj');
    mkdirSync(path.join(project, '.onex_state'), { recursive: true });
    const home = path.join(app, 'home');
    mkdirSync(home, { recursive: true });
    const { stdout } = await run(bin(), ['hook', 'install'], { cwd: project, env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: '', ONEX_STATE_DIR: '' } });
    const file = path.join(project, '.claude', 'settings.local.json');
    expect(stdout).toContain(`in ${file}; new file.`);
    const command = (JSON.parse(readFileSync(file, 'utf8')) as { hooks: { PreToolUse: { hooks: { command: string }[] }[] } }).hooks.PreToolUse[0]!.hooks[0]!
      .command;
    expect(command).toBe(`node ${path.join(app, 'node_modules', 'dispatch-watchdog', 'bundle', 'hook.cjs')} --state-dir ${path.join(project, '.onex_state')}`);
    const child = execFile('sh', ['-c', command], { cwd: project });
    child.stdin!.end(JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'sess-2', tool_name: 'Bash', tool_input: { command: 'make' } }));
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    expect(JSON.parse(readFileSync(path.join(project, '.onex_state', 'activity', 'sess-2.ndjson'), 'utf8'))).toMatchObject({
      event: 'PreToolUse',
      tool_name: 'Bash',
    });
  });

  it('checks a wave once (exit 0 when healthy)', async () => {
    const state = path.join(app, 'state');
    const now = Date.now();
    writeWave(state, 'E-1', new Date(now - 10_000).toISOString(), [
      { ticket_id: 'T-1', status: 'in_progress', last_activity_ts: new Date(now - 5_000).toISOString() },
    ]);
    const { stdout } = await run(bin(), ['--state-dir', state, '--epic-id', 'E-1', '--once', '--action', 'report'], {
      env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(app, 'no-claude') },
    });
    expect(stdout).toMatch(/T-1\s+T-1\s+healthy/);
  });

  it("runs the bundles, not dist/'s modules: with dist/ moved away the bin still checks a wave and records a hook", async () => {
    const installed = path.join(app, 'node_modules', 'dispatch-watchdog');
    const state = path.join(app, 'state-bundle');
    const now = Date.now();
    writeWave(state, 'E-B', new Date(now - 10_000).toISOString(), [
      { ticket_id: 'T-9', status: 'in_progress', last_activity_ts: new Date(now - 5_000).toISOString() },
    ]);
    renameSync(path.join(installed, 'dist'), path.join(installed, 'dist.away'));
    try {
      const { stdout } = await run(bin(), ['--state-dir', state, '--epic-id', 'E-B', '--once', '--action', 'report'], {
        env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(app, 'no-claude') },
      });
      expect(stdout).toMatch(/T-9\s+T-9\s+healthy/);
      const child = execFile(bin(), ['hook', '--state-dir', state]);
      child.stdin!.end(JSON.stringify({ hook_event_name: 'Stop', session_id: 'sess-b' }));
      expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
      expect(JSON.parse(readFileSync(path.join(state, 'activity', 'sess-b.ndjson'), 'utf8'))).toMatchObject({ event: 'Stop', session_id: 'sess-b' });
    } finally {
      renameSync(path.join(installed, 'dist.away'), path.join(installed, 'dist'));
    }
  });

  it('is importable with types: a TypeScript consumer type-checks and runs checkWave', async () => {
    const state = path.join(app, 'state2');
    writeWave(state, 'E-2', '2026-04-02T10:00:00Z', [{ ticket_id: 'T-2', status: 'in_progress', last_activity_ts: '2026-04-02T10:00:00Z' }]);
    const source = [
      "import { checkWave, StateFileSchema, type WatchdogJson } from 'dispatch-watchdog';",
      `const r = await checkWave({ stateDir: ${JSON.stringify(state)}, epicId: 'E-2', nowMs: Date.parse('2026-04-02T10:05:00Z'), shouldReadClaudeCode: false });`,
      'const doc: WatchdogJson = r.report;',
      'console.log(doc.tasks[0]?.verdict, r.hasStall, typeof StateFileSchema.parse);',
    ].join('\n');
    writeFileSync(path.join(app, 'consumer.ts'), source);
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--skipLibCheck',
        '--types',
        'node',
        '--typeRoots',
        path.join(REPO_ROOT, 'node_modules', '@types'),
        'consumer.ts',
      ],
      { cwd: app },
    );
    writeFileSync(path.join(app, 'consumer.mjs'), source.replace(', type WatchdogJson', '').replace('const doc: WatchdogJson', 'const doc'));
    expect((await run(process.execPath, ['consumer.mjs'], { cwd: app })).stdout).toBe('stalled true function\n');
  });
});
