// Fast entry for the Claude Code hook: `node bundle/hook.cjs [--state-dir DIR]` (the built
// CommonJS bundle of this file, see scripts/bundle.mjs; dist/src/hook-entry.js is the same code
// as an ES module). It loads hook-run.ts and its small helpers only, reads the payload from
// descriptor 0 (process.stdin would load node's stream machinery) and writes synchronously, so a
// hook call costs little more than node's own start. No top-level await: it must build as CommonJS.
import { hookRun } from './commands/hook-run.js';

const argv = process.argv.slice(2);
if (argv.includes('--print-settings')) {
  process.stderr.write('the settings block comes from the CLI: dispatch-watchdog hook --print-settings\n');
  process.exitCode = 2;
} else {
  // A writer that never closes stdin nor sends a whole payload leaves a read blocked in libuv's
  // thread pool, and node's exit waits for that thread: after the 2 s stdin timeout (the line, if
  // any, written) the process ends itself rather than hold the agent until Claude Code's timeout.
  const onStdinLeftOpen = () => void process.kill(process.pid, 'SIGKILL');
  // The one read of stdin is all the hook gives libuv's thread pool: one thread, not four, to start.
  process.env.UV_THREADPOOL_SIZE ??= '1';
  void hookRun(argv, 0, process.env, { onStdinLeftOpen }).then((code) => process.exit(code));
}
