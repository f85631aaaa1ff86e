// The package version, read once from package.json next to the code (src/ or dist/src/).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** dispatch-watchdog's own version. */
export function packageVersion(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'dispatch-watchdog' && pkg.version) return (cached = pkg.version);
    } catch {
      // keep walking up
    }
    dir = path.dirname(dir);
  }
  return (cached = '0.0.0');
}
