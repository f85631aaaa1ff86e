// Every closed list the watchdog speaks in, owned here once: verdicts, exemptions, actions,
// strategies, adapters. Schemas, the core and the shell derive from these. Pure.
import * as z from 'zod';

/** What assess() can say about a task, in precedence order (first match wins, DESIGN §5). */
export const VERDICT_KINDS = ['terminal', 'blocked', 'inconsistent', 'unknown', 'waiting_human', 'stalled', 'looping', 'healthy'] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];
export const VerdictKindSchema = z.enum(VERDICT_KINDS);

/**
 * Conditions that legitimately widen a task's stall window (docs/verdicts.md). Adding one is a
 * name here plus its rule in core/exemptions.ts (a total record, so the compiler asks for it).
 */
export const EXEMPTION_NAMES = ['bash_long_timeout', 'rate_limit', 'api_resend', 'ci_polling', 'open_tool_call'] as const;
export type ExemptionName = (typeof EXEMPTION_NAMES)[number];
export const ExemptionSchema = z.enum(EXEMPTION_NAMES);

/**
 * The actions the planner can decide on, each journaled ahead with its key and finished by one outcome
 * event (OUTCOME_EVENT_OF): the destructive three, a nudge (one message to an agent between turns) and a
 * reconcile (a question to the row's owner; never destructive).
 */
export const ACTION_KINDS = ['cancel', 'redispatch', 'escalate', 'nudge', 'reconcile'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
export const ActionKindSchema = z.enum(ACTION_KINDS);

/** The steps an agent adapter performs: stop the stalled agent, launch its replacement, nudge an agent between turns. */
export const ADAPTER_OPS = ['cancel', 'redispatch', 'nudge'] as const satisfies readonly ActionKind[];
export type AdapterOp = (typeof ADAPTER_OPS)[number];
export const AdapterOpSchema = z.enum(ADAPTER_OPS);

/**
 * How a redispatch recovers (DESIGN §8 "Resume, nudge, reconcile, attention"): `fresh` launches a
 * new agent with only the remaining work; `resume` continues the stalled agent's own session
 * (`claude --resume <session-id> -p …`), keeping its context. Both count toward the same cap.
 */
export const RECOVERY_MODES = ['fresh', 'resume'] as const;
export type RecoveryMode = (typeof RECOVERY_MODES)[number];
export const RecoveryModeSchema = z.enum(RECOVERY_MODES);

/**
 * Stalls whose cause is the link to the API, not the agent's context (config `recovery.resume_on`):
 * a stream that froze while the model was answering (no open tool call, the turn not over), and
 * give-ups on overload (529), a lost connection, or a rate limit. Context exhaustion, loops and
 * silences mid-tool are never transport.
 */
export const TRANSPORT_CAUSES = ['frozen_stream', 'overloaded', 'connection', 'rate_limit'] as const;
export type TransportCause = (typeof TRANSPORT_CAUSES)[number];
export const TransportCauseSchema = z.enum(TRANSPORT_CAUSES);

/**
 * How a row and its agent's own record disagree (a `reconcile` request says which): the row says in
 * progress but the agent finished its turn (agent_finished) or its lead got its result
 * (result_delivered); the transcript found belongs to another agent (foreign_transcript); the row
 * says terminal while the agent is still at work (agent_running: its process alive, or its records
 * going on after the row turned terminal).
 */
export const DISAGREEMENT_KINDS = ['agent_finished', 'result_delivered', 'foreign_transcript', 'agent_running'] as const;
export type DisagreementKind = (typeof DISAGREEMENT_KINDS)[number];
export const DisagreementKindSchema = z.enum(DISAGREEMENT_KINDS);

/**
 * Why `next` says a person is needed (reason `attention`): a human wait over its limit, an action
 * a crash left undecidable (orphan), an agent nobody can observe, an agent past its window waiting
 * on a subagent nothing can be seen of (unobservable_child), a stall in report mode, a row whose status it does not know.
 */
export const ATTENTION_KINDS = ['human_wait', 'orphan', 'unobservable', 'unobservable_child', 'stall_reported', 'unknown_status'] as const;
export type AttentionKind = (typeof ATTENTION_KINDS)[number];
export const AttentionKindSchema = z.enum(ATTENTION_KINDS);

/** What to do about a stalled task (`--action`, config `action`). */
export const STRATEGIES = ['report', 'cancel', 'redispatch'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** The agent-control adapters (config `agents.adapter`). */
export const ADAPTERS = ['mailbox', 'claude-team', 'process', 'command'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

/**
 * What each adapter can do, so the core chooses by capability, never by name: `isRequestOnly` —
 * it asks the orchestrator (a request file) instead of acting itself; `hasInbox` — it can put a
 * message in a teammate's inbox (a nudge's `inbox` route); `launchesItself` — it runs commands
 * itself (a resume needs `agents.resume_argv`).
 */
export const ADAPTER_TRAITS: { readonly [A in AdapterName]: { isRequestOnly: boolean; hasInbox: boolean; launchesItself: boolean } } = {
  mailbox: { isRequestOnly: true, hasInbox: true, launchesItself: false },
  'claude-team': { isRequestOnly: true, hasInbox: true, launchesItself: false },
  process: { isRequestOnly: false, hasInbox: false, launchesItself: true },
  command: { isRequestOnly: false, hasInbox: false, launchesItself: true },
};

/** What an escalation did to the ticket in the tracker (Linear). */
export const TRACKER_OUTCOMES = ['updated', 'already_blocked', 'skipped', 'failed'] as const;
export type TrackerOutcomeKind = (typeof TRACKER_OUTCOMES)[number];
export const TrackerOutcomeSchema = z.enum(TRACKER_OUTCOMES);

/**
 * What a webhook notification is sent about (config `notifications.on`, docs/fleet.md
 * "Notifications"), each from one dispatch-log event: an escalation to Blocked, a request left
 * unanswered past its deadline, orphaned actions a start-up could not decide, a mass stall (once per
 * episode), a person needed longer than `attention.human_wait_seconds`.
 */
export const NOTIFY_TRIGGERS = ['escalation', 'unanswered_request', 'orphan', 'mass_stall', 'human_wait'] as const;
export type NotifyTrigger = (typeof NOTIFY_TRIGGERS)[number];
export const NotifyTriggerSchema = z.enum(NOTIFY_TRIGGERS);

/** A notification's body: Slack's incoming-webhook JSON (`{"text": …}`) or a plain JSON document for anything else. */
export const NOTIFY_FORMATS = ['slack', 'json'] as const;
export type NotifyFormat = (typeof NOTIFY_FORMATS)[number];

/**
 * What `dispatch-watchdog timeline` draws on a lane besides activity, in drawing precedence (when
 * two fall in one cell the earlier wins): each comes from one dispatch-log event (core/timeline.ts).
 */
export const TIMELINE_MARK_KINDS = [
  'escalated',
  'stall',
  'unanswered',
  'redispatch',
  'cancel',
  'waiting_human',
  'looping',
  'inconsistent',
  'unknown',
  'answered',
] as const;
export type TimelineMarkKind = (typeof TIMELINE_MARK_KINDS)[number];

/**
 * Why a task is acted on as stalled: the `stall_reason` of `stall_detected` and `action_started`,
 * watchdog.json, the recovery checkpoint, replay (docs/verdicts.md). `inactivity`: silent past its
 * window; `never_started`; `open_tool_overrun`: an open call past its own timeout;
 * `request_unanswered`: a replacement asked for and never started; `api_gave_up` /
 * `context_exhausted`: its turn ended on an API error Claude Code gave up on ("Prompt is too long"
 * for the second); `looping`: the same call or error over and over, acted on with `looping.act`;
 * `runtime_killed`: the agent runtime's own stall watchdog killed it (Claude Code 2.1.332's
 * `[Request interrupted by user]` marked `rowSource: "harness"`), a failure acted on at once; `agent_died`: its process is gone with its turn open and no end record
 * (Codex: no live holder of the thread's writer lock), acted on at once;
 * `run_ended`: the run that ran the agent ended (Claude Code's `SessionEnd` hook) before the agent
 * finished: its rows are dead at once, not a window later; `queue_unconsumed`: idle past its
 * window with nothing open while input queued for it (a `queue-operation` enqueue) was never
 * consumed: a wake that never landed; `wake_lost`: a lead whose background subagents all answered in
 * their own transcripts, idle past its window with no completion notification for them: a
 * completion wake lost; `usage_limit`: the agent's turn ended on its plan's usage limit or its credits (Codex
 * `usage_limit_exceeded`; Claude Code's give-up naming it, or the retries before it): a failure at once,
 * escalated to a person, never redispatched into the same wall; `auth_failed`: the API refused the
 * agent's credentials (Claude Code's `authentication_failed` give-up, HTTP 401/403): the same, until
 * a person fixes the API key or logs in again.
 */
export const STALL_REASONS = [
  'inactivity',
  'never_started',
  'open_tool_overrun',
  'request_unanswered',
  'api_gave_up',
  'context_exhausted',
  'looping',
  'runtime_killed',
  'agent_died',
  'run_ended',
  'queue_unconsumed',
  'wake_lost',
  'usage_limit',
  'auth_failed',
] as const;
export type StallReason = (typeof STALL_REASONS)[number];
/** The failures a replacement would meet too (the plan's usage limit, refused credentials): escalated at once. */
export const WALL_REASONS: ReadonlySet<StallReason> = new Set<StallReason>(['usage_limit', 'auth_failed']);
/** A stall reason as this version writes it. */
export const StallReasonSchema = z.enum(STALL_REASONS);

/**
 * Names earlier versions wrote, read as today's (history, friction, recovery of old files).
 * `api_error` read like Claude Code's own `system/api_error` record, which means "still retrying".
 */
export const LEGACY_STALL_REASONS: Readonly<Record<string, StallReason>> = { api_error: 'api_gave_up' };

/** A stall reason as read from a file: today's name, or an earlier version's (LEGACY_STALL_REASONS) as today's. */
export const StallReasonAsRead = z.preprocess(
  (v) => (typeof v === 'string' && Object.hasOwn(LEGACY_STALL_REASONS, v) ? LEGACY_STALL_REASONS[v] : v),
  StallReasonSchema,
);

/**
 * The OpenTelemetry events the receiver keeps, in one vocabulary for every agent CLI (each CLI's
 * own names map to these in contracts/telemetry-dialects.ts); any other record is counted as traffic
 * from its host and dropped. The first six are Claude Code's own (`claude_code.<name>`,
 * ../shared/reference/claude-code-2.1.197.md "OpenTelemetry export"); `model_stream`: the model's
 * response is arriving (an HTTP attempt that went through, an SSE event); `activity`: any other
 * sign of the agent at work (progress only).
 */
export const TELEMETRY_EVENTS = [
  'user_prompt',
  'tool_decision',
  'tool_result',
  'api_request',
  'api_error',
  'assistant_response',
  'model_stream',
  'activity',
] as const;
export type TelemetryEventName = (typeof TELEMETRY_EVENTS)[number];
export const TelemetryEventSchema = z.enum(TELEMETRY_EVENTS);

/**
 * The agent CLIs a row may name (`agent:` in the state file, docs/state-files.md); each is one
 * harness under src/agents/<name>/ (docs/architecture.md "How to add an agent CLI"). A row without
 * one is Claude Code's.
 */
export const AGENT_CLIS = ['claude-code', 'codex'] as const;
export type AgentCli = (typeof AGENT_CLIS)[number];
export const AgentCliSchema = z.enum(AGENT_CLIS);
/** The CLI of a row that names none. */
export const DEFAULT_AGENT_CLI: AgentCli = 'claude-code';
