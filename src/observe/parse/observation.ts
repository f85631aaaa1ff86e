// What the watchdog knows about one agent, merged from every source (DESIGN §4). Pure types + merge.

/** Why an agent gave up: `context_exhausted` is "Prompt is too long" (narrow the scope harder). */
/** `runtime_killed`: not the API: Claude Code's own stall watchdog aborted the agent (2.1.332). */
/** `agent_died`: its process is gone with no end record (a harness that can prove it: Codex's thread lock). */
/** `usage_limit`: the plan's usage limit (Codex `usage_limit_exceeded`, Claude Code's `usage_limit_reached` give-up or `error.rateLimits` retries): a replacement would hit the same wall. */
/** `auth_failed`: the API refused the agent's credentials (HTTP 401/403: its API key or login): a replacement would be refused the same way. */
export type ApiFailureKind =
  | 'context_exhausted'
  | 'overloaded'
  | 'connection'
  | 'rate_limit'
  | 'api_error'
  | 'runtime_killed'
  | 'agent_died'
  | 'usage_limit'
  | 'auth_failed';

/** Where a piece of evidence came from. */
export type SourceName = 'row' | 'hooks' | 'transcript' | 'process' | 'telemetry';

/**
 * What a tool call does, whichever agent CLI made it (its harness classifies it, agents/harness.ts
 * `classifyTool`): run a command, launch a subagent, touch files, fetch from the web, call an MCP
 * server, or anything else. The core reads kinds, never a vendor's tool names.
 */
export const TOOL_KINDS = ['shell', 'subagent', 'file', 'web', 'mcp', 'other'] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/** A harness's word on one call: its kind, the timeout the CLI applies when the call names none, whether it only polls. */
export interface ToolClass {
  kind: ToolKind;
  /** The CLI's own limit on this call when its input names none (Claude Code's Bash: 120 s), in ms. */
  defaultTimeoutMs?: number;
  /** Only asks how background work is going (a task list, a background shell's output): repeating it is waiting, not a loop. */
  isStatusPoll?: boolean;
}

/** Classifies one call by its name and input facts. Pure, total: an unknown name is `other`. */
export type ToolClassifier = (call: Pick<ToolCall, 'name' | 'command'>) => ToolClass;

/** The words a verdict reason takes from the row's harness (agents/harness.ts HarnessWording). */
export interface AgentWords {
  /** The CLI's name in prose: `Claude Code`. */
  displayName: string;
  /** How to see a prompt the watchdog cannot (an open call past its timeout, the process alive). */
  hiddenPromptHint: string;
}

/** What the row's harness lends the merge: how its calls are classified, and its words. */
export interface EvidenceLens {
  classifyTool: ToolClassifier;
  wording?: AgentWords;
}

/** A tool call as seen in a transcript or hook events. */
export interface ToolCall {
  name: string;
  /** What the call does, as the row's harness classifies it (mergeObservations sets it); absent: not classified (read as `other`). */
  kind?: ToolKind;
  /** The CLI's own limit on this call when its input names none (ToolClass.defaultTimeoutMs), in ms. */
  defaultTimeoutMs?: number;
  /** Only polls background work (ToolClass.isStatusPoll). */
  isStatusPoll?: boolean;
  /** Stable summary of the input: used for display and loop detection. */
  inputSummary?: string;
  /** The shell command, when the call runs one. */
  command?: string;
  /** The call's own timeout (ms), when its input names one. */
  timeoutMs?: number;
  startedAtMs?: number;
  /** No result yet. */
  isOpen: boolean;
  toolUseId?: string;
  /** The result was an error; its text, shortened. */
  error?: string;
  /** Runs in the background (a shell or subagent sent there); its silence is not ours to judge. */
  isBackground?: boolean;
  /** A subagent call: the subagent its progress lines name. */
  childAgentId?: string;
  /** Its subagent's activity was seen through the parent's progress lines, though none named the subagent. */
  isChildSeen?: boolean;
  /** A subagent call: the subagent's own newest call, as its progress lines mirror it. */
  childCall?: ToolCall;
  /** A call that stops a background shell or task: which one. */
  killsTaskId?: string;
  /** The source can tell whether the call returned (transcript, hooks); a row cannot. */
  isOpenKnown?: boolean;
}

/**
 * `call` as a source that knows whether it returned tells it: one literal with every field, never
 * a spread (Node 20's V8 gives most spread copies a hidden class of their own: one per agent, and
 * every read of a last tool megamorphic).
 */
export function knownCall(c: ToolCall): ToolCall {
  return copyCall(c, true);
}

/** A copy of `call` (with `isOpenKnown` as given): one literal with every field, as knownCall says why. */
export function copyCall(c: ToolCall, isOpenKnown = c.isOpenKnown): ToolCall {
  return {
    name: c.name,
    kind: c.kind,
    defaultTimeoutMs: c.defaultTimeoutMs,
    isStatusPoll: c.isStatusPoll,
    inputSummary: c.inputSummary,
    command: c.command,
    timeoutMs: c.timeoutMs,
    startedAtMs: c.startedAtMs,
    isOpen: c.isOpen,
    toolUseId: c.toolUseId,
    error: c.error,
    isBackground: c.isBackground,
    childAgentId: c.childAgentId,
    isChildSeen: c.isChildSeen,
    childCall: c.childCall,
    killsTaskId: c.killsTaskId,
    isOpenKnown,
  };
}

export interface Observation {
  /** Sources that contributed at least one fact. */
  sources: SourceName[];
  /** Newest progress of any kind: tool call or result, output growth, hook event, API retry. */
  lastProgressMs?: number;
  /** The newest tool call. */
  lastTool?: ToolCall;
  /** The last text the agent wrote (assistant text or the row's last_output). */
  lastOutput?: string;
  /** When the agent's output (transcript size or last_output) last grew. */
  outputGrewAtMs?: number;
  /** The agent is backing off after API errors (transcript `system/api_error`, stream-json `system/api_retry` records). */
  isApiRetrying?: boolean;
  /** How long the current backoff waits, when the retry record says (`retryInMs`, stream-json `retry_delay_ms`). */
  apiRetryDelayMs?: number;
  /**
   * Model requests sent again with no response between them and no retry record (a Claude Code
   * subagent's 429 backoff leaves nothing else): since the last, and the gap before it.
   */
  apiResend?: { sinceMs: number; gapMs: number; count: number };
  /** A permission prompt, AskUserQuestion or plan approval is open, or the human interrupted the agent. */
  waitingHuman?: { kind: 'permission_prompt' | 'ask_user_question' | 'plan_approval' | 'notification' | 'interrupted'; sinceMs?: number; detail?: string };
  /** The agent's turn ended on an API error it gave up on (DESIGN §5 `failed`). */
  failed?: { kind: ApiFailureKind; atMs?: number; detail?: string };
  /**
   * The agent waits on these subagents (an open foreground `Task`/`Agent` call, or a turn that
   * ended while background subagents run): their progress is the agent's. `unseenIds`: waited on,
   * but no transcript of theirs was found.
   */
  waitingOnChildren?: {
    agentIds: string[];
    lastProgressMs?: number;
    isBackground?: boolean;
    unseenIds?: string[];
    /** When the wait on an unseen foreground child began (its call's start): its hook activity is looked for since then. */
    sinceMs?: number;
    /** Background children whose own transcript ends with their final answer (their completion is due), and the newest answer's time. */
    finishedIds?: string[];
    finishedAtMs?: number;
  };
  /**
   * A team lead whose turn ended while these teammates (`<name>@<team>`) still work: they message
   * it when they are done. Their transcripts are not read, so their silence is not judged.
   */
  waitingOnTeam?: { members: string[] };
  /** The agent's output is read from its transcript: model prose is not read for backoff (API retries are records). */
  isOutputTracked?: boolean;
  /**
   * The agent cannot wait on a person (false: Codex exec, whose approval policy is `never`): an
   * open call past its own budget is then an overrun, never taken for a permission prompt.
   */
  canWaitOnHuman?: boolean;
  /** Input queued for the agent and never consumed (a `queue-operation` enqueue with no dequeue): a wake that may not have landed. */
  queuedUnconsumed?: { sinceMs?: number; detail: string };
  /**
   * The run that ran this agent ended (Claude Code's `SessionEnd` hook in the session's activity,
   * or its process gone though no hook said so): nothing in it works any more, whatever its last
   * records say.
   */
  runEnded?: {
    atMs?: number;
    detail: string;
    /**
     * Concluded from the row's own pid alone (no session registry, no hook): a wrapper that exits
     * while its agent works on looks the same, so progress stamped after `atMs` refutes it.
     */
    isRowPidOnly?: boolean;
  };
  /** The agent CLI's version, as its own records say (Claude Code's transcript `version`, else its session file). */
  agentVersion?: string;
  /** The task row's `pid` is alive (true), gone (false), or not known (absent). */
  isProcessAlive?: boolean;
  /** Live child processes of the agent's process (a tool's command running), when its process is sampled. */
  liveChildren?: number;
  /** The agent has finished (final result, SubagentStop, task-notification completed). */
  finished?: {
    kind: string;
    atMs?: number;
    /**
     * Inferred from a final answer with no turn-end record (1.0.x, `-p`): it counts only once the
     * agent has been silent for its whole window (text followed by a slow call looks the same).
     */
    isInferred?: boolean;
  };
  /** The agent's working directory (its transcript's first `cwd`, the session's own start): where a replacement must work. */
  cwd?: string;
  /** The transcript file this observation read (a recovery reads the agent's first prompt from it). */
  transcriptFile?: string;
  /**
   * The agent is seen through OpenTelemetry (docs/fleet.md): its host, when the receiver got the
   * session's newest event, and when it last heard anything at all from that host (undefined:
   * never). A silence is a stall only when the host is heard from after it (the partition rule).
   */
  telemetry?: { host: string; sessionReceivedMs: number; hostHeardMs?: number };
  /** Recent tool calls, oldest first, for loop detection. */
  recentCalls: ToolCall[];
  /** The words of the row's harness, for reasons (absent: no harness reads the row). */
  agentWords?: AgentWords;
  /** Evidence that contradicts itself (e.g. a transcript of another agent). */
  contradictions: string[];
  /** Sources that should exist but could not be read, with why (never silently healthy). */
  missing: { source: SourceName; reason: string }[];
}

/** What one source knows; merged by `mergeObservations`. */
export type PartialObservation = Partial<Omit<Observation, 'sources'>> & {
  source: SourceName;
  /**
   * Built from files read before their last change (an observer may defer a read while the agent
   * is judged healthy: config `healthy_read_seconds`): the check concludes nothing but healthy
   * from it, and observes again with no deferral otherwise.
   */
  isDeferred?: true;
};
