// Where the real Claude Code samples live: ../shared/fixtures/claude-code next to the repo
// (as CI lays it out), or $DW_SHARED_FIXTURES (a worktree elsewhere). Tests skip without them.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The claude-code fixtures dir, whether or not it exists. */
export const CLAUDE_FIXTURES = process.env.DW_SHARED_FIXTURES ?? path.resolve(repoRoot, '../shared/fixtures/claude-code');
export const hasClaudeFixtures = existsSync(CLAUDE_FIXTURES);
