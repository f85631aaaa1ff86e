// Run the real `claude -p` (one of CLAUDE_VERSIONS: the pinned newest 2.1.337, 2.1.332, or 2.1.197) in a scratch HOME
// against the scripted model server (model-server.ts), the way
// ../shared/reference/claude-code-2.1.197.md "Running it offline" does.
//
//   const s = startClaude({ server, prompt: 'LEAD-MARK do the thing', cwd });   // inside a test
//   await s.exited;                      // { code, signal }
//   s.pid, s.sessionId, s.home, s.claudeDir (= $HOME/.claude, the watchdog's CLAUDE_CONFIG_DIR),
//   s.projectDir, s.transcriptPath, s.subagentsDir, s.subagentIds(), s.streamPath (stream-json stdout),
//   s.stream() (its records, parsed), s.stderr(), s.kill(signal)
//
// Options: `cwd` (default: a fresh temp dir), `home` (default: a fresh temp dir; share one between
// sessions to share ~/.claude), `sessionId` (default: a random uuid), `pluginDir` (--plugin-dir),
// `env` (added last: API_TIMEOUT_MS, CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS, …), `args` (extra flags),
// `version` (default 2.1.197; `describeVersions(ALL_VERSIONS, …)` runs a block on each).
// Each session runs in its own process group. When the test ends (passed or failed) every process
// it started is SIGKILLed: the group, and every descendant found under /proc (Bash tool shells may
// start groups of their own). Temp dirs it made are removed then too.
//
// `claudeSkip` is undefined where the binary runs, else the reason it cannot (a platform with no
// build of it): `describe.skipIf(claudeSkip !== undefined)` and print the reason.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, onTestFinished } from 'vitest';
import { REPO_ROOT } from './cli.js';
import type { ModelServer } from './model-server.js';

// The Claude Code versions the real-session tests run: the pinned newest (2.1.337, the registry's
// `latest` on 2026-12-07, which owns node_modules/.bin/claude), the newest of the round before
// (2.1.332) and the oldest supported (2.1.197), the last two installed beside it through the npm
// aliases claude-code-2.1.332 and claude-code-2.1.197. Adding the next version is one line here
// (and an npm alias).
export const CLAUDE_VERSIONS = {
  '2.1.337': path.join(REPO_ROOT, 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe'),
  '2.1.332': path.join(REPO_ROOT, 'node_modules', 'claude-code-2.1.332', 'bin', 'claude.exe'),
  '2.1.197': path.join(REPO_ROOT, 'node_modules', 'claude-code-2.1.197', 'bin', 'claude.exe'),
} as const;
export type ClaudeVersion = keyof typeof CLAUDE_VERSIONS;
/** Every version, newest first: `describe.each(ALL_VERSIONS)` for behaviour both hold. */
export const ALL_VERSIONS = Object.keys(CLAUDE_VERSIONS) as ClaudeVersion[];
export const NEWEST: ClaudeVersion = '2.1.337';
export const OLDEST: ClaudeVersion = '2.1.197';

/** The tests written before the table ran 2.1.197 by this path; they still do. */
export const CLAUDE_BIN = CLAUDE_VERSIONS[OLDEST];
/** The pinned newest, 2.1.337 (node_modules/.bin/claude). */
export const CLAUDE_BIN_LATEST = path.join(REPO_ROOT, 'node_modules', '.bin', 'claude');
export const claudeBin = (version: ClaudeVersion = OLDEST) => CLAUDE_VERSIONS[version];

function probe(version: ClaudeVersion): string | undefined {
  const bin = CLAUDE_VERSIONS[version];
  if (!existsSync(bin)) return `no ${bin} (npm ci installs Claude Code ${version})`;
  try {
    const v = execFileSync(bin, ['--version'], { env: { ...process.env, IS_SANDBOX: '1', DISABLE_AUTOUPDATER: '1' }, timeout: 30_000, encoding: 'utf8' });
    return v.includes(version) ? undefined : `${bin} --version says ${v.trim()}, the tests expect ${version}`;
  } catch (e) {
    return `no build of claude ${version} for ${process.platform}-${process.arch}: ${(e as Error).message.split('\n')[0]}`;
  }
}

const skips = new Map<ClaudeVersion, string | undefined>();
/** Undefined when that version's binary runs here; else why its tests are skipped (probed once). */
export function claudeSkipFor(version: ClaudeVersion): string | undefined {
  if (!skips.has(version)) {
    const why = probe(version);
    skips.set(version, why);
    if (why) console.warn(`real Claude Code ${version} tests skipped: ${why}`);
  }
  return skips.get(version);
}

/**
 * `describe` once per version (a describe.each whose blocks each skip, saying why, where that
 * version's binary does not run): `describeVersions(ALL_VERSIONS, 'name', (version) => { … })`.
 * Markers scripted on one model server must differ per version (suffix them with the version).
 */
export function describeVersions(
  versions: readonly ClaudeVersion[],
  name: string,
  fn: (version: ClaudeVersion) => void,
  opts: { timeout?: number } = {},
): void {
  describe.each(versions.map((v) => [v]))(`${name} [Claude Code %s]`, (version) => {
    describe.skipIf(claudeSkipFor(version) !== undefined)('', opts, () => fn(version));
  });
}

/** Undefined when the real 2.1.197 binary runs here; else why these tests are skipped. */
export const claudeSkip: string | undefined = claudeSkipFor(OLDEST);

/** Claude Code's project dir name for a cwd: every / and . becomes -. */
export const projectDirName = (cwd: string) => cwd.replace(/[/.]/g, '-');

export interface ClaudeSession {
  pid: number;
  version: ClaudeVersion;
  sessionId: string;
  home: string;
  cwd: string;
  claudeDir: string;
  projectDir: string;
  transcriptPath: string;
  subagentsDir: string;
  streamPath: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The stream-json records written so far (torn last line skipped). */
  stream(): Record<string, any>[];
  stderr(): string;
  /** The transcript's records so far (main session). */
  transcript(): Record<string, any>[];
  /** The ids of the subagents whose transcripts exist so far (`subagents/agent-<id>.jsonl`). */
  subagentIds(): string[];
  kill(signal?: NodeJS.Signals): void;
  /** With `streamInput`: write one stream-json message to its stdin (a next prompt, an interrupt request). */
  send(message: Record<string, unknown>): void;
  /** With `streamInput`: close its stdin (it finishes its turn and exits). */
  endInput(): void;
}

export interface ClaudeOptions {
  server: ModelServer;
  prompt: string;
  cwd?: string;
  home?: string;
  sessionId?: string;
  pluginDir?: string;
  env?: Record<string, string>;
  args?: string[];
  /** Which Claude Code runs (default: the oldest, 2.1.197, which the older tests were written on). */
  version?: ClaudeVersion;
  /** Another Claude Code binary, e.g. CLAUDE_BIN_LATEST (prefer `version`). */
  bin?: string;
  /**
   * Run it as an SDK program does (`--input-format stream-json`): the prompt goes in as the first
   * user message on stdin, which stays open for `send()` until `endInput()`.
   */
  streamInput?: boolean;
}

/** A stream-json user message, as an SDK program writes one. */
export const userMessage = (text: string) => ({ type: 'user', message: { role: 'user', content: text } });
/** The stream-json request that stops the running turn (the SDK's `interrupt()`). */
export const interruptRequest = (requestId = `int-${randomUUID()}`) => ({ type: 'control_request', request_id: requestId, request: { subtype: 'interrupt' } });

const scratch = (prefix: string, made: string[]) => {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
};

/** The env a scripted offline run needs (HOME, base url, key, sandbox, no traffic, no updater). */
export function claudeEnv(server: ModelServer, home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = ['PATH', 'LANG', 'TERM', 'TMPDIR', 'USER', 'SHELL'];
  const base = Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]));
  return {
    ...base,
    HOME: home,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'test',
    IS_SANDBOX: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ...extra,
  };
}

/** Every live descendant of `pid` (from /proc ppid links). */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [c, pp] of parent) if (pp === p && !out.includes(c)) out.push(c), walk(c);
  };
  walk(pid);
  return out;
}

const tryKill = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(pid, signal);
  } catch {
    /* gone */
  }
};

/** The JSON records of a JSONL file written so far (none while it does not exist; a torn or unparsable line skipped). */
export function readRecords(file: string): Record<string, any>[] {
  let raw = '';
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return raw.split('\n').flatMap((l) => {
    try {
      return l.startsWith('{') ? [JSON.parse(l) as Record<string, any>] : [];
    } catch {
      return [];
    }
  });
}

/** Start `claude -p prompt` now; everything it starts is killed when the current test ends. */
export function startClaude(opts: ClaudeOptions): ClaudeSession {
  const made: string[] = [];
  const home = opts.home ?? scratch('dw-home-', made);
  const cwd = opts.cwd ?? scratch('dw-cwd-', made);
  const sessionId = opts.sessionId ?? randomUUID();
  const claudeDir = path.join(home, '.claude');
  const projectDir = path.join(claudeDir, 'projects', projectDirName(cwd));
  const streamPath = path.join(home, `stream-${sessionId}.jsonl`);
  const errPath = path.join(home, `stderr-${sessionId}.txt`);
  const args = [
    '-p',
    ...(opts.streamInput ? ['--input-format', 'stream-json'] : [opts.prompt]),
    '--session-id',
    sessionId,
    '--output-format',
    'stream-json',
    '--verbose',
    '--dangerously-skip-permissions',
  ];
  if (opts.pluginDir) args.push('--plugin-dir', opts.pluginDir);
  args.push(...(opts.args ?? []));
  const outFd = openSync(streamPath, 'a');
  const errFd = openSync(errPath, 'a');
  const child = spawn(opts.bin ?? claudeBin(opts.version), args, {
    cwd,
    env: claudeEnv(opts.server, home, opts.env),
    stdio: [opts.streamInput ? 'pipe' : 'ignore', outFd, errFd],
    detached: true,
  });
  const send = (message: Record<string, unknown>) => {
    if (!child.stdin) throw new Error('send() needs a session started with streamInput');
    child.stdin.write(`${JSON.stringify(message)}\n`);
  };
  if (opts.streamInput) {
    // A write after the process ended is nobody's error here: the test asserts on what it wrote before.
    child.stdin!.on('error', () => undefined);
    send(userMessage(opts.prompt));
  }
  closeSync(outFd);
  closeSync(errFd);
  const pid = child.pid!;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let seen: number[] = [];
  const track = setInterval(() => (seen = [...new Set([...seen, ...descendants(pid)])]), 500);
  void exited.then(() => clearInterval(track));
  onTestFinished(async () => {
    clearInterval(track);
    const all = [...new Set([...seen, ...descendants(pid)])];
    tryKill(-pid, 'SIGKILL');
    tryKill(pid, 'SIGKILL');
    for (const p of all) tryKill(p, 'SIGKILL');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });
  const lines = readRecords;
  const transcriptPath = path.join(projectDir, `${sessionId}.jsonl`);
  return {
    pid,
    version: opts.bin === CLAUDE_BIN_LATEST ? NEWEST : (opts.version ?? OLDEST),
    sessionId,
    home,
    cwd,
    claudeDir,
    projectDir,
    transcriptPath,
    subagentsDir: path.join(projectDir, sessionId, 'subagents'),
    streamPath,
    exited,
    send,
    endInput: () => child.stdin?.end(),
    stream: () => lines(streamPath),
    stderr: () => (existsSync(errPath) ? readFileSync(errPath, 'utf8') : ''),
    transcript: () => lines(transcriptPath),
    subagentIds: () => {
      const dir = path.join(projectDir, sessionId, 'subagents');
      return existsSync(dir)
        ? readdirSync(dir)
            .filter((f) => f.startsWith('agent-') && f.endsWith('.jsonl'))
            .map((f) => f.slice('agent-'.length, -'.jsonl'.length))
        : [];
    },
    kill: (signal = 'SIGKILL') => tryKill(pid, signal),
  };
}
