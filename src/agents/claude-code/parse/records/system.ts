// `type:"system"`: harness notes, one row per `subtype` in SYSTEM_SUBTYPES: API retries, compaction,
// turn ends, background-task records (stream-json), a run's start, local command output. A
// subtype without a row is a harness note that changes nothing. Pure.
//
// A new subtype is one row here: its actor (default `harness`), its marks for the turn
// (family.ts RecordMarks) and what it sets in the state.
import { trackTask, type TranscriptState } from '../transcript-state.js';
import {
  epochSecondsMs,
  isRec,
  NO_MARKS,
  num,
  rowOf,
  str,
  type Rec,
  type RecordActor,
  type RecordContext,
  type RecordFamily,
  type RecordMarks,
} from './family.js';
import { updateTask } from './tasks.js';

interface SystemSubtype {
  actor?: RecordActor;
  marks?: (rec: Rec) => RecordMarks;
  apply?: (s: TranscriptState, rec: Rec, ctx: RecordContext) => void;
}

/** `system/api_error`: Claude Code is retrying the API (it has not given up: that is an assistant record). */
function applyRetry(s: TranscriptState, rec: Rec, { atMs }: RecordContext): void {
  const err = isRec(rec.error) ? rec.error : {};
  s.apiRetry = {
    sinceMs: s.apiRetry?.sinceMs ?? atMs,
    attempt: num(rec.retryAttempt),
    maxRetries: num(rec.maxRetries),
    retryInMs: num(rec.retryInMs),
    status: num(err.status),
  };
  const limits = isRec(err.rateLimits) ? err.rateLimits : undefined;
  // Written only when it changes: most retries name no plan limit.
  if (limits) s.planLimit = { type: str(limits.rateLimitType), resetsAtMs: epochSecondsMs(limits.resetsAt) };
  else if (s.planLimit) s.planLimit = undefined;
}

/**
 * `system/api_retry` (`claude -p --output-format stream-json`, 2.1.x): Claude Code starts waiting
 * `retry_delay_ms` before attempt `attempt` of `max_retries` after `error_status`. No timestamp:
 * the file's mtime dates it. 2.1.197 writes no retry record into any transcript, so this is the
 * only retry evidence on disk. A retry after a give-up is the agent going on (issue 19 item 4).
 */
function applyStreamRetry(s: TranscriptState, rec: Rec, { atMs }: RecordContext): void {
  s.apiRetry = {
    sinceMs: s.apiRetry?.sinceMs ?? atMs,
    attempt: num(rec.attempt),
    maxRetries: num(rec.max_retries),
    retryInMs: num(rec.retry_delay_ms),
    status: num(rec.error_status),
  };
  s.apiError = undefined;
}

/**
 * Harness records about background tasks: `task_notification` / `task_updated` (stream-json
 * output; a task ended) and `agents_killed` (the user stopped every background agent).
 */
function applyTaskRecord(s: TranscriptState, rec: Rec, { atMs }: RecordContext): void {
  if (rec.subtype === 'agents_killed') {
    for (const id of s.tasks.filter((t) => t.kind === 'agent' && t.status === 'running').map((t) => t.id))
      trackTask(s, { id, kind: 'agent', status: 'killed', atMs });
    return;
  }
  const id = str(rec.task_id);
  const status = rec.subtype === 'task_updated' ? (isRec(rec.patch) ? str(rec.patch.status) : undefined) : str(rec.status);
  const toolUseId = str(rec.tool_use_id);
  if (id && status && status !== 'running' && status !== 'pending')
    updateTask(s, { id, kind: 'unknown', status, atMs, ...(toolUseId ? { toolUseId } : {}) }, true);
}

const TURN_END: SystemSubtype = {
  marks: () => ({ isTurnEnd: true }),
  apply: (s, _rec, { atMs }) => {
    s.turnEndedMs = atMs ?? s.turnEndedMs ?? 0;
  },
};
const TASK_RECORD: SystemSubtype = { apply: applyTaskRecord };

/**
 * `task_started` (stream-json, 2.1.332+): a subagent launched in the background (`is_backgrounded`):
 * its Agent call, open until its "Async agent launched" result, is not the lead waiting inside it,
 * so the subagent's streamed records that come before that result are not the lead's calls
 * (parse-transcript-record.ts).
 */
function applyTaskStarted(s: TranscriptState, rec: Rec): void {
  if (rec.is_backgrounded !== true || rec.task_type !== 'local_agent') return;
  const call = s.open.find((c) => c.toolUseId === rec.tool_use_id);
  if (call) call.isBackground = true;
}

const SYSTEM_SUBTYPES: Readonly<Record<string, SystemSubtype>> = {
  api_error: { actor: 'agent', apply: applyRetry },
  api_retry: { actor: 'agent', apply: applyStreamRetry },
  compact_boundary: {
    actor: 'agent',
    marks: (rec) => ({ compact: isRec(rec.compactMetadata) && rec.compactMetadata.trigger === 'manual' ? 'manual' : 'auto' }),
    apply: (s, _rec, { atMs }) => {
      s.compactedAtMs = atMs;
    },
  },
  turn_duration: TURN_END,
  stop_hook_summary: TURN_END,
  task_started: { apply: applyTaskStarted },
  task_notification: TASK_RECORD,
  task_updated: TASK_RECORD,
  agents_killed: TASK_RECORD,
  // stream-json: a `claude -p` run begins (also when resumed into the same file).
  init: { marks: () => ({ isRunStart: true }) },
  // 2.1.96+: a local command's output (`/model`), the human's doing.
  local_command: { marks: () => ({ isLocalCommand: true }) },
};

const subtypeOf = (rec: Rec): SystemSubtype | undefined => rowOf(SYSTEM_SUBTYPES, rec.subtype);

export const SYSTEM: RecordFamily = {
  isSession: true,
  isHarnessNote: true,
  actor: (rec) => subtypeOf(rec)?.actor ?? 'harness',
  marks: (rec) => subtypeOf(rec)?.marks?.(rec) ?? NO_MARKS,
  apply: (s, rec, ctx) => subtypeOf(rec)?.apply?.(s, rec, ctx),
};
