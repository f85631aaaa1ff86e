// The environment of an agent we launch or a command we run for one: the watchdog's own, without
// the Linear key, plus the request's key, and Claude Code's config dir when the watchdog reads a
// configured one (`claude.config_dir`): a replacement must write its transcript where the watchdog
// looks, and a resume must find the session there.
import os from 'node:os';
import path from 'node:path';

/**
 * `base` + `extra`, minus LINEAR_API_KEY. With `claudeConfigDir`: CLAUDE_CONFIG_DIR set to it, or
 * removed when it is `$HOME/.claude`, Claude Code's default (set, it would move `~/.claude.json`,
 * the user's settings and MCP servers, to `~/.claude/.claude.json`).
 */
export function agentEnv(base: NodeJS.ProcessEnv, extra: Record<string, string>, claudeConfigDir?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, ...extra };
  delete env.LINEAR_API_KEY; // the agent has no use for it, and must not be able to print it
  if (claudeConfigDir === undefined) return env;
  const dir = path.resolve(claudeConfigDir);
  if (dir === path.resolve(base.HOME || os.homedir(), '.claude')) delete env.CLAUDE_CONFIG_DIR;
  else env.CLAUDE_CONFIG_DIR = dir;
  return env;
}
