// The escalation notice (DESIGN §8): epics/<epic>/requests/<key>.escalation.json tells the orchestrator
// that a ticket went to a human. It needs no answer; written once per key, before the outcome is logged.
import path from 'node:path';
import type { EscalationNotice } from '../../contracts/request.js';
import { msToIso } from '../../contracts/time.js';
import { createFileExclusive } from '../../files/atomic-write.js';
import type { StatePaths } from '../../files/paths.js';
import { keyToFileName } from '../agents/step-file.js';
import type { ActionSpec, PerformerContext } from './spec.js';

/** Path of the escalation notice of one key. */
export function escalationNoticeFile(paths: StatePaths, epicId: string, key: string): string {
  return path.join(paths.requestsDir(epicId), `${keyToFileName(key)}.escalation.json`);
}

/** Write the notice once; an existing one is kept as written. */
export async function writeEscalationNotice(
  ctx: PerformerContext,
  spec: ActionSpec,
  r: { frictionPath: string; tracker: EscalationNotice['tracker'] },
): Promise<string> {
  const file = escalationNoticeFile(ctx.paths, ctx.epicId, spec.key);
  const t = spec.task;
  const moved = r.tracker === 'updated' || r.tracker === 'already_blocked' ? 'is Blocked in Linear' : 'was NOT moved in Linear (move it to Blocked by hand)';
  const notice: EscalationNotice = {
    schema_version: '1',
    kind: 'escalation',
    key: spec.key,
    epic_id: ctx.epicId,
    task_id: t.taskId,
    ticket_id: t.ticketId,
    attempt_count: spec.attempt,
    friction_path: r.frictionPath,
    tracker: r.tracker,
    created_at: msToIso(ctx.clock.nowMs()),
    needs_answer: false,
    message: `${t.ticketId} stalled ${spec.attempt} times and was escalated: it ${moved}; do not redispatch it. The friction note is ${r.frictionPath}.`,
  };
  await createFileExclusive(file, JSON.stringify(notice, null, 2) + '\n');
  return file;
}
