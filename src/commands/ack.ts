// `dispatch-watchdog ack <key> [--task-id ID]`: answer a request by hand (DESIGN §8). Writes an ack
// file once; the watchdog logs request_answered (how "ack") at its next check. The dispatch log says
// whether the key is a request at all and whether it was answered already.
import { InputError } from '../contracts/errors.js';
import { msToIso } from '../contracts/time.js';
import type { Output } from '../deps.js';
import { foldHistory } from '../core/history.js';
import { writeAck } from '../act/recovery/acks.js';
import { readDispatchLog } from '../journal/dispatch-log.js';
import { assertSafeId, StatePaths } from '../files/paths.js';
import { EXIT } from '../contracts/exit-codes.js';
import { guardStateDir } from '../files/atomic-write.js';
import type { Command } from 'commander';
import { existingStateDir } from '../options.js';
import { teach } from '../cli-help.js';
import { stateDirOption, type CliContext } from './command.js';

const KEY = /^([^:]+):([^:]+):(cancel|redispatch|escalate|nudge|reconcile)$/;

/** Parse `<epic>:<task_id>:<action>`; anything else is an input error naming the expected form. */
export function parseRequestKey(key: string): { epicId: string; taskId: string } {
  const m = KEY.exec(key);
  if (!m) {
    throw new InputError('bad_flag', `request key ${JSON.stringify(key)} is not of the form <epic>:<task_id>:<cancel|redispatch|nudge|reconcile>.`, {
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
    out.out(
      `${key}: already past its deadline (${msToIso(r.answerByMs)}) and counted as unanswered${r.kind === 'redispatch' ? ' (a failed attempt)' : ''}; the ack changes nothing.\n`,
    );
    return 0;
  }
  const isNew = await writeAck(paths, epicId, key, { taskId, at: msToIso(nowMs) });
  const by = taskId ? ` with task ${taskId}` : '';
  out.out(
    isNew
      ? `${key}: answered${by}; the watchdog records it at its next check.\n`
      : `${key}: already acknowledged; the watchdog records it at its next check.\n`,
  );
  return 0;
}

export function registerAck(program: Command, { env, setCode }: CliContext): void {
  const cmd = program
    .command('ack')
    .description(
      `answer a request by hand (cancel, redispatch/resume, nudge, reconcile; when no row shows the answer): exit ${EXIT.ok} answered now or already, ${EXIT.input} unknown key`,
    )
    .argument('<key>', "the request's key, e.g. PROJ-1000:t1:redispatch")
    .option('--task-id <id>', "the task id the replacement runs under, when it is not the request's recovery_task_id");
  stateDirOption(cmd).action(async (key: string, flags: { taskId?: string; stateDir?: string }) => {
    const paths = new StatePaths(existingStateDir(flags.stateDir, env.env, env.cwd));
    guardStateDir(paths.root);
    setCode(await runAck(paths, key, flags.taskId, env.watchDeps.clock.nowMs(), env.output));
  });
  teach(cmd, {
    examples: [
      ['dispatch-watchdog ack PROJ-1000:t1:cancel', 'the agent was stopped (and its row not marked terminal)'],
      ['dispatch-watchdog ack PROJ-1000:t1:redispatch --task-id t1-retry', "the replacement runs under another task id than the request's recovery_task_id"],
    ],
    exitCodes: [
      ['ok', 'answered now, or already answered (the watchdog records it at its next check)'],
      ['input', 'unknown key, or bad input or usage'],
    ],
  });
}
