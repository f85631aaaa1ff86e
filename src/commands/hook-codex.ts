// `hook install --codex`: our hook as Codex 0.171's `[[hooks.<Event>]]` tables in its config.toml
// (../shared/reference/codex-0.171.0.md §6; docs/codex.md "Hooks"), between two marker comments so
// a second install replaces it and `uninstall --codex` takes it out, leaving every other byte. Codex
// sends Claude-Code-shaped payloads (session_id = the thread id, transcript_path = the rollout), so
// the same `dispatch-watchdog hook` files them under activity/<thread>.ndjson. Codex runs a hook it
// does not manage only once it is trusted (`/hooks` in the TUI) or with
// `--dangerously-bypass-hook-trust`. Pure: text in, text out (and where the file is).
import os from 'node:os';
import path from 'node:path';
import type { SettingsEdit } from './hook-settings.js';

/** The events Codex fires in `codex exec` that tell the watchdog something (§6: no hook for retries, polls, failures or kills). */
export const CODEX_HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'SubagentStart',
  'SubagentStop',
  'Stop',
  'SessionEnd',
] as const;

const BEGIN = '# >>> dispatch-watchdog hook (dispatch-watchdog hook install --codex; uninstall --codex removes it) >>>';
const END = '# <<< dispatch-watchdog hook <<<';

/** Codex's config file: $CODEX_HOME/config.toml, else ~/.codex/config.toml. */
export function codexConfigFile(env: NodeJS.ProcessEnv): string {
  return path.join(env.CODEX_HOME || path.join(env.HOME || os.homedir(), '.codex'), 'config.toml');
}

/** A TOML basic string (JSON's escapes are TOML's). */
const tomlString = (s: string) => JSON.stringify(s);

/** Our block: one `[[hooks.<Event>]]` per event, each running `command` (timeout in seconds). */
export function codexHookBlock(command: string): string {
  const lines = [BEGIN];
  for (const event of CODEX_HOOK_EVENTS) {
    lines.push(`[[hooks.${event}]]`);
    if (event === 'PreToolUse' || event === 'PostToolUse') lines.push('matcher = ".*"');
    lines.push(`[[hooks.${event}.hooks]]`, 'type = "command"', `command = ${tomlString(command)}`, 'timeout = 10');
  }
  lines.push(END);
  return `${lines.join('\n')}\n`;
}

/** Where our block is in `text` (from its first marker to the end of its last line), when it is. */
function blockOf(text: string): { start: number; end: number } | undefined {
  const start = text.indexOf(BEGIN);
  if (start < 0) return undefined;
  const endAt = text.indexOf(END, start);
  if (endAt < 0) return { start, end: text.length };
  const nl = text.indexOf('\n', endAt);
  return { start, end: nl < 0 ? text.length : nl + 1 };
}

/** The text with our block in (replacing an older one in place, else at the end). */
export function planCodexHookInstall(before: string | undefined, command: string): SettingsEdit {
  const text = before ?? '';
  const block = codexHookBlock(command);
  const at = blockOf(text);
  const added = [...CODEX_HOOK_EVENTS];
  if (at) {
    const next = text.slice(0, at.start) + block + text.slice(at.end);
    return { text: next, isChanged: next !== text, removed: next === text ? 0 : 1, added: next === text ? [] : added };
  }
  const sep = text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  return { text: text + sep + block, isChanged: true, removed: 0, added };
}

/** The text without our block (and the blank line before it that install added). */
export function planCodexHookUninstall(before: string | undefined): SettingsEdit {
  const text = before ?? '';
  const at = blockOf(text);
  if (!at) return { text, isChanged: false, removed: 0, added: [] };
  const head = text.slice(0, at.start);
  const next = (head.endsWith('\n\n') ? head.slice(0, -1) : head) + text.slice(at.end);
  return { text: next, isChanged: true, removed: 1, added: [] };
}
