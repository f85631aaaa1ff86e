// The package's root and version, found once from package.json above the code (src/, dist/src/,
// or bundle/). The bundles (scripts/bundle.mjs) have the version compiled in: the Claude Code
// plugin's tree holds no package.json, and its root is then the folder above bundle/.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Set by scripts/bundle.mjs (esbuild `define`) in the bundles; undeclared anywhere else. */
declare const __DW_VERSION__: string | undefined;
const BUNDLED_VERSION = typeof __DW_VERSION__ === 'string' ? __DW_VERSION__ : undefined;

let cached: { root: string; version: string } | undefined;

function findPackage(): { root: string; version: string } {
  if (cached) return cached;
  const here = path.dirname(fileURLToPath(import.meta.url));
  let dir = here;
  for (let i = 0; i < 4; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'dispatch-watchdog' && pkg.version) return (cached = { root: dir, version: pkg.version });
    } catch {
      // keep walking up
    }
    dir = path.dirname(dir);
  }
  return (cached = { root: path.dirname(here), version: BUNDLED_VERSION ?? '0.0.0' });
}

/** dispatch-watchdog's own version. */
export function packageVersion(): string {
  return BUNDLED_VERSION ?? findPackage().version;
}

/** The directory of dispatch-watchdog's package.json (the repo, or the installed package). */
export function packageRoot(): string {
  return findPackage().root;
}
