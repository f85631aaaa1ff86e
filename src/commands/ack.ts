// `dispatch-watchdog ack <key> [--task-id ID]`: answer a request by hand (DESIGN §8). Writes an ack
// file once; the watchdog logs request_answered (how "ack") at its next check. The dispatch log says
// whether the key is a request at all and whether it was answered already.
import { InputError } from '../contracts/errors.js';
import { msToIso } from '../contracts/time.js';
import type { Output } from '../deps.js';
import { foldHistory } from '../core/history.js';
import { writeAck } from '../act/recovery/acks.js';
import { readDispatchLog } from '../journal/dispatch-log.js';
import { assertSafeId, type StatePaths } from '../journal/paths.js';

const KEY = /^([^:]+):([^:]+):(cancel|redispatch|escalate)$/;

/** Parse `<epic>:<task_id>:<action>`; anything else is an input error naming the expected form. */
export function parseRequestKey(key: string): { epicId: string; taskId: string } {
  const m = KEY.exec(key);
  if (!m) {
    throw new InputError('bad_flag', `request key ${JSON.stringify(key)} is not of the form <epic>:<task_id>:<cancel|redispatch>.`, {
      hint: 'Copy the `key` field of the request file, e.g. PROJ-1000:t1:redispatch.',
    });
  }
  return { epicId: assertSafeId(m[1]!, 'epic id'), taskId: assertSafeId(m[2]!, 'task id') };
}

/** Answer one request; returns the exit code (0 answered now or already, 2 unknown key). */
export async function runAck(paths: StatePaths, key: string, taskId: string | undefined, nowMs: number, out: Output): Promise<number> {
  const { epicId } = parseRequestKey(key);
  if (taskId !== undefined) assertSafeId(taskId, '--task-id');
  const log = await readDispatchLog(paths, (e) => e.epic_id === epicId);
  const r = foldHistory(log.events, epicId).requests.get(key);
  if (!r) {
    throw new InputError('unknown_request', `no request with key ${key} in the dispatch log of ${paths.root}.`, {
      hint: 'Check the key (the `key` field of the request file) and --state-dir; escalations need no answer.',
    });
  }
  if (r.status === 'done') {
    out.out(`${key}: already answered (${r.how}${r.answeredByTaskId ? ` by ${r.answeredByTaskId}` : ''}); nothing to do.\n`);
    return 0;
  }
  if (r.status === 'unanswered') {
    out.out(`${key}: already past its deadline (${msToIso(r.answerByMs)}) and counted as unanswered${r.kind === 'redispatch' ? ' (a failed attempt)' : ''}; the ack changes nothing.\n`);
    return 0;
  }
  const isNew = await writeAck(paths, epicId, key, { taskId, at: msToIso(nowMs) });
  const by = taskId ? ` with task ${taskId}` : '';
  out.out(isNew ? `${key}: answered${by}; the watchdog records it at its next check.\n` : `${key}: already acknowledged; the watchdog records it at its next check.\n`);
  return 0;
}
