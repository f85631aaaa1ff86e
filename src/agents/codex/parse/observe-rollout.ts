// A Codex thread's evidence as one source of the merged observation (DESIGN §4, §15): its rollout
// (rollout.ts), its --json stdout (exec-events.ts) and what the reader found of its live owner.
// Pure: the states and the liveness come in as arguments.
import type { ApiFailureKind, PartialObservation } from '../../../observe/parse/observation.js';
import type { ExecEventsState } from './exec-events.js';
import { isTurnOpen, type RolloutState } from './rollout.js';

/** What the reader found of the process that owns the thread. */
export interface CodexLiveness {
  /** alive: a process holds the thread's writer lock; gone: none does and the launched pid is dead; unknown: cannot tell. */
  owner: 'alive' | 'gone' | 'unknown';
  ownerPid?: number;
  /** Commands (`bash -lc` children of the owner) running now. */
  commands?: number;
  /** How it was told (for the reason text). */
  how?: string;
}

/** The give-up's kind from Codex's `codex_error_info` (errorInfoWord) and message. */
export function codexFailureKind(info: string, message: string): ApiFailureKind | 'usage_limit' {
  if (info === 'usage_limit_exceeded' || /usage limit/i.test(message)) return 'usage_limit';
  if (info === 'context_window_exceeded' || /context window/i.test(message)) return 'context_exhausted';
  if (info === 'internal_server_error' || info === 'server_overloaded' || /\b5\d\d\b/.test(info)) return 'overloaded';
  if (info.endsWith(':429') || /429|too many requests/i.test(message)) return 'rate_limit';
  if (/stream disconnected|idle timeout|connection|network|error sending request/i.test(message)) return 'connection';
  return 'api_error';
}

/** The rollout (and stdout, when the row points to it) as one PartialObservation. */
export function observeCodexThread(
  s: RolloutState,
  file: string,
  live: CodexLiveness,
  stdout?: { state: ExecEventsState; mtimeMs: number },
): PartialObservation {
  const part: PartialObservation = {
    source: 'transcript',
    transcriptFile: file,
    isOutputTracked: true,
    // codex exec never asks a person (approval policy never; escalations are refused at once).
    canWaitOnHuman: false,
    recentCalls: s.recent,
    ...(s.lastRecordMs !== undefined ? { lastProgressMs: s.lastRecordMs } : {}),
    ...(s.lastCall ? { lastTool: s.lastCall } : {}),
    ...(s.lastOutput !== undefined ? { lastOutput: s.lastOutput } : {}),
    ...(s.cwd !== undefined ? { cwd: s.cwd } : {}),
    ...(live.owner === 'alive' ? { isProcessAlive: true } : live.owner === 'gone' ? { isProcessAlive: false } : {}),
    ...(live.commands !== undefined ? { liveChildren: live.commands } : {}),
  };
  const end = s.turn?.end;
  if (end?.kind === 'completed') part.finished = { kind: 'task_complete', atMs: end.atMs };
  else if (end?.kind === 'aborted') part.waitingHuman = { kind: 'interrupted', sinceMs: end.atMs, detail: `turn_aborted (${end.reason})` };
  else if (end?.kind === 'failed') {
    const kind = codexFailureKind(end.errorInfo, end.message);
    if (kind === 'usage_limit') {
      // Not a stall: a replacement would hit the same wall. A person decides (wait for the reset, raise the plan).
      part.waitingHuman = {
        kind: 'notification',
        sinceMs: end.atMs,
        detail: `Codex hit its usage limit (${end.errorInfo}): "${end.message}"; not redispatched, resume it once the limit resets`,
      };
    } else {
      part.failed = { kind, atMs: end.atMs, detail: `${end.message} (codex_error_info ${end.errorInfo})` };
    }
  } else if (live.owner === 'gone') {
    // No live owner and no end record: the process died (SIGKILL, SIGTERM, a crash). Codex writes nothing then.
    part.failed = {
      kind: 'agent_died',
      atMs: s.lastRecordMs,
      detail: `no process holds the thread${live.how ? ` (${live.how})` : ''} and the rollout has no end record${isTurnOpen(s) ? ' for the open turn' : ''}`,
    };
  }
  if (stdout && !end && stdout.state.retrying !== undefined) {
    // The API is being retried: only stdout says so, dated by the file's mtime (its lines have no time).
    part.isApiRetrying = true;
    part.lastProgressMs = Math.max(part.lastProgressMs ?? stdout.mtimeMs, stdout.mtimeMs);
  }
  return part;
}
