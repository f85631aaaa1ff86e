// Dispatch-log events of recovery actions: started, each step (kill, redispatch, escalate), failed,
// the start-up summary, rows lost. Pure. Split out of contracts/events.ts (the union).
import * as z from 'zod';
import { SafeId } from './ids.js';
import { IsoTimestamp } from './time.js';
import {
  AgentCliSchema,
  DisagreementKindSchema,
  RecoveryModeSchema,
  TransportCauseSchema,
  TrackerOutcomeSchema,
  ActionKindSchema as ActionKind,
  StallReasonAsRead,
} from './vocabulary.js';
import { TaskFields, ev } from './events-base.js';

export const ActionStarted = ev(
  'action_started',
  {
    ...TaskFields,
    key: z.string().describe('Idempotency key <epic>:<task_id>:<action>.'),
    action: ActionKind,
    adapter: z.string().optional(),
    redispatch_attempt: z.number().int().optional(),
    recovery_task_id: SafeId.optional(),
    pid: z.number().int().optional().describe('The agent process to stop, when known.'),
    start_ticks: z.number().int().optional().describe('Its start time (/proc/<pid>/stat field 22), so a reused pid is never killed.'),
    boot_id: z.string().optional(),
    // A reason this version does not know (a newer one's) reads as none: the write-ahead record must never be lost.
    stall_reason: StallReasonAsRead.optional().catch(undefined),
    idle_seconds: z.number().optional(),
    session_id: z.string().optional().describe("The stalled agent's session, so a row reused for the replacement is recognised."),
    row_task_id: SafeId.optional().describe('The state-file row carrying task_id, when a reused row carries a replacement.'),
    mode: RecoveryModeSchema.optional().describe(
      "redispatch only: fresh (a new agent with the remaining work; the default when absent) or resume (the agent's own session, continued).",
    ),
    transport_cause: TransportCauseSchema.optional().describe("The stall's cause was the link to the API (why a resume was chosen)."),
    route: z.enum(['inbox', 'resume']).optional().describe('nudge only: where the nudge lands.'),
    disagreement: DisagreementKindSchema.optional().describe('reconcile only: how the row and the agent disagree.'),
    detail: z.string().optional().describe('reconcile only: what disagrees, in words.'),
    cwd: z
      .string()
      .optional()
      .describe(
        "redispatch: the agent's working directory (its transcript's first cwd, where the session started), so a replacement launched after a restart still starts there.",
      ),
  },
  'Write-ahead record of a destructive action (docs/recovery.md).',
);

export const AgentKilled = ev(
  'agent_killed',
  {
    ...TaskFields,
    key: z.string(),
    adapter: z.string().optional(),
    was_forced: z.boolean().optional(),
    detail: z.string().optional(),
    step: z.enum(['cancel', 'stop_before_redispatch', 'stop_before_escalation']).optional(),
    request_path: z
      .string()
      .optional()
      .describe('State-dir relative path of the request file written for the orchestrator (mailbox): the request is pending until answered.'),
    answer_by: IsoTimestamp.optional().describe("The request's deadline."),
  },
  'The stalled agent was stopped (or a stop was requested).',
);

export const Redispatch = ev(
  'redispatch',
  {
    ...TaskFields,
    key: z.string(),
    redispatch_attempt: z.number().int(),
    max_redispatches: z.number().int().optional(),
    recovery_task_id: SafeId,
    checkpoint_path: z.string().optional(),
    remaining_tasks: z.array(z.string()).optional(),
    adapter: z.string().optional(),
    pid: z.number().int().optional(),
    start_ticks: z.number().int().optional(),
    boot_id: z.string().optional(),
    output_path: z.string().optional().describe('Where a launched agent writes its output (process adapter).'),
    agent: AgentCliSchema.optional().describe('The agent CLI of the stalled row, and so of its replacement (absent: claude-code).'),
    mode: RecoveryModeSchema.optional().describe(
      "fresh (absent: fresh) or resume: the stalled agent's own session was resumed (or a resume was requested), keeping its context.",
    ),
    detail: z.string().optional(),
    request_path: z
      .string()
      .optional()
      .describe('State-dir relative path of the request file written for the orchestrator (mailbox): the request is pending until answered.'),
    answer_by: IsoTimestamp.optional().describe("The request's deadline."),
  },
  'A fresh agent was launched (or requested) with only the remaining work.',
);

export const EscalatedToBlocked = ev(
  'escalated_to_blocked',
  {
    ...TaskFields,
    key: z.string().optional(),
    attempt_count: z.number().int(),
    friction_path: z.string(),
    tracker: TrackerOutcomeSchema.optional(),
    tracker_detail: z.string().optional(),
    tracker_retryable: z
      .boolean()
      .optional()
      .describe('tracker failed, and a later retry may succeed: the running watchdog retries every 5 minutes, a start-up always.'),
    is_retry: z.boolean().optional().describe('A later line for the same key: the tracker step, retried after it had failed.'),
  },
  'The ticket hit the redispatch cap and was moved to Blocked.',
);

export const ActionFailed = ev(
  'action_failed',
  {
    ...TaskFields,
    key: z.string(),
    action: ActionKind,
    error: z.string(),
    retryable: z.boolean(),
  },
  'A destructive action failed; that task instance is not acted on again automatically.',
);

export const RecoverySummary = ev(
  'recovery_summary',
  {
    done: z.array(z.string()),
    finished: z.array(z.string()),
    orphans: z.array(z.string()).describe('Orphaned keys as listed for people: all of them, or the first 20 when there are more than 30.'),
    more_orphans: z.array(z.string()).optional().describe('The orphaned keys not listed, so none is reported again at the next start-up.'),
    orphan_count: z.number().int(),
    friction_path: z.string().optional(),
  },
  'Start-up classification of every action started but not finished.',
);

export const StateRowsLost = ev(
  'state_rows_lost',
  {
    vanished: z.array(z.string()).describe('In-flight task ids an earlier read listed and this one does not.'),
    fields_lost: z.array(z.object({ task_id: z.string(), fields: z.array(z.string()) })).describe('In-flight rows whose fields went missing.'),
    is_confirmed: z
      .boolean()
      .describe(
        'true: a read taken after the file stopped changing agrees (the orchestrator changed the rows); false: one read was torn mid-write and was not acted on.',
      ),
  },
  'Rows of the state file vanished or lost fields between reads; never taken as done or as never started.',
);
