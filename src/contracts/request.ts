// Request files (DESIGN §8 "Requests and the orchestrator"): what the watchdog asks an orchestrator to
// do, in epics/<epic>/requests/<key-as-file-name>.<cancel|redispatch>.json, and the escalation notice
// next to them. A request is pending until answered, done when answered, unanswered after answer_by;
// the dispatch log (request_answered / request_unanswered) is the source of truth, so an orchestrator
// may delete a request file once it acted on it. Pure.
import * as z from 'zod';
import { SafeId } from './ids.js';
import { IsoTimestamp } from './time.js';
import { TrackerOutcomeSchema } from './vocabulary.js';

/**
 * What a request asks: stop an agent (cancel), launch a fresh replacement (redispatch), resume the
 * agent's own session (resume: a redispatch that keeps the context; `prompt` is the fresh fallback),
 * send one message to an agent between turns (nudge), or settle a row its agent disagrees with
 * (reconcile: for the row's owner; never destructive).
 */
export const REQUEST_KINDS = ['cancel', 'redispatch', 'resume', 'nudge', 'reconcile'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export const RequestKindSchema = z.enum(REQUEST_KINDS);

/** How a request was answered (the `how` of request_answered); `resolved`: the truth changed (a nudged agent made progress, a row and its agent agree again). */
export const ANSWER_HOWS = ['row', 'row_reused', 'ack', 'terminal', 'resolved'] as const;
export type AnswerHow = (typeof ANSWER_HOWS)[number];

/** Lifecycle of a request, as `status` and `next` show it. */
export const REQUEST_STATUSES = ['pending', 'done', 'unanswered'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/** The statuses of a request still waiting on the orchestrator (listed in watchdog.json). */
export const OPEN_REQUEST_STATUSES = ['pending', 'unanswered'] as const satisfies readonly RequestStatus[];
export type OpenRequestStatus = (typeof OPEN_REQUEST_STATUSES)[number];

/** True when `status` is still waiting on the orchestrator. */
export function isOpenRequestStatus(status: RequestStatus): status is OpenRequestStatus {
  return status !== 'done';
}

export const RequestSchema = z
  .looseObject({
    schema_version: z.literal('1'),
    kind: RequestKindSchema.describe(
      "cancel: stop the agent; redispatch: launch the replacement described below; resume: resume the agent's own session with resume_prompt (no session to resume, e.g. a background subagent: launch a fresh agent with prompt instead).",
    ),
    key: z.string().describe('The idempotency key <epic>:<task_id>:<action>: act on each key once.'),
    epic_id: SafeId,
    task_id: SafeId.describe('The task instance to stop (cancel) or the one being replaced (redispatch).'),
    row_task_id: SafeId.optional().describe(
      'The row in the state file that carries task_id, when the orchestrator reused a row for a replacement (then it differs from task_id).',
    ),
    stop_task_id: SafeId.optional().describe(
      "Set when task_id is a replacement asked for and never started (its request went unanswered): it has no agent; the agent to stop, if it still runs, is this task's (the last one started).",
    ),
    stop_row_task_id: SafeId.optional().describe('With stop_task_id: the row that carries it.'),
    ticket_id: SafeId,
    agent_id: SafeId.optional(),
    agent_name: z.string().optional(),
    team_name: z.string().optional(),
    session_id: SafeId.optional(),
    pid: z
      .number()
      .int()
      .optional()
      .describe(
        "The agent's process, only when it is provably the stalled agent (alive, not pid 1, not the watchdog or its ancestors, the process recorded for it or started with its dispatch); otherwise absent and pid_withheld says why.",
      ),
    agent: z
      .string()
      .optional()
      .describe(
        "The row's agent CLI when it is not Claude Code: codex (stop: SIGINT to the native codex pid, then its command groups; resume_command is codex exec resume, run in the agent's own cwd; docs/codex.md).",
      ),
    pid_withheld: z
      .string()
      .optional()
      .describe(
        "Why the row's pid is not given: it is not provably the agent (pid 1, the watchdog or the lead that runs it, a process started after the dispatch, one that has exited). Do not kill it; stop the agent another way.",
      ),
    reason: z.string().optional().describe('Why, for humans.'),
    created_at: IsoTimestamp,
    answer_by: IsoTimestamp.optional().describe(
      'Deadline: created_at + requests.deadline_seconds (default 2 × the base window). Unanswered after it, the request is logged as request_unanswered and a redispatch counts as a failed attempt.',
    ),
    how_to_answer: z.string().optional().describe('One line: the ways this request can be answered (docs/orchestrator.md).'),
    redispatch_attempt: z.number().int().min(1).optional().describe('redispatch only: the attempt (1 = first replacement).'),
    recovery_task_id: SafeId.optional().describe('redispatch only: the task id of the replacement.'),
    checkpoint_path: z.string().optional().describe('redispatch only: absolute path of the recovery checkpoint.'),
    prompt: z
      .string()
      .optional()
      .describe('redispatch and resume: the full prompt of a fresh replacement (for resume, the fallback when the session cannot be resumed).'),
    resume_prompt: z
      .string()
      .optional()
      .describe('resume only: the prompt to continue the session with, e.g. claude --resume <session_id> -p "<resume_prompt>".'),
    transport_cause: z.string().optional().describe('resume only: why the context is sound (frozen_stream, overloaded, connection, rate_limit).'),
    resume_command: z
      .string()
      .optional()
      .describe(
        "resume, and nudge by route resume: the command to run, every value single-quoted for a POSIX shell (safe to paste as is), e.g. claude --resume '<session_id>' -p '<resume_prompt>'.",
      ),
    route: z
      .enum(['inbox', 'resume'])
      .optional()
      .describe('nudge only: inbox — SendMessage(to=agent_name, message=<message>) to the teammate; resume — claude --resume <session_id> -p "<message>".'),
    message: z.string().optional().describe('nudge only: the text to send, verbatim.'),
    disagreement: z
      .string()
      .optional()
      .describe('reconcile only: agent_finished, result_delivered, foreign_transcript or agent_running (the row says terminal, its agent still works).'),
    what_disagrees: z.string().optional().describe("reconcile only: the row says one thing, the agent's own record another, in words."),
    row_status: z.string().optional().describe("reconcile only: the row's status when asked; changing it (or its agent fields) answers the request."),
  })
  .meta({
    title: 'Request',
    description: 'epics/<epic_id>/requests/<key>.<kind>.json: a cancel or redispatch for the orchestrator to carry out (mailbox adapter).',
  });
/** One request file, as the orchestrator reads it. */
export type Request = z.output<typeof RequestSchema>;
export const EscalationNoticeSchema = z
  .looseObject({
    schema_version: z.literal('1'),
    kind: z.literal('escalation'),
    key: z.string(),
    epic_id: SafeId,
    task_id: SafeId,
    ticket_id: SafeId,
    attempt_count: z.number().int().describe('Stalled attempts of the ticket, the last one included.'),
    friction_path: z.string().describe('State-dir relative path of the friction note.'),
    tracker: TrackerOutcomeSchema.describe('What happened to the ticket in Linear.'),
    created_at: IsoTimestamp,
    needs_answer: z.literal(false),
    message: z.string(),
  })
  .meta({
    title: 'EscalationNotice',
    description: 'epics/<epic_id>/requests/<key>.escalation.json: a ticket was escalated to Blocked; informational, needs no answer.',
  });
export type EscalationNotice = z.output<typeof EscalationNoticeSchema>;

/** The one-line answer instructions written into every request. */
export function howToAnswer(
  kind: RequestKind,
  r: {
    key: string;
    task_id: string;
    row_task_id?: string;
    stop_row_task_id?: string;
    recovery_task_id?: string;
    redispatch_attempt?: number;
    disagreement?: string;
  },
  /** How to stop this row's agent when "stop the agent" is not enough (the row's harness says: `wording.stopHint`). */
  stopHint?: string,
): string {
  const row = r.row_task_id ?? r.task_id;
  const stopHow = stopHint ? ` (${stopHint})` : '';
  const base = r.key.replaceAll(':', '__');
  // The stop step of a redispatch or an escalation is not a request of its own: a terminal row does
  // not answer a redispatch, and `ack` refuses an escalation key. Point at the file that counts.
  if (kind === 'cancel' && r.key.endsWith(':redispatch')) {
    return `The stop step of redispatch request ${r.key}: act on ${base}.redispatch.json instead (stopping the agent of row ${row} is part of it); setting row ${row} to a terminal status alone does not answer it.`;
  }
  if (kind === 'cancel' && r.key.endsWith(':escalate')) {
    return `Ticket escalated to Blocked (${base}.escalation.json): stop the agent of row ${row} if it still runs (and any other agent of the ticket) and set the ticket's in-flight rows to blocked; nothing to answer, do not relaunch.`;
  }
  if (kind === 'cancel') {
    return `Stop the agent${stopHow}, then set row ${row}'s status to a terminal one (e.g. cancelled), or run \`dispatch-watchdog ack ${r.key}\`.`;
  }
  if (kind === 'nudge') {
    return `Send the message (route inbox: SendMessage to the teammate; route resume: run \`resume_command\`, every value in it quoted) once, then run \`dispatch-watchdog ack ${r.key}\`; the agent's progress also answers it. Never stop the agent for it.`;
  }
  if (kind === 'reconcile' && r.disagreement === 'agent_running') {
    return `Row ${row} says its work is over but its agent is still at work: if the work goes on, set row ${row} back to in_progress; if the row is right, stop the agent yourself (the watchdog never does) or run \`dispatch-watchdog ack ${r.key}\`.`;
  }
  if (kind === 'reconcile') {
    return `Look at the agent's own record and make row ${row} say the truth: set its status (completed, failed, cancelled, or back to in_progress with the agent that really works on it), or run \`dispatch-watchdog ack ${r.key}\` if the row is right as it is. Nothing is stopped or relaunched for it.`;
  }
  if (kind === 'resume') {
    return (
      `Stop the agent of row ${row}${stopHow}, resume its session with \`resume_prompt\` (run \`resume_command\` as given: every value in it is quoted; a background subagent has no resume: launch a fresh agent with \`prompt\` instead), ` +
      `then either reuse row ${row} with the resumed run's pid (if any) and redispatch_count ${r.redispatch_attempt}, or add a row with task_id ${r.recovery_task_id} (and set row ${row} to cancelled), ` +
      `or run \`dispatch-watchdog ack ${r.key} [--task-id ID]\`.`
    );
  }
  if (r.stop_row_task_id) {
    // task_id never ran: there is no row of it to cancel or reuse.
    return (
      `Stop the agent of row ${r.stop_row_task_id} if it still runs (${r.task_id} was never started), launch a fresh one with \`prompt\`, then either add a row with task_id ${r.recovery_task_id} ` +
      `(and set row ${r.stop_row_task_id} to cancelled), or run \`dispatch-watchdog ack ${r.key} [--task-id ID]\`.`
    );
  }
  return (
    `Stop the agent of row ${row}${stopHow}, launch a fresh one with \`prompt\`, then either add a row with task_id ${r.recovery_task_id} ` +
    `(and set row ${row} to cancelled), or reuse row ${row} with the new agent's agent_id/session_id/pid and redispatch_count ${r.redispatch_attempt}, ` +
    `or run \`dispatch-watchdog ack ${r.key} [--task-id ID]\`.`
  );
}
