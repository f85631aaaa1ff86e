// `dispatch-watchdog hook`: installed as a Claude Code hook, it appends one compact line per
// event to <stateDir>/activity/<agent_id or session_id>.ndjson, prints nothing and always exits 0:
// a hook must never break or slow the agent. A hook call runs hook-run.ts only (through the fast
// entry); this module adds what installing it needs: the settings block and the entry's path.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../version.js';
import { hookRun, resolveHookStateDir } from './hook-run.js';
import type { Command } from 'commander';
import { teach } from '../cli-help.js';
import { stateDirOption, type CliContext } from './command.js';

export { hookRun, resolveHookStateDir, runHook, runHookPayload, type HookResult } from './hook-run.js';

/** The events the watchdog listens to (DESIGN §4) that every supported Claude Code (2.1.197+) knows. */
export const HOOK_EVENTS = [
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
] as const;

/**
 * Events newer than 2.1.197 the watchdog listens to as well: `Interrupt` (2.1.335+: a stop ended
 * the main session's turn, and who stopped it). Settings take them on every version (an older one
 * skips the entry); a plugin keeps them in hooks/newer-events.json, apart from hooks/hooks.json,
 * because 2.1.197's plugin loader drops every hook of a file that names an event it does not know.
 */
export const NEWER_HOOK_EVENTS = ['Interrupt'] as const;

/** The settings.json block that installs `command` for the 11 events (claude-code-surfaces.md §2.1). */
export function hookSettingsBlock(command: string): { hooks: Record<string, unknown[]> } {
  // timeout is in seconds. Post hooks are async: the result is already in, so the agent need not
  // wait for us; Pre hooks stay synchronous so a call is on record before it runs.
  const handler = (isAsync: boolean) => ({ type: 'command', command, timeout: 10, ...(isAsync ? { async: true } : {}) });
  const hooks: Record<string, unknown[]> = {};
  // PermissionRequest matches tool names too; it fires when the permission dialog opens (2.1.197:
  // inside a subagent with its agent_id, ~6 s before the Notification, which names no agent).
  const toolEvents = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest']);
  const asyncEvents = new Set(['PostToolUse', 'PostToolUseFailure']);
  for (const event of [...HOOK_EVENTS, ...NEWER_HOOK_EVENTS]) {
    // Tool events match tool names ('*': all); Notification matches notification_type ('': all).
    const isTool = toolEvents.has(event);
    const entry: Record<string, unknown> = isTool || event === 'Notification' ? { matcher: isTool ? '*' : '' } : {};
    entry.hooks = [handler(asyncEvents.has(event))];
    hooks[event] = [entry];
  }
  return { hooks };
}

/** Quote an argument for the shell that runs hook commands. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Absolute path of this package's hook: bundle/hook.cjs, the one-file build that
 * hooks/hooks.json runs too (built by `npm run build` and `prepack`, scripts/bundle.mjs; CommonJS starts sooner than an ES module).
 */
export function hookEntryPath(): string {
  return path.join(packageRoot(), 'bundle', 'hook.cjs');
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
 * `dispatch-watchdog hook [--print-settings] [--state-dir DIR]`: always resolves 0. `stdin` is a
 * stream, or a file descriptor to read directly (the fast entry passes 0).
 * `out` receives the settings block of --print-settings (`warn` a note when the state dir is
 * missing, or when the entry it names lives in a package manager's cache); handling a payload
 * prints nothing, ever.
 */
export async function hookMain(
  argv: readonly string[],
  stdin: NodeJS.ReadableStream | number,
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
      if (cache)
        warn(
          `note: this block runs ${entry}, a copy in ${cache}'s cache that may be deleted at any time (then every tool call fails its hook); install the package (npm install -g dispatch-watchdog) and print the block from that copy\n`,
        );
      // The hook never creates the state dir (a hook fired in an unrelated project leaves no trace),
      // so installing it before the dir exists would record nothing: say so, on stderr.
      if (!existsSync(stateDir)) warn(`note: ${stateDir} does not exist yet; the hook records nothing until it does (mkdir -p ${shellQuote(stateDir)})\n`);
      return 0;
    }
    return await hookRun(argv, stdin, env, opts);
  } catch {
    // A hook must never fail the agent.
    return 0;
  }
}

/** `hook` (its subcommands come from hook-install.ts); returns the command to hang them on. */
export function registerHook(program: Command, { env, setCode }: CliContext): Command {
  const cmd = program
    .command('hook')
    .description('the Claude Code hook: read one hook payload on stdin, append it to activity/<agent or session id>.ndjson, print nothing, always exit 0')
    .option('--print-settings', 'print the settings.json block that installs this hook');
  stateDirOption(cmd).action(async () =>
    setCode(await hookMain(env.argv.slice(1), env.stdin ?? process.stdin, env.env, { out: (t) => env.output.out(t), warn: (t) => env.output.err(t) })),
  );
  return teach(cmd, {
    examples: [
      ['dispatch-watchdog hook --print-settings', 'the settings.json block to paste into .claude/settings.local.json (see docs/claude-code.md)'],
      ['dispatch-watchdog hook --print-settings --state-dir /srv/onex', 'the same, for a state dir of your choice'],
    ],
    exitCodes: [['ok', 'always: a hook must never block or fail a Claude Code session']],
  });
}
