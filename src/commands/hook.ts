// `dispatch-watchdog hook`: installed as a Claude Code hook, it appends one compact line per
// event to <stateDir>/activity/<agent_id or session_id>.ndjson, prints nothing and always exits 0:
// a hook must never break or slow the agent. Imports only node built-ins and small modules (no
// zod, commander or Linear: a test checks), so loading it adds ~13 ms to node's start-up.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { appendLine, guardRoot } from '../journal/atomic-write.js';
import { readStdin, salvagePayload } from './hook-stdin.js';
import { buildHookLine } from '../observe/parse/hook-line.js';

/** The events the watchdog listens to (DESIGN §4). */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'SubagentStart', 'SubagentStop', 'Stop', 'StopFailure', 'Notification'] as const;

export interface HookResult {
  isWritten: boolean;
  file?: string;
  /** Why nothing was written (garbage input, an unsafe id, no state dir…). */
  reason?: string;
}

/** Append the activity line of a parsed hook payload. Never throws. */
export async function runHookPayload(payload: unknown, opts: { stateDir: string; nowMs: number }): Promise<HookResult> {
  try {
    const built = buildHookLine(payload, opts.nowMs);
    if (!built) return { isWritten: false, reason: 'not a hook payload with hook_event_name and a safe agent_id or session_id' };
    const root = path.resolve(opts.stateDir);
    guardRoot(root); // activity/ must not be a symlink out of the state dir
    // Never create the state dir itself: with the ./.onex_state default that would litter every
    // project the agent works in. Only its activity/ subdirectory is created.
    const st = await fs.stat(root).catch(() => undefined);
    if (!st?.isDirectory()) return { isWritten: false, reason: `state dir ${root} does not exist` };
    const file = path.join(root, 'activity', `${built.id}.ndjson`);
    // No fsync: losing the last event on a power cut is fine; making the agent wait is not.
    await appendLine(file, JSON.stringify(built.line), { sync: false });
    return { isWritten: true, file };
  } catch (e) {
    return { isWritten: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

/** Parse a hook's stdin text and append its activity line. Never throws. */
export async function runHook(stdinText: string, opts: { stateDir: string; nowMs: number }): Promise<HookResult> {
  let payload: unknown;
  try {
    payload = JSON.parse(stdinText);
  } catch {
    return { isWritten: false, reason: 'stdin is not JSON' };
  }
  return runHookPayload(payload, opts);
}

/** The settings.json block that installs `command` for the 8 events (claude-code-surfaces.md §2.1). */
export function hookSettingsBlock(command: string): { hooks: Record<string, unknown[]> } {
  // timeout is in seconds. Post hooks are async: the result is already in, so the agent need not
  // wait for us; Pre hooks stay synchronous so a call is on record before it runs.
  const handler = (isAsync: boolean) => ({ type: 'command', command, timeout: 10, ...(isAsync ? { async: true } : {}) });
  const hooks: Record<string, unknown[]> = {};
  const toolEvents = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);
  for (const event of HOOK_EVENTS) {
    // Tool events match tool names ('*': all); Notification matches notification_type ('': all).
    const isTool = toolEvents.has(event);
    const entry: Record<string, unknown> = isTool || event === 'Notification' ? { matcher: isTool ? '*' : '' } : {};
    entry.hooks = [handler(isTool && event !== 'PreToolUse')];
    hooks[event] = [entry];
  }
  return { hooks };
}

/** Quote an argument for the shell that runs hook commands. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The state dir: --state-dir > $ONEX_STATE_DIR > ./.onex_state. */
export function resolveHookStateDir(argv: readonly string[], env: NodeJS.ProcessEnv): string {
  const i = argv.indexOf('--state-dir');
  const eq = argv.find((a) => a.startsWith('--state-dir='));
  const flag = eq ? eq.slice('--state-dir='.length) : i >= 0 ? argv[i + 1] : undefined;
  return path.resolve(flag || env.ONEX_STATE_DIR || '.onex_state');
}

/** Absolute path of this package's fast hook entry (dist/src/hook-entry.js). */
export function hookEntryPath(): string {
  return fileURLToPath(new URL('../hook-entry.js', import.meta.url));
}

const CACHES: [RegExp, string][] = [
  [/[/\\]_npx[/\\]/, 'npx'],
  [/[/\\]_cacache[/\\]/, "npm's cache"],
  [/[/\\]pnpm[/\\](?:[^/\\]+[/\\])?dlx[/\\]|[/\\]dlx-\d+[/\\]/, 'pnpm dlx / yarn dlx'],
  [/[/\\]xfs-[0-9a-f]+[/\\]/, 'yarn dlx'],
  [/[/\\]bunx-[^/\\]*[/\\]|[/\\]\.bun[/\\]install[/\\]cache[/\\]/, 'bunx'],
];

/** Which package manager's throw-away cache `file` lives in, if any. */
export function packageCacheOf(file: string): string | undefined {
  return CACHES.find(([re]) => re.test(file))?.[1];
}

/** The command `--print-settings` installs: this package's fast hook entry, state dir pinned. */
export function defaultHookCommand(stateDir: string, entry = hookEntryPath()): string {
  return ['node', entry, '--state-dir', stateDir].map(shellQuote).join(' ');
}

/**
 * `dispatch-watchdog hook [--print-settings] [--state-dir DIR]`: always resolves 0.
 * `out` receives the settings block of --print-settings (`warn` a note when the state dir is
 * missing, or when the entry it names lives in a package manager's cache); handling a payload
 * prints nothing, ever.
 */
export async function hookMain(
  argv: readonly string[],
  stdin: NodeJS.ReadableStream,
  env: NodeJS.ProcessEnv,
  opts: { nowMs?: () => number; out?: (text: string) => void; warn?: (text: string) => void; stdinTimeoutMs?: number; entryPath?: string } = {},
): Promise<number> {
  try {
    const stateDir = resolveHookStateDir(argv, env);
    if (argv.includes('--print-settings')) {
      const out = opts.out ?? ((t: string) => void process.stdout.write(t));
      const warn = opts.warn ?? ((t: string) => void process.stderr.write(t));
      const entry = opts.entryPath ?? hookEntryPath();
      out(JSON.stringify(hookSettingsBlock(defaultHookCommand(stateDir, entry)), null, 2) + '\n');
      const cache = packageCacheOf(entry);
      if (cache) warn(`note: this block runs ${entry}, a copy in ${cache}'s cache that may be deleted at any time (then every tool call fails its hook); install the package (npm install -g dispatch-watchdog) and print the block from that copy\n`);
      // The hook never creates the state dir (a hook fired in an unrelated project leaves no trace),
      // so installing it before the dir exists would record nothing: say so, on stderr.
      if (!existsSync(stateDir)) warn(`note: ${stateDir} does not exist yet; the hook records nothing until it does (mkdir -p ${shellQuote(stateDir)})\n`);
      return 0;
    }
    const input = await readStdin(stdin, opts.stdinTimeoutMs ?? 2000);
    const nowMs = (opts.nowMs ?? Date.now)();
    if (input.isCut) await runHookPayload(salvagePayload(input.text, input.tail), { stateDir, nowMs });
    else await runHook(input.text, { stateDir, nowMs });
  } catch {
    // A hook must never fail the agent.
  }
  return 0;
}
