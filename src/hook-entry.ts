// Fast entry for the Claude Code hook: `node dist/src/hook-entry.js [--state-dir DIR]`.
// Loads only hook.ts and its small pure helpers, so each hook call costs one short node start.
import { hookMain } from './commands/hook.js';

process.exitCode = await hookMain(process.argv.slice(2), process.stdin, process.env);
