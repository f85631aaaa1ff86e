// Entry of bundle/cli.cjs (scripts/bundle.mjs): the CLI as one file, the one the plugin's skill
// runs from the plugin's tree (scripts/build-plugin.mjs), and the one the npm bin (bin/dispatch-watchdog.js) runs when
// installed; in a checkout the bin runs dist/src/cli.js instead.
// No top-level await: the bundle is CommonJS.
import { runProcess } from './cli.js';

void runProcess();
