// Vitest global setup. The tests spawn dist/ (npm test builds it); the hook's CommonJS build
// (dist/hook, scripts/build-hook.mjs) is rebuilt here when a source is newer, so a plain
// `tsc -p tsconfig.build.json` before a run is still enough.
import { buildHook, isHookBuildStale } from '../../scripts/build-hook.mjs';

export default async function setup(): Promise<void> {
  if (isHookBuildStale()) await buildHook();
}
