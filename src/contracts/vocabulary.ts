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
