// `dispatch-watchdog hook install|uninstall [--user|--project|--local] [--dry-run]`: merge the block
// `hook --print-settings` prints into the right settings.json, or take it out, idempotently, with a
// backup of the previous file. Refuses to pin a hook to a copy of the package a package manager may
// delete (npx, pnpm dlx, yarn dlx, bunx): every tool call would then fail its hook.
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../contracts/errors.js';
import { msToIso } from '../contracts/time.js';
import type { Output } from '../deps.js';
import { createFileExclusive, writeFileAtomic } from '../files/atomic-write.js';
import { defaultHookCommand, hookEntryPath, hookSettingsBlock, packageCacheOf, shellQuote } from './hook.js';
import { planHookInstall, planHookUninstall, type SettingsEdit } from './hook-settings.js';
import type { Command } from 'commander';
import { resolveStateDir } from '../options.js';
import { teach } from '../cli-help.js';
import { stateDirOption, type CliContext } from './command.js';

export type SettingsScope = 'user' | 'project' | 'local';

export interface HookInstallOptions {
  scope: SettingsScope;
  isDryRun: boolean;
  /** Absolute state dir the hook command pins. */
  stateDir: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  nowMs: number;
  /** The hook entry the command runs (default: this package's). */
  entryPath?: string;
}

/** The settings.json a scope means: user = $CLAUDE_CONFIG_DIR or ~/.claude; project/local = ./.claude. */
export function settingsFileFor(scope: SettingsScope, env: NodeJS.ProcessEnv, cwd: string): string {
  if (scope === 'user') return path.join(env.CLAUDE_CONFIG_DIR || path.join(env.HOME || os.homedir(), '.claude'), 'settings.json');
  return path.join(cwd, '.claude', scope === 'project' ? 'settings.json' : 'settings.local.json');
}

export { packageCacheOf };

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError('unreadable_file', `cannot read the settings file: ${(e as Error).message}.`, { location: { file }, cause: e });
  }
}

/** Write `text` over `file` (the target of a symlink, so a dotfiles link survives), keeping its mode. */
async function replaceSettings(file: string, before: string | undefined, text: string, nowMs: number): Promise<string | undefined> {
  const real = before === undefined ? file : await fs.realpath(file);
  let backup: string | undefined;
  let mode: number | undefined;
  if (before !== undefined) {
    mode = (await fs.stat(real)).mode & 0o777;
    const stamp = msToIso(nowMs).replace(/[:.]/g, '-');
    for (let n = 1; !backup; n++) {
      const candidate = `${file}.bak-${stamp}${n > 1 ? `-${n}` : ''}`;
      if (await createFileExclusive(candidate, before)) backup = candidate;
    }
  }
  await writeFileAtomic(real, text, { mode });
  return backup;
}

function describeEdit(verb: 'install' | 'uninstall', file: string, edit: SettingsEdit): string {
  if (verb === 'install') {
    const replaced = edit.removed ? `, replacing ${edit.removed} older handler${edit.removed === 1 ? '' : 's'} of ours` : '';
    return `the dispatch-watchdog hook for ${edit.added.length} events (${edit.added.join(', ')})${replaced} in ${file}`;
  }
  return `${edit.removed} dispatch-watchdog hook handler${edit.removed === 1 ? '' : 's'} from ${file}`;
}

/** Install or uninstall; resolves to the exit code (0, or throws an InputError for exit 2). */
export async function runHookInstall(verb: 'install' | 'uninstall', opts: HookInstallOptions, output: Output): Promise<number> {
  const file = settingsFileFor(opts.scope, opts.env, opts.cwd);
  const entry = opts.entryPath ?? hookEntryPath();
  if (verb === 'install') {
    const cache = packageCacheOf(entry);
    if (cache) {
      throw new InputError('unsafe_hook_path', `refusing to install a hook that runs ${entry}: that copy of dispatch-watchdog lives in ${cache}'s cache, which may be deleted at any time, and every tool call would then fail its hook.`, {
        hint: 'Install the package where it stays (npm install -g dispatch-watchdog, or npm install -D dispatch-watchdog in the project), then run that copy: dispatch-watchdog hook install. Nothing was written.',
      });
    }
  }
  const before = await readIfExists(file);
  const edit = verb === 'install' ? planHookInstall(before, hookSettingsBlock(defaultHookCommand(opts.stateDir, entry)), file) : planHookUninstall(before, file);
  if (!edit.isChanged) {
    output.out(verb === 'install' ? `the dispatch-watchdog hook is already installed in ${file}; nothing changed.\n` : `no dispatch-watchdog hook in ${before === undefined ? `${file} (no such file)` : file}; nothing changed.\n`);
  } else if (opts.isDryRun) {
    output.out(`would ${verb === 'install' ? 'add' : 'remove'} ${describeEdit(verb, file, edit)} (dry run: nothing written). The file would read:\n${edit.text}`);
  } else {
    const backup = await replaceSettings(file, before, edit.text, opts.nowMs);
    output.out(`${verb === 'install' ? 'added' : 'removed'} ${describeEdit(verb, file, edit)}; ${backup ? `the previous file is in ${backup}` : 'new file'}.\n`);
    if (verb === 'install') output.out('Sessions already running may need a restart (or a look at /hooks) to pick it up.\n');
  }
  if (verb === 'install' && !existsSync(opts.stateDir)) {
    output.err(`note: ${opts.stateDir} does not exist yet; the hook records nothing until it does (mkdir -p ${shellQuote(opts.stateDir)})\n`);
  }
  return 0;
}

/** `hook install` and `hook uninstall`, under the `hook` command. */
export function registerHookInstall(hook: Command, { env, setCode }: CliContext): void {
  for (const verb of ['install', 'uninstall'] as const) {
    const cmd = hook
      .command(verb)
      .description(
        verb === 'install'
          ? 'merge the hook block of --print-settings into a Claude Code settings.json (default: the project\'s .claude/settings.json); a second install changes nothing; a backup of the previous file is kept'
          : 'take every dispatch-watchdog hook handler out of that settings.json, leaving the rest as it was; a backup of the previous file is kept',
      )
      .option('--user', 'the user settings: $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json')
      .option('--project', "the project settings: ./.claude/settings.json (the default)")
      .option('--local', "the project's untracked settings: ./.claude/settings.local.json")
      .option('--dry-run', 'print what would change and the resulting file; write nothing');
    stateDirOption(cmd, 'state dir the hook records into', ', pinned as an absolute path').action(async (flags: { user?: boolean; project?: boolean; local?: boolean; dryRun?: boolean; stateDir?: string }) => {
      const scopes = (['user', 'project', 'local'] as const).filter((s) => flags[s]);
      if (scopes.length > 1) throw new InputError('bad_flag', `choose one of --user, --project and --local, got ${scopes.map((s) => '--' + s).join(' and ')}.`);
      const scope: SettingsScope = scopes[0] ?? 'project';
      const stateDir = resolveStateDir(flags.stateDir, env.env, env.cwd);
      const opts = { scope, isDryRun: Boolean(flags.dryRun), stateDir, env: env.env, cwd: env.cwd, nowMs: env.watchDeps.clock.nowMs() };
      setCode(await runHookInstall(verb, opts, env.output));
    });
    teach(cmd, {
      examples:
        verb === 'install'
          ? [
              ['dispatch-watchdog hook install --dry-run', "show what would change in the project's .claude/settings.json; write nothing"],
              ['dispatch-watchdog hook install --user --state-dir ~/.onex_state', 'install for every Claude Code session of this user, recording into that state dir'],
            ]
          : [['dispatch-watchdog hook uninstall --user', "take our hook out of the user's settings.json; other hooks are kept"]],
      exitCodes: [
        ['ok', verb === 'install' ? 'installed, or already installed' : 'removed, or nothing to remove'],
        ['input', 'bad flags, or a settings.json that is not valid JSON (it is left untouched)'],
        ['failure', 'the file cannot be written'],
      ],
    });
  }
}
