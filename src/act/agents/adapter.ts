// The agent-control port (DESIGN §8): every adapter stops an agent and launches its replacement,
// keyed by the executor's idempotency key, and tells from its markers whether a step already ran.
import type { WatchdogConfig } from '../../contracts/config.js';
import type { AdapterName, AdapterOp, RecoveryMode, TransportCause } from '../../contracts/vocabulary.js';
import type { Task } from '../../contracts/state-file.js';
import type { Clock } from '../../deps.js';
import type { StatePaths } from '../../files/paths.js';
import type { ProcessIdentity } from '../../sys/proc-identity.js';
import type { Request } from '../../contracts/request.js';
import type { NudgeRoute } from '../../core/plan-controls.js';

export { readProcessIdentity, type ProcessIdentity } from '../../sys/proc-identity.js';

/** Whether a step's side effect happened: `unknown` means it cannot be told, so the key is an orphan (never re-fired). */
export type MarkerState = 'done' | 'absent' | 'unknown';

/** Why a step did not succeed; nothing branches on `detail` text. */
export type OutcomeCode =
  | 'orphan' // the marker says "cannot tell": refused to fire again
  | 'missing_target' // the task row lacks what this adapter needs (pid, team_name, agent_name, a placeholder value)
  | 'identity_unknown' // the process identity cannot be verified, so nothing was killed
  | 'permission_denied'
  | 'lock_held'
  | 'inbox_invalid'
  | 'not_configured'
  | 'spawn_failed'
  | 'command_failed'
  | 'command_timeout'
  | 'io_error';

/** One shape for success and failure (like execa's result), so callers branch on flags. */
export interface ActionOutcome {
  kind: AdapterOp;
  adapter: AdapterName;
  ok: boolean;
  /** Set when `ok` is false. */
  code?: OutcomeCode;
  /** Trying the same step again later is safe and may succeed. */
  retryable: boolean;
  /** The agent ignored SIGTERM and was SIGKILLed. */
  wasForced: boolean;
  /** The marker said the side effect had already happened (or the target was already gone): nothing was done now. */
  wasAlreadyDone: boolean;
  /** One line for the log and the event's `detail`. */
  detail: string;
  /** The file that marks this step (request, inbox, launch or command marker), when there is one. */
  markerPath?: string;
  /** A request file was written for the orchestrator (state-dir relative): it is pending until answered. */
  requestPath?: string;
  /** That request's answer deadline (ISO). */
  answerBy?: string;
}

/** What a redispatch returns: the new process, when the adapter launched one itself. */
export interface RedispatchOutcome extends ActionOutcome {
  pid?: number;
  /** Identity of the launched process, for tracking it as the task's next attempt. */
  identity?: ProcessIdentity;
}

/** Stop one agent. `key` is the executor's idempotency key `<epic>:<task_id>:<action>`. */
export interface CancelRequest {
  epicId: string;
  key: string;
  task: Task;
  paths: StatePaths;
  /** process adapter: the identity recorded when the task (or the replacement we launched) was first seen. */
  expectedProcess?: ProcessIdentity;
  /** Why, for humans (inbox message, request file). */
  reason?: string;
  /** More fields for a request file (a reconcile's disagreement, a nudge's message). */
  requestFields?: Partial<Request>;
}

/** Launch the replacement of `task` with only the remaining work. */
export interface RedispatchRequest extends Omit<CancelRequest, 'expectedProcess'> {
  attempt: number;
  recoveryTaskId: string;
  /** The stalled agent's working directory, when its transcript gave one: the replacement starts there. */
  cwd?: string;
  /** Absolute path of the recovery checkpoint (already written). */
  checkpointPath: string;
  /** What the launched agent is told: the full recovery prompt (renderRecoveryPrompt), or for a resume the short resume prompt. */
  prompt: string;
  /** fresh (default): a new agent; resume: the stalled agent's own session (`{session_id}`), continued with `prompt`. */
  mode?: RecoveryMode;
  /** resume only: the fresh recovery prompt, for an orchestrator that cannot resume this agent. */
  fallbackPrompt?: string;
  /** resume only: why the context is sound. */
  transportCause?: TransportCause;
}

/** Send one nudge to an agent between turns (core/plan-controls.ts): `message` verbatim, by `route`. */
export interface NudgeRequest extends CancelRequest {
  message: string;
  route: NudgeRoute;
  /** The agent's working directory: a resumed session must run there (Claude Code finds a session by its cwd's project dir). */
  cwd?: string;
}

/** An agent-control adapter. Each operation checks its own marker first, so calling it twice fires once. */
export interface AgentAdapter {
  readonly name: AdapterName;
  cancel(req: CancelRequest): Promise<ActionOutcome>;
  cancelMarker(req: CancelRequest): Promise<MarkerState>;
  redispatch(req: RedispatchRequest): Promise<RedispatchOutcome>;
  redispatchMarker(req: RedispatchRequest): Promise<MarkerState>;
  nudge(req: NudgeRequest): Promise<ActionOutcome>;
  nudgeMarker(req: CancelRequest): Promise<MarkerState>;
}

/** The `agents` section of watchdog.config.yaml. */
export type AgentsConfig = NonNullable<WatchdogConfig['agents']>;

/** Effects an adapter uses. The process and claude-team adapters poll with `clock.sleep`, so give them a real clock. */
export interface AdapterDeps {
  clock: Clock;
  /** Home directory for the default teams dir (`~/.claude/teams`). @defaultValue os.homedir() */
  homeDir?: string;
  /** How long a request file may stay unanswered (written into it as answer_by). */
  requestDeadlineMs?: number;
  /** Claude Code's config dir as configured (`claude.config_dir`, resolved): agents we launch get it (agent-env.ts). */
  claudeConfigDir?: string;
}
