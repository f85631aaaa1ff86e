// Child-process scripts that start like the CLI: its process entry (`runProcess`, run as
// `dispatch-watchdog --version`) first, so what it sets for the whole process (V8's flags) is in
// force for the workload after it. For tests that compare such a child with a plain node.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './cli.js';

/** ESM source that runs the CLI's process entry when `viaCli` (and nothing when not); the built dist/ is used. */
export function cliEntryPrelude(viaCli: boolean): string {
  const cli = pathToFileURL(path.join(REPO_ROOT, 'dist', 'src', 'cli.js')).href;
  return `
if (${viaCli}) {
  process.argv = [process.argv[0], 'dispatch-watchdog', '--version'];
  const { runProcess } = await import(${JSON.stringify(cli)});
  await runProcess();
}
`;
}
