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
export const EXEMPTION_NAMES = ['bash_long_timeout', 'rate_limit', 'ci_polling', 'open_tool_call'] as const;
export type ExemptionName = (typeof EXEMPTION_NAMES)[number];
export const ExemptionSchema = z.enum(EXEMPTION_NAMES);

/** The destructive actions the planner can decide on; each has one outcome event (OUTCOME_EVENT_OF). */
export const ACTION_KINDS = ['cancel', 'redispatch', 'escalate'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
export const ActionKindSchema = z.enum(ACTION_KINDS);

/** The two steps an agent adapter performs: stop the stalled agent, launch its replacement. */
export const ADAPTER_OPS = ['cancel', 'redispatch'] as const satisfies readonly ActionKind[];
export type AdapterOp = (typeof ADAPTER_OPS)[number];
export const AdapterOpSchema = z.enum(ADAPTER_OPS);

/** What to do about a stalled task (`--action`, config `action`). */
export const STRATEGIES = ['report', 'cancel', 'redispatch'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** The agent-control adapters (config `agents.adapter`). */
export const ADAPTERS = ['mailbox', 'claude-team', 'process', 'command'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

/** What an escalation did to the ticket in the tracker (Linear). */
export const TRACKER_OUTCOMES = ['updated', 'already_blocked', 'skipped', 'failed'] as const;
export type TrackerOutcomeKind = (typeof TRACKER_OUTCOMES)[number];
export const TrackerOutcomeSchema = z.enum(TRACKER_OUTCOMES);

/**
 * What `dispatch-watchdog timeline` draws on a lane besides activity, in drawing precedence (when
 * two fall in one cell the earlier wins): each comes from one dispatch-log event (core/timeline.ts).
 */
export const TIMELINE_MARK_KINDS = ['escalated', 'stall', 'unanswered', 'redispatch', 'cancel', 'waiting_human', 'looping', 'inconsistent', 'unknown', 'answered'] as const;
export type TimelineMarkKind = (typeof TIMELINE_MARK_KINDS)[number];

/**
 * Why a task is acted on as stalled: the `stall_reason` of `stall_detected` and `action_started`,
 * watchdog.json, the recovery checkpoint, replay (docs/verdicts.md). `inactivity`: silent past its
 * window; `never_started`; `open_tool_overrun`: an open call past its own timeout;
 * `request_unanswered`: a replacement asked for and never started; `api_gave_up` /
 * `context_exhausted`: its turn ended on an API error Claude Code gave up on ("Prompt is too long"
 * for the second); `looping`: the same call or error over and over, acted on with `looping.act`.
 */
export const STALL_REASONS = ['inactivity', 'never_started', 'open_tool_overrun', 'request_unanswered', 'api_gave_up', 'context_exhausted', 'looping'] as const;
export type StallReason = (typeof STALL_REASONS)[number];
/** A stall reason as this version writes it. */
export const StallReasonSchema = z.enum(STALL_REASONS);

/**
 * Names earlier versions wrote, read as today's (history, friction, recovery of old files).
 * `api_error` read like Claude Code's own `system/api_error` record, which means "still retrying".
 */
export const LEGACY_STALL_REASONS: Readonly<Record<string, StallReason>> = { api_error: 'api_gave_up' };

/** A stall reason as read from a file: today's name, or an earlier version's (LEGACY_STALL_REASONS) as today's. */
export const StallReasonAsRead = z.preprocess((v) => (typeof v === 'string' && Object.hasOwn(LEGACY_STALL_REASONS, v) ? LEGACY_STALL_REASONS[v] : v), StallReasonSchema);
