// Markdown of the friction notes (DESIGN §8, §9): the stall escalation (seed template) and
// the start-up orphan report. Pure: no I/O, no clock; paths are relative to the state dir.
import { DEFAULTS } from '../../contracts/defaults.js';
import type { TrackerOutcomeKind } from '../../contracts/vocabulary.js';
import { hypothesizeRootCause } from './friction-hypothesis.js';
import { cell, renderStallTable, unloggedStallsLine, type StallRecord } from './stall-history.js';

/** What happened to the Linear issue (mirrors `escalated_to_blocked.tracker`). */
export interface TrackerOutcome {
  kind: TrackerOutcomeKind;
  /** The workflow state's name. @defaultValue "Blocked" */
  stateName?: string;
  /** Why it was skipped or failed; must already be free of secrets. */
  detail?: string;
}

/** Everything the stall-escalation note says. */
export interface FrictionNoteInput {
  ticketId: string;
  /** Agent runs of the ticket, first dispatch included; the note is keyed by ticket and this. */
  attempts: number;
  maxRedispatches: number;
  history: readonly StallRecord[];
  /** Relative to the state dir (e.g. `dispatch-log/2026-04-02.ndjson`); absolute paths are shown as given. */
  evidencePaths: { dispatchLogs: readonly string[]; checkpoints: readonly string[] };
  trackerOutcome: TrackerOutcome;
  /** When the ticket was escalated, ISO-8601 UTC. */
  escalatedAt?: string;
  /** The escalation's idempotency key `<epic>:<task_id>:escalate`. */
  actionKey?: string;
}

/** The line that makes a stall-escalation note unique per ticket and attempt. */
export function frictionMarker(ticketId: string, attempts: number): string {
  return `<!-- dispatch-watchdog:friction:${ticketId}:attempt-${attempts} -->`;
}

/** A link from a note in `friction/` to a file named relative to the state dir. */
function evidenceLink(p: string): string {
  const isAbsolute = p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);
  return `[${p}](${isAbsolute ? p : '../' + p})`;
}

function trackerLine(t: string, o: TrackerOutcome): string {
  const state = `"${o.stateName ?? DEFAULTS.linear.blocked_state}"`;
  switch (o.kind) {
    case 'updated':
      return `Tracker: moved ${t} to ${state} in Linear and commented the stall history.`;
    case 'already_blocked':
      return `Tracker: ${t} was already in ${state} in Linear; the stall history is commented.`;
    case 'skipped':
      return `Tracker: skipped (${o.detail ?? 'LINEAR_API_KEY is not set'}); move ${t} to ${state} by hand.`;
    case 'failed':
      return `Tracker: the Linear update failed (${o.detail ?? 'no detail'}); move ${t} to ${state} by hand.`;
  }
}

/** The stall-escalation note for one ticket, following the seed template's four sections. */
export function renderFrictionNote(input: FrictionNoteInput): string {
  const { ticketId: t, history } = input;
  // The advice's last step says where the ticket really is: Blocked, or never moved (tracker skipped or failed).
  const isMoved = input.trackerOutcome.kind === 'updated' || input.trackerOutcome.kind === 'already_blocked';
  const hypothesis = hypothesizeRootCause(history, t, { state: isMoved ? 'blocked' : 'tracker_skipped' });
  const logs = input.evidencePaths.dispatchLogs.map((p) => `- Dispatch log: ${evidenceLink(p)}`);
  const checkpoints = input.evidencePaths.checkpoints.map((p) => `- Checkpoint: ${evidenceLink(p)}`);
  return [
    `# Agent Stall Escalation: ${t}`,
    '',
    frictionMarker(t, input.attempts),
    '',
    '## Summary',
    `Agent stalled ${input.attempts} ${input.attempts === 1 ? 'time' : 'times'}, exceeding max redispatch limit of ${input.maxRedispatches}.`,
    ...(input.escalatedAt ? [`Escalated at ${input.escalatedAt}.`] : []),
    trackerLine(t, input.trackerOutcome),
    '',
    ...(unloggedStallsLine(input.attempts, history) !== undefined ? [unloggedStallsLine(input.attempts, history)!, ''] : []),
    history.length > 0 ? renderStallTable(history) : '_No stall events were found in the dispatch log._',
    '',
    '## Evidence',
    ...(logs.length > 0 ? logs : ['- Dispatch log: none found']),
    ...(checkpoints.length > 0 ? checkpoints : ['- Checkpoint: none written']),
    ...(input.actionKey ? [`- Idempotency key: \`${input.actionKey}\``] : []),
    '',
    '## Root Cause Hypothesis',
    hypothesis.text,
    '',
    '## Recommended Action',
    hypothesis.action,
    '',
  ].join('\n');
}

/** An action that started but left no outcome and no marker: never re-fired, only reported. */
export interface OrphanAction {
  key: string;
  action: string;
  ticketId?: string;
  taskId?: string;
  /** When its `action_started` was written, ISO-8601 UTC. */
  startedAt?: string;
  /** Why it could not be classified. */
  detail?: string;
}

/** Every orphan is listed up to this many; above it only the first ORPHANS_SHOWN_WHEN_MANY. */
export const ORPHANS_LIST_ALL_UP_TO = 30;
export const ORPHANS_SHOWN_WHEN_MANY = 20;

/** The marker line of one run's orphan note. */
export function orphanMarker(runId: string): string {
  return `<!-- dispatch-watchdog:orphans:${runId} -->`;
}

/** The start-up recovery note: one per run, at most 20 orphans listed when there are more than 30. */
export function renderOrphanNote(orphans: readonly OrphanAction[], opts: { runId: string; epicId?: string; detectedAt?: string }): string {
  const shown = orphans.length > ORPHANS_LIST_ALL_UP_TO ? orphans.slice(0, ORPHANS_SHOWN_WHEN_MANY) : orphans;
  const left = orphans.length - shown.length;
  const where = opts.epicId ? ` of epic ${opts.epicId}` : '';
  const rows = shown.map((o) => `| \`${o.key}\` | ${cell(o.action)} | ${cell(o.ticketId)} | ${cell(o.taskId)} | ${cell(o.startedAt)} | ${cell(o.detail)} |`);
  return [
    `# Orphaned Actions: run ${opts.runId}`,
    '',
    orphanMarker(opts.runId),
    '',
    '## Summary',
    `At start-up${opts.detectedAt ? ` (${opts.detectedAt})` : ''}, ${orphans.length} action${orphans.length === 1 ? '' : 's'}${where} had started but left neither an outcome nor a marker, so the watchdog cannot tell whether ${orphans.length === 1 ? 'it' : 'they'} ran. None was re-fired.`,
    '',
    '## Orphans',
    '| key | action | ticket | task | started (UTC) | detail |',
    '|---|---|---|---|---|---|',
    ...rows,
    ...(left > 0
      ? ['', `${left} more not listed (${orphans.length} in total): each is an \`action_started\` event without an outcome in the dispatch log.`]
      : []),
    '',
    '## Recommended Action',
    'For each key, check by hand whether the action happened (is the agent still running? is there a request file, a checkpoint, a Linear comment?). Finish or undo it yourself; the watchdog will not touch these keys again.',
    '',
  ].join('\n');
}
