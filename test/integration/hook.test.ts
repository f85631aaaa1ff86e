// `dispatch-watchdog hook`: runHook/hookMain in process, then the real fast entry as a child.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookMain, hookSettingsBlock, resolveHookStateDir, runHook, shellQuote } from '../../src/commands/hook.js';
import { readStdin, salvagePayload } from '../../src/commands/hook-stdin.js';
import { StatePaths } from '../../src/files/paths.js';
import { payload } from '../helpers/claude-lines.js';
import { tempDir } from '../helpers/temp-dir.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NOW = Date.parse('2026-02-12T10:00:00Z');
const pre = payload('PreToolUse', { agent_id: 'a1b2c3d', tool_name: 'Bash', tool_input: { command: 'npm test', timeout: 300000 }, tool_use_id: 'toolu_1' });

const stateDir = () => {
  const dir = path.join(tempDir(), 'state');
  mkdirSync(dir);
  return dir;
};
const readLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('runHook', () => {
  it('appends one compact line to activity/<agent_id>.ndjson', async () => {
    const dir = stateDir();
    const r = await runHook(JSON.stringify(pre), { stateDir: dir, nowMs: NOW });
    expect(r).toEqual({ isWritten: true, file: new StatePaths(dir).activityFile('a1b2c3d') });
    expect(readLines(r.file!)).toEqual([
      {
        ts: '2026-02-12T10:00:00.000Z',
        event: 'PreToolUse',
        session_id: 'sess-1',
        agent_id: 'a1b2c3d',
        tool_name: 'Bash',
        input: 'npm test',
        command: 'npm test',
        timeout_ms: 300000,
        tool_use_id: 'toolu_1',
        transcript_path: '/home/u/.claude/projects/-home-u-p/sess-1.jsonl',
      },
    ]);
  });

  it.each([
    { name: 'garbage', stdin: 'not json {', reason: 'stdin is not JSON' },
    { name: 'an empty object', stdin: '{}', reason: expect.stringContaining('not a hook payload') },
    {
      name: 'a path-escaping id',
      stdin: JSON.stringify(payload('Stop', { session_id: '../x' })),
      reason: expect.stringContaining('safe agent_id or session_id'),
    },
  ])('writes nothing for $name', async ({ stdin, reason }) => {
    const dir = stateDir();
    expect(await runHook(stdin, { stateDir: dir, nowMs: NOW })).toEqual({ isWritten: false, reason });
    expect(existsSync(path.join(dir, 'activity'))).toBe(false);
  });

  it('never creates a missing state dir', async () => {
    const dir = path.join(tempDir(), 'absent');
    const r = await runHook(JSON.stringify(pre), { stateDir: dir, nowMs: NOW });
    expect(r).toEqual({ isWritten: false, reason: `state dir ${dir} does not exist` });
    expect(existsSync(dir)).toBe(false);
  });
});

describe('hookMain', () => {
  it('--print-settings prints the settings.json block for the 11 events, state dir pinned', async () => {
    let out = '';
    let warning = '';
    const code = await hookMain(
      ['--print-settings', '--state-dir', '/srv/state dir'],
      Readable.from([]),
      {},
      { out: (t) => (out += t), warn: (t) => (warning += t) },
    );
    expect(code).toBe(0);
    expect(warning).toBe("note: /srv/state dir does not exist yet; the hook records nothing until it does (mkdir -p '/srv/state dir')\n");
    const block = JSON.parse(out) as ReturnType<typeof hookSettingsBlock>;
    expect(Object.keys(block.hooks)).toEqual([
      'PreToolUse',
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
    const command = (block.hooks.Stop![0] as { hooks: { command: string }[] }).hooks[0]!.command;
    expect(command).toMatch(/^node \S+bundle\/hook\.cjs --state-dir '\/srv\/state dir'$/);
  });

  it('hookSettingsBlock', () => {
    expect(hookSettingsBlock('dispatch-watchdog hook')).toMatchInlineSnapshot(`
      {
        "hooks": {
          "Interrupt": [
            {
              "hooks": [
                {
                  "command": "dispatch-watchdog hook",
                  "timeout": 10,
                  "type": "command",
                },
              ],
            },
          ],
          "Notification": [
            {
              "hooks": [
                {
                  "command": "dispatch-watchdog hook",
                  "timeout": 10,
                  "type": "command",
                },
              ],
              "matcher": "",
            },
          ],
          "PermissionRequest": [
            {
              "hooks": [
                {
                  "command": "dispatch-watchdog hook",
                  "timeout": 10,
                  "type": "command",
                },
              ],
              "matcher": "*",
            },
          ],
          "PostToolUse": [
            {
              "hooks": [
                {
                  "async": true,
                  "command": "dispatch-watchdog hook",
                  "timeout": 10,
                  "type": "command",
                },
              ],
              "matcher": "*",
            },
          ],
          "PostToolUseFailure": [
            {
              "hooks": [
                {
                  "async": true,
                  "command": "dispatch-watchdog hook",
                  "timeout": 10,
                  "type": "command",
                },
              ],
              "matcher": "*",
            },
          ],
          "PreToolUse": [
            {
              "hooks": [
                {
                  "command": "dispatch-watchdog hook",
                  "timeout": 10,
                  "type": "command",
                },
              ],
              "matcher": "*",
            },
          ],
          "SessionEnd": [
            {
              "hooks": [
                {
                  "command": "dispatch-watchdog hook",
                  "timeout": 10,
                  "type": "command",
                },
              ],
            },
          ],
          "Stop": [
            {
              "hooks": [
                {
                  "command": "dispatch-watchdog hook",
                  "timeout": 10,
                  "type": "command",
                },
              ],
            },
          ],
          "StopFailure": [
            {
              "hooks": [
                {
                  "command": "dispatch-watchdog hook",
                  "timeout": 10,
                  "type": "command",
                },
              ],
            },
          ],
          "SubagentStart": [
            {
              "hooks": [
                {
                  "command": "dispatch-watchdog hook",
                  "timeout": 10,
                  "type": "command",
                },
              ],
            },
          ],
          "SubagentStop": [
            {
              "hooks": [
                {
                  "command": "dispatch-watchdog hook",
                  "timeout": 10,
                  "type": "command",
                },
              ],
            },
          ],
        },
      }
    `);
  });

  it('reads the payload from stdin and writes its line; resolves 0 on garbage too', async () => {
    const dir = stateDir();
    expect(await hookMain(['--state-dir', dir], Readable.from([Buffer.from(JSON.stringify(pre))]), {}, { nowMs: () => NOW })).toBe(0);
    expect(await hookMain([], Readable.from(['\u0000garbage']), { ONEX_STATE_DIR: dir }, { nowMs: () => NOW })).toBe(0);
    expect(readLines(new StatePaths(dir).activityFile('a1b2c3d'))).toHaveLength(1);
  });

  it('gives up on a stdin that never closes after its timeout', async () => {
    const never = new Readable({ read() {} });
    expect(await hookMain(['--state-dir', stateDir()], never, {}, { stdinTimeoutMs: 20 })).toBe(0);
    expect(never.destroyed).toBe(true);
  });

  it('keeps the head and tail of an oversized payload and salvages its top-level ids', async () => {
    const big = JSON.stringify(
      payload('PostToolUse', {
        agent_id: 'a1',
        tool_name: 'Read',
        tool_input: { file_path: '/f' },
        tool_response: { content: 'x'.repeat(300_000) },
        tool_use_id: 'toolu_9',
      }),
    );
    const got = await readStdin(Readable.from([big.slice(0, 100_000), big.slice(100_000)]), 1000, 150_000);
    expect(got.isCut).toBe(true);
    expect(salvagePayload(got.text, got.tail)).toEqual({
      hook_event_name: 'PostToolUse',
      session_id: 'sess-1',
      agent_id: 'a1',
      tool_name: 'Read',
      tool_use_id: 'toolu_9',
      transcript_path: '/home/u/.claude/projects/-home-u-p/sess-1.jsonl',
    });
  });

  it.each([
    { argv: ['--state-dir', '/a'], env: { ONEX_STATE_DIR: '/b' }, expected: '/a' },
    { argv: ['--state-dir=/c'], env: {}, expected: '/c' },
    { argv: [], env: { ONEX_STATE_DIR: '/b' }, expected: '/b' },
    { argv: [], env: {}, expected: path.resolve('.onex_state') },
  ])('state dir from $argv and $env', ({ argv, env, expected }) => {
    expect(resolveHookStateDir(argv, env)).toBe(expected);
  });

  it.each([
    ['/plain/path', '/plain/path'],
    ["/it's here", `'/it'\\''s here'`],
  ])('shellQuote(%s)', (arg, quoted) => {
    expect(shellQuote(arg)).toBe(quoted);
  });
});

/** Relative imports of a TypeScript file, resolved to .ts paths; bare specifiers as given. */
function importsOf(file: string): { local: string[]; bare: string[] } {
  const src = readFileSync(file, 'utf8');
  const specs = [...src.matchAll(/^import\s[^;]*?from\s+'([^']+)';/gms)].filter((m) => !/^import\s+type\s/.test(m[0])).map((m) => m[1]!);
  return {
    local: specs.filter((s) => s.startsWith('.')).map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts'))),
    bare: specs.filter((s) => !s.startsWith('.')),
  };
}

/** Every module the hook entry loads at run time, and the packages they import. */
function hookClosure(): { files: string[]; bare: Set<string> } {
  const files: string[] = [];
  const bare = new Set<string>();
  const todo = [path.join(repoRoot, 'src/hook-entry.ts')];
  while (todo.length) {
    const f = todo.pop()!;
    if (files.includes(f)) continue;
    files.push(f);
    const deps = importsOf(f);
    deps.bare.forEach((b) => bare.add(b));
    todo.push(...deps.local);
  }
  return { files, bare };
}

describe('the hook entry as a child process', () => {
  let entry = '';
  let built = '';
  afterAll(() => rmSync(built, { recursive: true, force: true }));
  beforeAll(() => {
    // Transpile just the entry's import closure (no type check): fast, and tests the real module graph.
    const out = mkdtempSync(path.join(os.tmpdir(), 'dw-hook-build-'));
    built = out;
    writeFileSync(path.join(out, 'package.json'), '{"type":"module"}');
    for (const file of hookClosure().files) {
      const js = ts.transpileModule(readFileSync(file, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const dest = path.join(out, path.relative(repoRoot, file).replace(/\.ts$/, '.js'));
      mkdirSync(path.dirname(dest), { recursive: true });
      writeFileSync(dest, js);
    }
    entry = path.join(out, 'src/hook-entry.js');
  });

  const run = (stdin: string | Buffer, args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [entry, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(stdin);
    });

  it('loads only node built-ins (no zod, commander, yaml or Linear; not even crypto or url)', () => {
    expect([...hookClosure().bare].sort()).toEqual(['node:fs', 'node:path']);
  });

  it.each([
    { name: 'garbage stdin', stdin: Buffer.from([0xff, 0xfe, 0x00, 0x7b]) },
    { name: 'empty stdin', stdin: '' },
    { name: 'a payload with an unsafe id', stdin: JSON.stringify(payload('Stop', { session_id: '../../etc/passwd' })) },
  ])('exits 0 silently and writes nothing on $name', async ({ stdin }) => {
    const dir = stateDir();
    expect(await run(stdin, ['--state-dir', dir])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(path.join(dir, 'activity'))).toBe(false);
  });

  it('exits 0 silently with a missing state dir, and does not create it', async () => {
    const dir = path.join(tempDir(), 'missing');
    expect(await run(JSON.stringify(pre), ['--state-dir', dir])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(dir)).toBe(false);
  });

  it('appends exactly one line per valid payload, printing nothing', async () => {
    const dir = stateDir();
    expect(await run(JSON.stringify(pre), ['--state-dir', dir])).toEqual({ code: 0, stdout: '', stderr: '' });
    const post = { ...pre, hook_event_name: 'PostToolUse', tool_response: { stdout: 'ok' }, duration_ms: 12 };
    expect(await run(JSON.stringify(post), ['--state-dir', dir])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readLines(new StatePaths(dir).activityFile('a1b2c3d')).map((l) => l.event)).toEqual(['PreToolUse', 'PostToolUse']);
  });
});
