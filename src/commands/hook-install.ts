// `dispatch-watchdog hook install|uninstall [--local|--project|--user] [--dry-run]`: merge the block
// `hook --print-settings` prints into a Claude Code settings file, or take it out, idempotently.
// The default is the project's .claude/settings.local.json: the command pins this machine's paths,
// which belong in Claude Code's machine-specific file, not the one a team commits. The previous
// file is kept as ONE backup per settings file under the Claude config dir (never in the project).
// Refuses to pin a hook to a copy of the package a package manager may delete (npx, pnpm dlx,
// yarn dlx, bunx): every tool call would then fail its hook.
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../contracts/errors.js';
import type { Output } from '../deps.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { defaultHookCommand, hookEntryPath, hookSettingsBlock, packageCacheOf, shellQuote } from './hook.js';
import { planHookInstall, planHookUninstall, type SettingsEdit } from './hook-settings.js';
import { codexConfigFile, planCodexHookInstall, planCodexHookUninstall } from './hook-codex.js';
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
  /** The hook entry the command runs (default: this package's). */
  entryPath?: string;
  /** Codex's config.toml ($CODEX_HOME/config.toml) instead of a Claude Code settings file (hook-codex.ts). */
  isCodex?: boolean;
}

/** The default scope: this machine's settings of the project, which teams do not commit. */
export const DEFAULT_SETTINGS_SCOPE: SettingsScope = 'local';

/** Claude Code's user config dir: $CLAUDE_CONFIG_DIR, else ~/.claude. */
function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR || path.join(env.HOME || os.homedir(), '.claude');
}

/** The settings file a scope means: user = <config dir>/settings.json; project/local = ./.claude/settings{,.local}.json. */
export function settingsFileFor(scope: SettingsScope, env: NodeJS.ProcessEnv, cwd: string): string {
  if (scope === 'user') return path.join(claudeConfigDir(env), 'settings.json');
  return path.join(cwd, '.claude', scope === 'project' ? 'settings.json' : 'settings.local.json');
}

/**
 * Where the previous text of `file` is kept: one backup per settings file, replaced by the next
 * change, under <config dir>/backups/ (where Claude Code keeps its own), named after the file's
 * path the way Claude Code names project dirs (every / and . becomes -).
 */
export function backupFileFor(file: string, env: NodeJS.ProcessEnv): string {
  return path.join(claudeConfigDir(env), 'backups', 'dispatch-watchdog', `${path.resolve(file).replace(/[/\\.:]/g, '-')}.bak`);
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

/** Write `text` over `file` (the target of a symlink, so a dotfiles link survives), keeping its mode; the old text goes to `backup`. */
async function replaceSettings(file: string, before: string | undefined, text: string, backup: string): Promise<string | undefined> {
  const real = before === undefined ? file : await fs.realpath(file);
  let mode: number | undefined;
  if (before !== undefined) {
    mode = (await fs.stat(real)).mode & 0o777;
    // 0600 whatever the original's mode: a settings file may hold keys in its "env".
    await writeFileAtomic(backup, before, { mode: 0o600 });
  }
  await writeFileAtomic(real, text, { mode });
  return before === undefined ? undefined : backup;
}

function describeEdit(verb: 'install' | 'uninstall', file: string, edit: SettingsEdit): string {
  if (verb === 'install') {
    const replaced = edit.removed ? `, replacing ${edit.removed} older handler${edit.removed === 1 ? '' : 's'} of ours` : '';
    return `the dispatch-watchdog hook for ${edit.added.length} events (${edit.added.join(', ')})${replaced} in ${file}`;
  }
  return `${edit.removed} dispatch-watchdog hook handler${edit.removed === 1 ? '' : 's'} from ${file}`;
}

/** What a Codex install must be followed by: Codex runs a hook it does not manage only once trusted. */
const CODEX_TRUST_NOTE =
  'Codex runs these hooks only once they are trusted: trust them in the TUI (/hooks), or launch codex exec with --dangerously-bypass-hook-trust (docs/codex.md "Hooks").\n';

/** Install or uninstall; resolves to the exit code (0, or throws an InputError for exit 2). */
export async function runHookInstall(verb: 'install' | 'uninstall', opts: HookInstallOptions, output: Output): Promise<number> {
  const file = opts.isCodex ? codexConfigFile(opts.env) : settingsFileFor(opts.scope, opts.env, opts.cwd);
  const entry = opts.entryPath ?? hookEntryPath();
  if (verb === 'install') {
    const cache = packageCacheOf(entry);
    if (cache) {
      throw new InputError(
        'unsafe_hook_path',
        `refusing to install a hook that runs ${entry}: that copy of dispatch-watchdog lives in ${cache}'s cache, which may be deleted at any time, and every tool call would then fail its hook.`,
        {
          hint: 'Install the package where it stays (npm install -g dispatch-watchdog, or npm install -D dispatch-watchdog in the project), then run that copy: dispatch-watchdog hook install. Nothing was written.',
        },
      );
    }
  }
  const before = await readIfExists(file);
  const command = defaultHookCommand(opts.stateDir, entry);
  const edit = opts.isCodex
    ? verb === 'install'
      ? planCodexHookInstall(before, command)
      : planCodexHookUninstall(before)
    : verb === 'install'
      ? planHookInstall(before, hookSettingsBlock(command), file)
      : planHookUninstall(before, file);
  if (!edit.isChanged) {
    output.out(
      verb === 'install'
        ? `the dispatch-watchdog hook is already installed in ${file}; nothing changed.\n`
        : `no dispatch-watchdog hook in ${before === undefined ? `${file} (no such file)` : file}; nothing changed.\n`,
    );
  } else if (opts.isDryRun) {
    output.out(
      `would ${verb === 'install' ? 'add' : 'remove'} ${describeEdit(verb, file, edit)} (dry run: nothing written). The file would read:\n${edit.text}`,
    );
  } else {
    // Codex's backup lies beside its config (CODEX_HOME/backups/dispatch-watchdog/), Claude Code's under its config dir.
    const backupFile = opts.isCodex ? path.join(path.dirname(file), 'backups', 'dispatch-watchdog', 'config.toml.bak') : backupFileFor(file, opts.env);
    const backup = await replaceSettings(file, before, edit.text, backupFile);
    output.out(
      `${verb === 'install' ? 'added' : 'removed'} ${describeEdit(verb, file, edit)}; ${backup ? `the previous file is in ${backup}` : 'new file'}.\n`,
    );
    if (verb === 'install' && opts.isCodex) output.out(CODEX_TRUST_NOTE);
    else if (verb === 'install' && opts.scope === 'local') output.out(`${path.basename(file)} holds this machine's paths: keep it out of git.\n`);
    if (verb === 'install' && !opts.isCodex) output.out('Sessions already running may need a restart (or a look at /hooks) to pick it up.\n');
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
          ? "merge the hook block of --print-settings into a Claude Code settings file (default: the project's .claude/settings.local.json, this machine's own); a second install changes nothing; the previous file is kept as one backup under ~/.claude/backups/dispatch-watchdog/"
          : 'take every dispatch-watchdog hook handler out of that settings file, leaving the rest as it was; the previous file is kept as one backup under ~/.claude/backups/dispatch-watchdog/',
      )
      .option('--user', 'the user settings: $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json')
      .option('--local', "this machine's settings of the project: ./.claude/settings.local.json (the default)")
      .option('--project', "the project's shared settings, which teams commit: ./.claude/settings.json (the command holds this machine's paths)")
      .option(
        '--codex',
        verb === 'install'
          ? "Codex's config instead: $CODEX_HOME/config.toml (else ~/.codex/config.toml) gets our [[hooks.<Event>]] tables between two marker comments; Codex runs them once trusted (/hooks) or with --dangerously-bypass-hook-trust"
          : "Codex's config instead: take our marked block out of $CODEX_HOME/config.toml (else ~/.codex/config.toml)",
      )
      .option('--dry-run', 'print what would change and the resulting file; write nothing');
    stateDirOption(cmd, 'state dir the hook records into', ', pinned as an absolute path').action(
      async (flags: { user?: boolean; project?: boolean; local?: boolean; codex?: boolean; dryRun?: boolean; stateDir?: string }) => {
        const scopes = (['user', 'project', 'local'] as const).filter((s) => flags[s]);
        if (flags.codex && scopes.length > 0)
          throw new InputError('bad_flag', `--codex edits Codex's config.toml; it takes no ${scopes.map((s) => '--' + s).join(' or ')}.`);
        if (scopes.length > 1)
          throw new InputError('bad_flag', `choose one of --user, --project and --local, got ${scopes.map((s) => '--' + s).join(' and ')}.`);
        const scope: SettingsScope = scopes[0] ?? DEFAULT_SETTINGS_SCOPE;
        const stateDir = resolveStateDir(flags.stateDir, env.env, env.cwd);
        const opts = { scope, isDryRun: Boolean(flags.dryRun), stateDir, env: env.env, cwd: env.cwd, isCodex: Boolean(flags.codex) };
        setCode(await runHookInstall(verb, opts, env.output));
      },
    );
    teach(cmd, {
      examples:
        verb === 'install'
          ? [
              ['dispatch-watchdog hook install', 'install it for this project on this machine: ./.claude/settings.local.json'],
              ['dispatch-watchdog hook install --dry-run', 'show what would change in that file; write nothing'],
              [
                'dispatch-watchdog hook install --user --state-dir ~/.onex_state',
                'install for every Claude Code session of this user, recording into that state dir',
              ],
              ['dispatch-watchdog hook install --codex', "install it in Codex's config.toml ($CODEX_HOME, else ~/.codex); trust it with /hooks"],
            ]
          : [
              ['dispatch-watchdog hook uninstall --user', "take our hook out of the user's settings.json; other hooks are kept"],
              ['dispatch-watchdog hook uninstall --codex', "take our block out of Codex's config.toml"],
            ],
      exitCodes: [
        ['ok', verb === 'install' ? 'installed, or already installed' : 'removed, or nothing to remove'],
        ['input', 'bad flags, or a settings.json that is not valid JSON (it is left untouched)'],
        ['failure', 'the file cannot be written'],
      ],
    });
  }
}
