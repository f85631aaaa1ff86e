// The environment of an agent we launch: no Linear key, the request's key, and Claude Code's
// config dir as the watchdog reads it (never CLAUDE_CONFIG_DIR=$HOME/.claude, which would move
// the user's ~/.claude.json).
import { describe, expect, it } from 'vitest';
import { agentEnv } from '../../src/act/agents/agent-env.js';

const base = { HOME: '/home/u', PATH: '/bin', LINEAR_API_KEY: 'lin_api_x', CLAUDE_CONFIG_DIR: '/elsewhere' };

describe('agentEnv', () => {
  it.each([
    ["no configured dir: the watchdog's own is inherited", undefined, '/elsewhere'],
    ['a configured dir: set', '/srv/claude', '/srv/claude'],
    ['a relative configured dir: made absolute', 'rel/claude', `${process.cwd()}/rel/claude`],
    ['the default $HOME/.claude: removed', '/home/u/.claude', undefined],
  ])('%s', (_what, configured, expected) => {
    const env = agentEnv(base, { DISPATCH_WATCHDOG_KEY: 'E:t1:redispatch' }, configured);
    expect(env.CLAUDE_CONFIG_DIR).toBe(expected);
    expect(env).toMatchObject({ HOME: '/home/u', PATH: '/bin', DISPATCH_WATCHDOG_KEY: 'E:t1:redispatch' });
    expect('LINEAR_API_KEY' in env).toBe(false);
  });
});
