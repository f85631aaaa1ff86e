#!/usr/bin/env node
// Entry point: the CLI (installed: bundle/, built at pack time; in a checkout: dist/, built by `npm run build`).
// Two fast paths load almost nothing: `--version` (read package.json) and the Claude Code
// hook, which runs on every tool call and loads only the hook module. `hook install`,
// `hook uninstall` and `hook --print-settings` are ordinary commands of the full CLI.
const args = process.argv.slice(2);
const isHookRun = args[0] === 'hook' && !args.some((a) => ['install', 'uninstall', '--print-settings', '--help', '-h'].includes(a));
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v' || args[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  // An installed package (no src/ beside dist/) runs the one-file bundles (built by prepack):
  // the CLI starts in about 100 ms of CPU instead of 230 ms for dist/'s ~290 modules. A checkout
  // runs dist/, which its own build keeps current (a bundle there may be behind src/).
  const { existsSync } = await import('node:fs');
  const isCheckout = existsSync(new URL('../src/cli.ts', import.meta.url));
  if (!isCheckout) {
    const { createRequire } = await import('node:module');
    createRequire(import.meta.url)(isHookRun ? '../bundle/hook.cjs' : '../bundle/cli.cjs');
  } else if (isHookRun) {
    await import('../dist/src/hook-entry.js');
  } else {
    const { runProcess } = await import('../dist/src/cli.js');
    await runProcess();
  }
}
