// Where the hook appends an agent's activity: the one layout path the hook computes itself, kept
// free of paths.ts's id checks (they load zod, and the hook bundle loads node built-ins and src/
// only). The caller passes an id already checked safe (observe/parse/hook-line.ts).
import path from 'node:path';

/** The folder of hook activity files under a state dir. */
export const ACTIVITY_DIR = 'activity';

/** `<root>/activity/<id>.ndjson` for an id already known to be safe. */
export function activityFileOf(root: string, safeId: string): string {
  return path.join(root, ACTIVITY_DIR, `${safeId}.ndjson`);
}
