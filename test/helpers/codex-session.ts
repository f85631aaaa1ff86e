// Run the real `codex exec --json` (the pinned devDependency @openai/codex 0.171.0) in a scratch
// CODEX_HOME against the scripted Responses server (responses-server.ts), the way
// ../shared/reference/codex-0.171.0.md §1 ran it.
//
//   const s = startCodex({ server, prompt: 'CX-MARK do the thing' });   // inside a test
//   const thread = await s.threadId;     // from stdout's first line, `thread.started`
//   await s.exited;                      // { code, signal }
//   s.pid (the npm node wrapper), s.nativePid() (the native agent, its child on Node < 22.15),
//   s.codexHome, s.cwd, s.outputPath (the --json stdout), s.events(), s.rolloutPath(), s.rollout()
//
// Options: `cwd` (default: a fresh temp dir), `codexHome` (default: a fresh temp dir with a
// config.toml naming the server as provider `mock`; share one between runs to resume), `resume`
// (a thread id: `codex exec resume <id>`), `provider` (extra provider keys, e.g.
// `{ stream_idle_timeout_ms: 5000, stream_max_retries: 0 }`), `model` (a catalog model runs code
// mode), `env`, `args` (extra flags).
// Each run starts in its own process group. When the test ends (passed or failed) every process it
// started is SIGKILLed: the group, every descendant seen while it ran (each command runs in a
// process group of its own, and outlives a killed Codex), the groups those led, and any process
// whose environment carries its CODEX_HOME. Temp dirs it made are removed then too.
//
// `codexSkip` is undefined where the binary runs, else why it cannot.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { descendants, readRecords } from './claude-session.js';
import { REPO_ROOT } from './cli.js';
import type { ResponsesServer } from './responses-server.js';

export const CODEX_BIN = path.join(REPO_ROOT, 'node_modules', '.bin', 'codex');
export const CODEX_VERSION = '0.171.0';

function probe(): string | undefined {
  if (!existsSync(CODEX_BIN)) return `no ${CODEX_BIN} (npm ci installs @openai/codex ${CODEX_VERSION})`;
  try {
    const v = execFileSync(CODEX_BIN, ['--version'], { timeout: 30_000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return v.includes(CODEX_VERSION) ? undefined : `codex --version says ${v.trim()}, the tests are written against ${CODEX_VERSION}`;
  } catch (e) {
    return `no build of codex for ${process.platform}-${process.arch}: ${(e as Error).message.split('\n')[0]}`;
  }
}

/** Undefined when the real binary runs here; else why these tests are skipped. */
export const codexSkip: string | undefined = probe();
if (codexSkip) console.warn(`real Codex tests skipped: ${codexSkip}`);

export interface CodexSession {
  /** The launched command: the npm node wrapper (Node 20 has no process.execve). */
  pid: number;
  codexHome: string;
  cwd: string;
  outputPath: string;
  /** The thread id from stdout's `thread.started` (rejects if the run ends without one). */
  threadId: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The native agent: the wrapper's child whose comm is `codex` (the wrapper itself where it exec'd). */
  nativePid(): number | undefined;
  /** The --json stdout events so far (torn last line skipped). */
  events(): Record<string, any>[];
  stderr(): string;
  /** The rollout of this run's thread (undefined until the thread and its file exist). */
  rolloutPath(): string | undefined;
  rollout(): Record<string, any>[];
  kill(signal?: NodeJS.Signals): void;
}

export interface CodexOptions {
  server: ResponsesServer;
  prompt: string;
  cwd?: string;
  codexHome?: string;
  resume?: string;
  provider?: Record<string, number | string | boolean>;
  /** The model in config.toml (default `gpt-5.1-codex`, not in the bundled catalog: exec_command tools); a catalog model (`gpt-6.2-sol`) runs code mode. */
  model?: string;
  env?: Record<string, string>;
  args?: string[];
}

const scratch = (prefix: string, made: string[]) => {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
};

const toml = (v: number | string | boolean) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/** Write `<home>/config.toml` pointing Codex at the scripted server (provider `mock`, Responses wire API). */
export function writeCodexConfig(home: string, server: ResponsesServer, provider: CodexOptions['provider'] = {}, model = 'gpt-5.1-codex'): void {
  const extra = Object.entries(provider).map(([k, v]) => `${k} = ${toml(v)}`);
  const lines = [
    `model = "${model}"`,
    'model_provider = "mock"',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = "${server.baseUrl}"`,
    'env_key = "MOCK_API_KEY"',
    'wire_api = "responses"',
    ...extra,
  ];
  writeFileSync(path.join(home, 'config.toml'), `${lines.join('\n')}\n`);
}

/** The env of a scripted offline run: a scratch HOME and CODEX_HOME, the provider's key, nothing else of ours. */
export function codexEnv(home: string, codexHome: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = ['PATH', 'LANG', 'TERM', 'TMPDIR', 'USER', 'SHELL'];
  const base = Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]));
  return { ...base, HOME: home, CODEX_HOME: codexHome, MOCK_API_KEY: 'sk-mock-test', ...extra };
}

const tryKill = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(pid, signal);
  } catch {
    /* gone */
  }
};

const commOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
};

const pgidOf = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
};

/** Every live process whose environment carries `CODEX_HOME=<codexHome>` (Codex passes it to every command it runs). */
export function processesOfHome(codexHome: string): number[] {
  const needle = Buffer.from(`\0CODEX_HOME=${codexHome}\0`);
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const env = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${d}/environ`), Buffer.from([0])]);
      if (env.includes(needle)) out.push(Number(d));
    } catch {
      /* gone, or not ours */
    }
  }
  return out;
}

/** Every rollout file under `<codexHome>/sessions/YYYY/MM/DD/` whose name ends with the thread id. */
export function findRollouts(codexHome: string, threadId?: string): string[] {
  const out: string[] = [];
  const root = path.join(codexHome, 'sessions');
  const list = (d: string) => (existsSync(d) ? readdirSync(d).sort() : []);
  for (const y of list(root))
    for (const m of list(path.join(root, y)))
      for (const d of list(path.join(root, y, m))) {
        for (const f of list(path.join(root, y, m, d)))
          if (f.startsWith('rollout-') && f.endsWith(threadId ? `-${threadId}.jsonl` : '.jsonl')) out.push(path.join(root, y, m, d, f));
      }
  return out;
}

/** The JSON lines of a file so far (unparsable and torn lines skipped). */
export const jsonLines = readRecords;

/** Start `codex exec --json prompt` (or `codex exec resume <id>`) now; everything it starts is killed when the current test ends. */
export function startCodex(opts: CodexOptions): CodexSession {
  const made: string[] = [];
  const codexHome = opts.codexHome ?? scratch('dw-cxhome-', made);
  if (!existsSync(path.join(codexHome, 'config.toml'))) writeCodexConfig(codexHome, opts.server, opts.provider, opts.model);
  const home = path.join(codexHome, 'home');
  mkdirSync(home, { recursive: true });
  const cwd = opts.cwd ?? scratch('dw-cxcwd-', made);
  const tag = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const outputPath = path.join(codexHome, `stdout-${tag}.jsonl`);
  const errPath = path.join(codexHome, `stderr-${tag}.txt`);
  const flags = ['--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', ...(opts.args ?? [])];
  const args = opts.resume ? ['exec', 'resume', opts.resume, ...flags, opts.prompt] : ['exec', ...flags, opts.prompt];
  const outFd = openSync(outputPath, 'a');
  const errFd = openSync(errPath, 'a');
  const child = spawn(CODEX_BIN, args, { cwd, env: codexEnv(home, codexHome, opts.env), stdio: ['ignore', outFd, errFd], detached: true });
  closeSync(outFd);
  closeSync(errFd);
  const pid = child.pid!;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const seen = new Set<number>();
  const groups = new Set<number>();
  const look = () => {
    for (const p of descendants(pid)) {
      seen.add(p);
      const g = pgidOf(p);
      if (g !== undefined && g !== pid) groups.add(g);
    }
  };
  const track = setInterval(look, 250);
  void exited.then(() => clearInterval(track));
  const events = () => jsonLines(outputPath);
  let ended = false;
  void exited.then(() => (ended = true));
  const threadId = new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const t = events().find((e) => e.type === 'thread.started')?.thread_id;
      if (typeof t === 'string') clearInterval(poll), resolve(t);
      else if (ended) clearInterval(poll), reject(new Error(`codex exited without thread.started; stderr: ${readFileSync(errPath, 'utf8').slice(-800)}`));
    }, 50);
  });
  threadId.catch(() => undefined);
  let thread: string | undefined;
  void threadId.then((t) => (thread = t));
  onTestFinished(async () => {
    clearInterval(track);
    look();
    tryKill(-pid, 'SIGKILL');
    tryKill(pid, 'SIGKILL');
    for (const g of groups) tryKill(-g, 'SIGKILL');
    for (const p of seen) tryKill(p, 'SIGKILL');
    // What the tracker missed (a command started and orphaned between two looks) still carries the home.
    for (const p of processesOfHome(codexHome)) tryKill(p, 'SIGKILL');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });
  const rolloutPath = () => (thread ? findRollouts(codexHome, thread)[0] : undefined);
  return {
    pid,
    codexHome,
    cwd,
    outputPath,
    threadId,
    exited,
    nativePid: () => (commOf(pid) === 'codex' ? pid : descendants(pid).find((p) => commOf(p) === 'codex')),
    events,
    stderr: () => (existsSync(errPath) ? readFileSync(errPath, 'utf8') : ''),
    rolloutPath,
    rollout: () => {
      const p = rolloutPath();
      return p ? jsonLines(p) : [];
    },
    kill: (signal = 'SIGKILL') => tryKill(pid, signal),
  };
}

/** Resolve once `pred` holds (checked every 50 ms), or reject after timeoutMs naming `what`. */
export async function until<T>(pred: () => T | undefined | false, what: string, timeoutMs = 60_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = pred();
    if (v) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The fields a launching script writes into a Codex agent's row (docs/codex.md), once `thread.started` arrived and the rollout exists. */
export async function codexRowFields(s: CodexSession) {
  const thread = await s.threadId;
  const rollout = await until(() => s.rolloutPath(), 'the rollout file');
  return { status: 'in_progress', agent: 'codex', session_id: thread, pid: s.pid, transcript_path: rollout, output_path: s.outputPath };
}
