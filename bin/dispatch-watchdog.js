#!/usr/bin/env node
// Entry point: the compiled CLI (npm ci builds it through the prepare script). The Claude Code
// hook takes a fast path that loads only the hook module: it runs on every tool call.
if (process.argv[2] === 'hook' && !process.argv.includes('--help') && !process.argv.includes('-h')) {
  await import('../dist/src/hook-entry.js');
} else {
  const { runProcess } = await import('../dist/src/cli.js');
  await runProcess();
}
