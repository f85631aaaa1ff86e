// Identifiers that become path parts (epic, ticket, task, agent ids). Pure.
import * as z from 'zod';

/** DESIGN §2: `@` is allowed because teammate ids look like `name@team`. */
export const SAFE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;

export const SAFE_ID_RULE = '1-128 letters, digits, ".", "_", "@" or "-", starting with a letter or digit';

export const SafeId = z.string().regex(SAFE_ID_PATTERN, { message: `expected an id of ${SAFE_ID_RULE}` });

/** True when `id` can be used as one path segment under the state dir (never `.`, `..` or a `/`). */
export function isSafeId(id: string): boolean {
  return SAFE_ID_PATTERN.test(id);
}

/**
 * A replacement's task id: the ticket's first task id plus the attempt: `t1` → `t1-r1` → `t1-r2`.
 * Only the previous attempt's own suffix is stripped, so an id that merely ends in `-r1` (`fix-r1`)
 * gets `fix-r1-r1`, never its own id back.
 */
export function recoveryTaskId(taskId: string, attempt: number): string {
  const previous = `-r${attempt - 1}`;
  const base = attempt > 1 && taskId.endsWith(previous) ? taskId.slice(0, -previous.length) : taskId;
  if (attempt < 1) return taskId.replace(/-r\d+$/, '');
  const suffix = `-r${attempt}`;
  return base.slice(0, 128 - suffix.length) + suffix;
}
