// A check's part in the request lifecycle (DESIGN §8): the answers and deadlines of pending
// requests, judged from the state file as written, each journaled (or, read-only, only folded).
import { readAcks } from './act/recovery/acks.js';
import type { DispatchEvent, EventBody } from './contracts/events.js';
import type { Wave } from './contracts/state-file.js';
import { msToIso } from './contracts/time.js';
import { foldEvent, type History } from './core/history.js';
import { pendingRequests, settleRequests } from './core/requests.js';
import type { UnobservedSpan } from './core/unobserved.js';
import type { StatePaths } from './files/paths.js';
import type { DispatchLog } from './journal/dispatch-log.js';

/** What of a check's env the lifecycle reads (check.ts CheckEnv has it all). */
export interface RequestEnv {
  paths: StatePaths;
  history: History;
  /** Absent for --dry-run and --now: nothing is journaled. */
  log?: DispatchLog;
  opts: { epicId: string };
  runId: string;
}

/** Journal one event (or, read-only, only fold it) so the rest of the check sees it. */
async function record(env: RequestEnv, body: EventBody, nowMs: number): Promise<DispatchEvent> {
  const e = env.log ? await env.log.append(body) : ({ ...body, timestamp_utc: msToIso(nowMs), epic_id: env.opts.epicId, run_id: env.runId } as DispatchEvent);
  foldEvent(env.history, e, env.opts.epicId);
  return e;
}

/** Answers and deadlines of pending requests, judged from the state file as written (DESIGN §8). */
export async function settleRequestLifecycle(env: RequestEnv, unobserved: readonly UnobservedSpan[], wave: Wave, nowMs: number): Promise<DispatchEvent[]> {
  const pending = pendingRequests(env.history);
  if (pending.length === 0) return [];
  const acks = await readAcks(
    env.paths,
    env.opts.epicId,
    pending.map((r) => r.key),
  );
  const out: DispatchEvent[] = [];
  for (const body of settleRequests(wave, env.history, acks, nowMs, unobserved)) out.push(await record(env, body, nowMs));
  return out;
}
