// A verdict (DESIGN §5): its shape, how assess builds one, and the small wordings and lookups its
// reasons use. Pure: no I/O, no clock. Split out of core/assess.ts, which holds the rules.
import type { Task } from '../contracts/state-file.js';
import type { Observation, SourceName } from '../observe/parse/observation.js';
import type { DisagreementKind, ExemptionName, StallReason, TransportCause, VerdictKind } from '../contracts/vocabulary.js';
import type { derived } from './observation-window.js';
import { didYouMean } from './did-you-mean.js';
import type { UnobservedSpan } from './unobserved.js';

export interface Verdict {
  kind: VerdictKind;
  taskId: string;
  ticketId: string;
  /** now − last progress (or dispatch), never negative. */
  idleMs?: number;
  /** The moment idle counts from. */
  lastProgressMs?: number;
  effectiveTimeoutMs: number;
  /** Every exemption whose condition held, by name (the largest window wins). */
  exemptions: ExemptionName[];
  /** The Bash exemption held and widened the window (the seed's `bash_timeout_exemption`). */
  hasShellTimeoutExemption: boolean;
  lastTool?: string;
  /** Whether that call was still open (no result yet), when a source can tell. */
  isLastToolOpen?: boolean;
  sources: SourceName[];
  reason: string;
  /** Why a `stalled` verdict is one (contracts/vocabulary.ts STALL_REASONS); read it with stallReasonOf. */
  stallReason?: StallReason;
  /** inconsistent: how the row and the agent's own record disagree, and since when (a reconcile request says it). */
  disagreement?: { kind: DisagreementKind; sinceMs?: number };
  /** A stall whose cause is the link to the API, not the agent's context: it may be resumed (core/controls.ts). */
  transportCause?: TransportCause;
  /** When this task stalls if nothing changes: the loop wakes then (DESIGN §12). */
  deadlineMs?: number;
  /**
   * The subagents this task waits on that nothing can be seen of (no transcript found, no
   * progress line): past its window it is `unknown`, never acted on (issue 19 item 3).
   */
  unobservedChildren?: string[];
}

export const sec = (ms: number) => `${Math.round(ms / 1000)}s`;

/**
 * The stall reason a verdict that is acted on or logged as a stall is recorded with: a stalled
 * verdict's own (assess always sets one), `looping` for a loop acted on (`looping.act`).
 */
export function stallReasonOf(v: Pick<Verdict, 'kind' | 'stallReason'>): StallReason {
  return v.stallReason ?? (v.kind === 'looping' ? 'looping' : 'inactivity');
}

/**
 * Idle time said beside its window: a stall is strictly longer, so when whole seconds would read
 * the same ("20s (window 20s)") the idle time keeps the decimals that show the difference.
 */
export function idleBeside(idleMs: number, windowMs: number): string {
  if (Math.round(idleMs / 1000) > Math.round(windowMs / 1000) || idleMs <= windowMs) return sec(idleMs);
  const one = (idleMs / 1000).toFixed(1);
  return `${Number(one) > windowMs / 1000 ? one : (idleMs / 1000).toFixed(3)}s`;
}

/** The statuses a row may have (DESIGN §3), for "did you mean". */
const KNOWN_STATUSES = ['in_progress', 'running', 'dispatched', 'completed', 'merged', 'failed', 'cancelled', 'timeout', 'blocked'];

/** `in-progress` → `in_progress`: a near miss of a status we know. */
export function statusGuess(status: string): string | undefined {
  const norm = status
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return KNOWN_STATUSES.includes(norm) ? norm : didYouMean(norm, KNOWN_STATUSES);
}

/** What one task's judgment needs to know of the rest of its wave. */
export interface WaveContext {
  /** Agents (subagent ids) that have an in-flight row of their own, by that row's task id. */
  rowOfAgent?: ReadonlyMap<string, string>;
  /** Late wakes of the watchdog: time it did not see pass counts as no one's silence. */
  unobserved?: readonly UnobservedSpan[];
}

/** When a verdict's silence counts from, how long it is, and when it becomes a stall if nothing changes. */
export interface Timing {
  idleMs: number;
  lastProgressMs: number;
  deadlineMs: number;
}

/**
 * One verdict, built field by field in one order (no spread of temporaries: assess runs for every
 * task every check, and each spread was an object allocated and thrown away). Its times and
 * `isLastToolOpen` are fields of the literal: a field added after it grows a second store per verdict.
 */
export function makeVerdict(
  task: Task,
  obs: Observation,
  window: ReturnType<typeof derived>['window'],
  kind: VerdictKind,
  reason: string,
  extra: Partial<Verdict> | undefined,
  timing: Timing | undefined,
): Verdict {
  const v = new JudgedVerdict(task, obs, window, kind, reason, timing);
  if (extra) Object.assign(v, extra);
  return v;
}

/**
 * A verdict as assess builds it: every field in one order, those it lacks there and undefined,
 * so every verdict has one shape. Made with `new`, not an object literal: V8 tracks an
 * allocation site per literal and, once the objects made there survive a young-generation
 * collection (a cold check's 10,000 verdicts all do), allocates every later one straight into
 * the old generation; a steady check's verdicts, dead a check later, then piled up there until
 * a full collection (~3 MB a check at 10,000 agents). Objects made by `new` start young.
 */
class JudgedVerdict implements Verdict {
  kind: VerdictKind;
  taskId: string;
  ticketId: string;
  idleMs: number | undefined;
  lastProgressMs: number | undefined;
  effectiveTimeoutMs: number;
  exemptions: ExemptionName[];
  hasShellTimeoutExemption: boolean;
  lastTool: string | undefined;
  isLastToolOpen: boolean | undefined;
  sources: SourceName[];
  reason: string;
  deadlineMs: number | undefined;
  stallReason: StallReason | undefined = undefined;
  disagreement: Verdict['disagreement'] = undefined;
  transportCause: TransportCause | undefined = undefined;
  unobservedChildren: string[] | undefined = undefined;

  constructor(task: Task, obs: Observation, window: ReturnType<typeof derived>['window'], kind: VerdictKind, reason: string, timing: Timing | undefined) {
    this.kind = kind;
    this.taskId = task.taskId;
    this.ticketId = task.ticketId;
    this.idleMs = timing?.idleMs;
    this.lastProgressMs = timing?.lastProgressMs;
    this.effectiveTimeoutMs = window.effectiveTimeoutMs;
    this.exemptions = window.exemptions;
    this.hasShellTimeoutExemption = window.hasShellTimeoutExemption;
    this.lastTool = obs.lastTool?.name;
    this.isLastToolOpen = obs.lastTool?.isOpenKnown ? obs.lastTool.isOpen : undefined;
    this.sources = obs.sources;
    this.reason = reason;
    this.deadlineMs = timing?.deadlineMs;
  }
}

/**
 * A silence that is the model's, not a tool's: the transcript is read, no call is open, no child or
 * teammate is waited on. The agent's CLI writes nothing while a stream is frozen (or while it retries),
 * so this is a frozen stream (or a backoff that outlasted the window).
 */
export function silentModelCause(obs: Observation): TransportCause | undefined {
  if (!(obs.sources.includes('transcript') || obs.sources.includes('telemetry')) || obs.lastTool?.isOpen || obs.waitingOnChildren || obs.waitingOnTeam)
    return undefined;
  return obs.isApiRetrying ? 'rate_limit' : 'frozen_stream';
}

/** The waited-on children that are in-flight rows of their own (not this task), as [agent, row]. */
export function ownRows(agentIds: readonly string[], selfTaskId: string, wave: WaveContext): [string, string][] {
  const out: [string, string][] = [];
  for (const a of agentIds) {
    const row = wave.rowOfAgent?.get(a);
    if (row !== undefined && row !== selfTaskId) out.push([a, row]);
  }
  return out;
}

/** "waiting on subagent a1" / "waiting on background subagents a1, b2". */
export function waitingOn(children: NonNullable<Observation['waitingOnChildren']>): string {
  const many = children.agentIds.length > 1 ? 's' : '';
  return `waiting on ${children.isBackground ? 'background ' : ''}subagent${many} ${children.agentIds.join(', ')}`;
}

/** "waiting on teammates a@team, b@team" (its turn ended while they work). */
export function waitingOnTeam(team: NonNullable<Observation['waitingOnTeam']>): string {
  return `waiting on teammate${team.members.length > 1 ? 's' : ''} ${team.members.join(', ')}`;
}

export function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
