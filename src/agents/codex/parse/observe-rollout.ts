// A Codex thread's evidence as one source of the merged observation (DESIGN §4, §15): its rollout
// (rollout.ts), its --json stdout (exec-events.ts) and what the reader found of its live owner.
// Pure: the states and the liveness come in as arguments.
import { knownCall, type ApiFailureKind, type PartialObservation } from '../../../observe/parse/observation.js';
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

/** A Codex subagent the thread waits on (an open `wait_agent`): its thread id and its own rollout, when found. */
export interface CodexChild {
  threadId: string;
  state?: RolloutState;
}

/** The give-up's kind from Codex's `codex_error_info` (errorInfoWord) and message. */
export function codexFailureKind(info: string, message: string): ApiFailureKind {
  if (info === 'usage_limit_exceeded' || /usage limit/i.test(message)) return 'usage_limit';
  if (info === 'context_window_exceeded' || /context window/i.test(message)) return 'context_exhausted';
  if (info === 'internal_server_error' || info === 'server_overloaded' || /\b5\d\d\b/.test(info)) return 'overloaded';
  // Refused credentials (0.171.0: "unexpected status 401 Unauthorized" after its retries, `http_connection_failed` with the status).
  if (/:40[13]$/.test(info) || /unexpected status 40[13]\b/i.test(message)) return 'auth_failed';
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
  children: readonly CodexChild[] = [],
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
    // A usage limit is its own failure (usage_limit): escalated, never redispatched into the same wall.
    part.failed = { kind: codexFailureKind(end.errorInfo, end.message), atMs: end.atMs, detail: `${end.message} (codex_error_info ${end.errorInfo})` };
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
  if (!end && children.length > 0) waitOnChildren(part, children);
  return part;
}

/**
 * The lead waits in `wait_agent` on its children (reference §9, §12.5): their progress is its
 * progress, the busiest child's open call holds the window with its own budget, and a child with
 * a row of its own is judged there (the core defers the lead to that row). A child whose rollout
 * is not found is unseen: never acted on.
 */
function waitOnChildren(part: PartialObservation, children: readonly CodexChild[]): void {
  const seen = children.filter((c) => c.state?.lastRecordMs !== undefined);
  const newest = seen.length > 0 ? Math.max(...seen.map((c) => c.state!.lastRecordMs!)) : undefined;
  if (newest !== undefined && (part.lastProgressMs === undefined || newest > part.lastProgressMs)) part.lastProgressMs = newest;
  const unseen = children.filter((c) => !seen.includes(c)).map((c) => c.threadId);
  part.waitingOnChildren = {
    agentIds: children.map((c) => c.threadId),
    ...(newest !== undefined ? { lastProgressMs: newest } : {}),
    ...(unseen.length > 0 ? { unseenIds: unseen } : {}),
  };
  // The busiest child's newest call is what the lead waits on: open, its own budget holds the window;
  // answered (the child's model at work), the child's silence is judged on the window, not the wait's hour.
  const busiest = [...seen].sort((a, b) => b.state!.lastRecordMs! - a.state!.lastRecordMs!)[0];
  if (busiest?.state?.lastCall) part.lastTool = knownCall(busiest.state.lastCall);
  else if (busiest) delete part.lastTool;
}
