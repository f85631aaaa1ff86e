// What the transcript parser remembers between reads: small, bounded and plain JSON, so it can
// be kept in memory across checks and persisted across restarts. Pure.
import { TranscriptStateSchema } from '../../../contracts/observe-store.js';
import type { ApiFailureKind, ToolCall } from '../../../observe/parse/observation.js';
// The call table every parser state shares (observe/parse/call-table.ts), re-exported for this wing.
export { closeCall, ERROR_MAX_CHARS, excerpt, OPEN_CALLS_MAX, OUTPUT_MAX_CHARS } from '../../../observe/parse/call-table.js';
export { openCall, pickLastTool, RECENT_CALLS_MAX, replaceCall, type CallTable } from '../../../observe/parse/call-table.js';

/** Background tasks and child agents remembered. @defaultValue 64 */
export const TASKS_MAX = 64;

/** A background Bash task or a child agent this transcript launched or was told about. */
export interface TrackedTask {
  id: string;
  /**
   * `agent`: a subagent (its Task/Agent result named it); a running background one holds its
   * parent's finish. `teammate`: an agent-team member this session (the lead) spawned, id
   * `<name>@<team>`; a running one holds the lead's finish too (`idle`, `shutdown`, `terminated`
   * do not).
   */
  kind: 'agent' | 'bash' | 'teammate' | 'unknown';
  /** `running` until a result or `<task-notification>` says otherwise (`completed`, `failed`, `killed`…). */
  status: string;
  atMs?: number;
  /** The call that launched it (a notification may name the call rather than the id). */
  toolUseId?: string;
}

/**
 * What a state folded from a tail start alone (a cold start mid-file, the bytes before `from`
 * unread) can vouch for; see `tailSuffices` (tail-context.ts). Dropped once a turn boundary is
 * read (then the tail holds enough context, as the read-back rule has always said).
 */
export interface TailLedger {
  /** Byte offset the tail began at. */
  from: number;
  /** `message.id` of the first assistant record read (it may be a later block of a message begun before the tail). */
  firstMessageId?: string;
  /** Assistant messages read in the tail (a message's blocks, each its own record, count once), and the last one's id: what a longer tail is sized by. */
  messages?: number;
  lastMessageId?: string;
  /**
   * An assistant message that began inside the tail was read: the API call that wrote it was sent
   * with the result of every call opened before it, so nothing opened before the tail is still open.
   */
  isFresh?: true;
  /** Tool calls opened since that message began (they are the newest entries of `recent`). */
  callsSinceFresh: number;
  /** After it, a result or progress line named a call the tail never saw: the premise failed. */
  isSpoiled?: true;
}

export interface TranscriptState {
  version: 1;
  /** Newest timestamp of a record that shows the agent or its harness at work. */
  lastEventMs?: number;
  /** Oldest timestamp seen (a child transcript's start, to match it to the parent's call). */
  firstEventMs?: number;
  /** Newest assistant record. */
  lastAssistantMs?: number;
  lastOutput?: string;
  /** Recent tool calls, oldest first (results fill in `isOpen`/`error`). */
  recent: ToolCall[];
  /** Calls without a result yet, oldest first. */
  open: ToolCall[];
  /** Set while the newest records are `system/api_error` retries. */
  apiRetry?: { sinceMs?: number; attempt?: number; maxRetries?: number; retryInMs?: number; status?: number };
  /**
   * The plan's usage limit the newest retry named (`system/api_error` `error.rateLimits`, 2.1.332+: a
   * 429 with Anthropic's unified rate-limit headers, a subscription's 5-hour or 7-day window), until
   * the next assistant record: a give-up after it is that limit, not a passing rate limit.
   */
  planLimit?: { type?: string; resetsAtMs?: number };
  /** The newest assistant record was Claude Code's terminal API error message: the agent gave up. */
  apiError?: {
    atMs?: number;
    status?: number;
    kind: ApiFailureKind;
    text?: string;
    /** A usage limit's reset, when the give-up or its retries said it: until then a woken turn meets the same wall. */
    resetsAtMs?: number;
  };
  /** When the newest `api-request` (2.1.300+) was sent, until a response (an assistant record) came. */
  requestSentMs?: number;
  /**
   * Requests sent again with no response since the first (`api-request` records): how many
   * resends, and the gap before the newest. A subagent's 429 backoff leaves only these (2.1.332
   * writes `system/api_error` for the main session's retries alone). Cleared by a response.
   */
  resend?: { count: number; gapMs: number };
  /** The Claude Code that wrote the newest record (`version`, "2.1.332"): which behaviour to expect (cli-version.ts). */
  cliVersion?: string;
  /**
   * Input queued for the agent (`queue-operation` enqueue, 2.1.x) and not yet consumed (no
   * dequeue): since when, how many, and what the oldest was. A wake that never landed (#91503).
   */
  queued?: { sinceMs?: number; count: number; what: string };
  /** A turn ended (`system/turn_duration` or `stop_hook_summary`) and nothing ran since. */
  turnEndedMs?: number;
  /**
   * The human interrupted the agent (`[Request interrupted by user]`, Esc) in a main session and
   * nothing has happened since: the agent is idle until the human types (a new prompt, or the
   * agent at work again, clears it). Not set in a subagent's transcript (`isSidechain`, `agentId`), where
   * Claude Code's own stall watchdog writes the same text when it gives up on the subagent.
   */
  interruptedMs?: number;
  /** The newest assistant record ended in text with no call after it: a final answer, if the turn is over. */
  finalTextMs?: number;
  /** This Claude Code writes no turn-end record (1.0.x, or a scripted `-p`/SDK run): a final answer ends the turn. */
  hasNoTurnEndRecords?: boolean;
  /** A turn boundary (a prompt, a turn end, a compaction summary) was read: a tail start has enough context. */
  hasTurnStart?: boolean;
  /** Reading began mid-file (a cold tail start): launches before `firstEventMs` are unknown. */
  isTailStart?: boolean;
  /** Set while only a tail was read (a lazy cold start): what the bytes before it could still change. */
  tail?: TailLedger;
  /** A manual `/compact` is under way: its records are the human's, not the agent's. */
  isManualCompact?: boolean;
  /**
   * The newest record shows the agent at work but carries no time: a stream-json `system/api_retry`
   * before Claude Code 2.1.337 (which stamps it `written_at`). The file's mtime dates it.
   */
  isUndatedAgentLast?: true;
  /** A final `type:"result"` record (stream-json output) was seen. */
  result?: { subtype?: string; atMs?: number; isError?: boolean };
  compactedAtMs?: number;
  tasks: TrackedTask[];
  /** The agent team the newest record names (`teamName`, on every record after `TeamCreate`). */
  teamName?: string;
  /** `TeamCreate` was read: every teammate spawn comes after it, so the state knows the whole team. */
  isTeamKnown?: true;
  /** Read from a short lazy tail (a cold start): a team whose creation it did not read needs a read-back. */
  isLazyTail?: true;
  /** The newest `agentId` / `sessionId` on a record, and where it was read. */
  agentId?: string;
  sessionId?: string;
  identityAt?: string;
  /** The first record's `cwd`: where the session started, so where a replacement is launched (a later record's may point elsewhere). */
  cwd?: string;
  records: number;
  badLines: number;
  skippedLines: number;
}

/** The state of a transcript nothing has been read from. */
export function emptyTranscriptState(): TranscriptState {
  return { version: 1, recent: [], open: [], tasks: [], records: 0, badLines: 0, skippedLines: 0 };
}

/** True for a TranscriptState loaded from disk (same version, the lists present). */
export function isTranscriptState(v: unknown): v is TranscriptState {
  return TranscriptStateSchema.safeParse(v).success;
}

/** Add or update a tracked background task or child agent. */
export function trackTask(s: TranscriptState, task: TrackedTask): void {
  const prev = s.tasks.find((t) => t.id === task.id);
  if (prev) {
    prev.status = task.status;
    if (task.kind !== 'unknown') prev.kind = task.kind;
    if (task.atMs !== undefined) prev.atMs = task.atMs;
    if (task.toolUseId !== undefined) prev.toolUseId = task.toolUseId;
    return;
  }
  s.tasks.push(task);
  if (s.tasks.length > TASKS_MAX) s.tasks.splice(0, s.tasks.length - TASKS_MAX);
}

/** Background subagents launched (`async_launched`) whose end no record has reported yet. */
export function runningAgents(s: TranscriptState): string[] {
  return s.tasks.filter((t) => t.kind === 'agent' && t.status === 'running').map((t) => t.id);
}

/** Teammates spawned (`teammate_spawned`) and still at work: neither idle nor shut down, as far as this transcript knows. */
export function runningTeammates(s: TranscriptState): string[] {
  return s.tasks.filter((t) => t.kind === 'teammate' && t.status === 'running').map((t) => t.id);
}

/** A team whose creation a lazy tail did not read: its teammates may have been spawned before the tail. */
export function lacksTeamContext(s: TranscriptState): boolean {
  return s.isLazyTail === true && s.teamName !== undefined && s.isTeamKnown !== true;
}
