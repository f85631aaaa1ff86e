// Verdicts (DESIGN §5): assess(task, observation, policy, nowMs) → Verdict.
// Pure and deterministic: no I/O, no clock; precedence is first match wins.
import type { Task } from '../contracts/state-file.js';
import type { Observation, SourceName } from '../observe/parse/observation.js';
import type { DisagreementKind, ExemptionName, StallReason, TransportCause, VerdictKind } from '../contracts/vocabulary.js';
import { derived, repeatedError, trailingRepeat } from './observation-window.js';
import type { Policy } from './policy.js';
import { unobservedSince, type UnobservedSpan } from './unobserved.js';
import { msToIso } from '../contracts/time.js';
import { didYouMean } from './did-you-mean.js';
import { stillRunning } from './terminal-watch.js';
import { telemetryPartition } from './partition.js';


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

const sec = (ms: number) => `${Math.round(ms / 1000)}s`;

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
  const norm = status.trim().toLowerCase().replace(/[\s-]+/g, '_');
  return KNOWN_STATUSES.includes(norm) ? norm : didYouMean(norm, KNOWN_STATUSES);
}

/** What one task's judgment needs to know of the rest of its wave. */
export interface WaveContext {
  /** Agents (subagent ids) that have an in-flight row of their own, by that row's task id. */
  rowOfAgent?: ReadonlyMap<string, string>;
  /** Late wakes of the watchdog: time it did not see pass counts as no one's silence. */
  unobserved?: readonly UnobservedSpan[];
}

/** Judge one task. `nowMs` is injected; the same inputs always give the same verdict. */
export function assess(task: Task, obs: Observation, policy: Policy, nowMs: number, wave: WaveContext = {}): Verdict {
  const d = derived(obs, policy);
  const window = d.window;
  const verdict = (kind: VerdictKind, reason: string, extra?: Partial<Verdict>): Verdict => makeVerdict(task, obs, window, kind, reason, extra, undefined);
  // A verdict with a deadline: its times are fields of the verdict as built, not added after.
  const timed = (kind: VerdictKind, reason: string, timing: Timing, extra?: Partial<Verdict>): Verdict => makeVerdict(task, obs, window, kind, reason, extra, timing);

  // 1-2. Status decides first.
  if (task.statusClass === 'terminal') {
    // Its agent still at work past the row's end: a question for the owner (never acted on).
    const running = stillRunning(task, obs, window.effectiveTimeoutMs, nowMs);
    if (running) return verdict('inconsistent', `the row says "${task.status}" but its agent is still running: ${running}`, { disagreement: { kind: 'agent_running', sinceMs: task.terminalSinceMs } });
    return verdict('terminal', `status "${task.status}" is terminal; not evaluated`);
  }
  if (task.statusClass === 'blocked') return verdict('blocked', 'status is blocked');
  if (task.statusClass === 'unknown') {
    const guess = statusGuess(task.status);
    const mean = guess ? `did you mean "${guess}"? ` : '';
    return verdict('unknown', `status "${task.status}" is not one the watchdog knows (${mean}expected in_progress, running, dispatched, blocked or a terminal status): this agent is NOT watched`);
  }

  // A replacement the orchestrator was asked for and never started: a failed attempt (DESIGN §8).
  if (task.unansweredRequest) {
    const u = task.unansweredRequest;
    const idleMs = Math.max(0, nowMs - u.createdAtMs);
    return verdict('stalled', `never started: the redispatch request ${u.key} was not answered by ${msToIso(u.answerByMs)}`, {
      idleMs,
      lastProgressMs: u.createdAtMs,
      stallReason: 'request_unanswered',
    });
  }

  // 4'. Failed: the agent's own record says it gave up on the API. Acted on like a stall, at once.
  if (obs.failed) {
    const f = obs.failed;
    const stallReason: StallReason = f.kind === 'context_exhausted' ? 'context_exhausted' : f.kind === 'runtime_killed' ? 'runtime_killed' : f.kind === 'agent_died' ? 'agent_died' : 'api_gave_up';
    const what =
      f.kind === 'context_exhausted' ? 'the agent ran out of context' : f.kind === 'runtime_killed' ? `killed by ${obs.agentWords?.displayName ?? 'its CLI'}'s own stall watchdog` : f.kind === 'agent_died' ? 'the agent process died' : `the agent gave up on an API error (${f.kind.replaceAll('_', ' ')})`;
    const idleMs = f.atMs === undefined ? undefined : Math.max(0, nowMs - f.atMs);
    const transportCause = f.kind === 'overloaded' || f.kind === 'connection' || f.kind === 'rate_limit' ? f.kind : undefined;
    return verdict('stalled', `${what}: ${f.detail ?? 'no message'}`, { stallReason, idleMs, lastProgressMs: f.atMs, ...(transportCause ? { transportCause } : {}) });
  }

  // A finish inferred from a final answer holds only after a whole window of silence: until then
  // the text may be followed by a slow call, and the agent is judged as working.
  const quietSinceMs = maxDefined(obs.lastProgressMs, obs.outputGrewAtMs);
  const finished =
    obs.finished && (!obs.finished.isInferred || (quietSinceMs !== undefined && nowMs - quietSinceMs - unobservedSince(wave.unobserved, quietSinceMs, nowMs) > window.effectiveTimeoutMs)) ? obs.finished : undefined;

  // A replacement we launched ourselves has no orchestrator row to disagree with: its finish is the end.
  if (task.isOwnReplacement && finished) {
    return verdict('terminal', `the agent finished (${finished.kind})${task.hasExited ? ' and its process exited' : ''}`);
  }

  // 3. Truth that contradicts itself is reported, never acted on.
  if (finished) {
    const kind: DisagreementKind = finished.kind.startsWith('parent transcript') ? 'result_delivered' : 'agent_finished';
    return verdict('inconsistent', `agent finished (${finished.kind}) but the row still says "${task.status}"`, { disagreement: { kind, ...(finished.atMs !== undefined ? { sinceMs: finished.atMs } : {}) } });
  }
  // Three stamps, checked without building a list of them (assess runs for every task every check).
  const future = isFuture(obs.lastProgressMs, nowMs, policy) ? (['last activity', obs.lastProgressMs!] as const) : isFuture(task.dispatchedAtMs, nowMs, policy) ? (['dispatched_at', task.dispatchedAtMs!] as const) : isFuture(obs.outputGrewAtMs, nowMs, policy) ? (['output growth', obs.outputGrewAtMs!] as const) : undefined;
  if (future) return verdict('inconsistent', `${future[0]} is ${sec(future[1] - nowMs)} in the future (clock skew or a bad timestamp)`);
  if (obs.contradictions.length > 0) return verdict('inconsistent', obs.contradictions.join('; '), { disagreement: { kind: 'foreign_transcript' } });

  // 4''. The run that ran the agent ended before it finished (SessionEnd): dead at once, not a
  // window later. A lead whose child has a row of its own is deferred to that row even then: one
  // action per failure (the child's row is orphaned by the same end).
  if (obs.runEnded) {
    const at = maxDefined(obs.lastProgressMs, obs.outputGrewAtMs) ?? task.dispatchedAtMs;
    const idle = at === undefined ? {} : { idleMs: Math.max(0, nowMs - at), lastProgressMs: at };
    const children = obs.waitingOnChildren;
    const childRows = children ? ownRows(children.agentIds, task.taskId, wave) : [];
    if (childRows.length > 0) {
      return verdict('healthy', `its run ended (${obs.runEnded.detail}) while ${waitingOn(children!)}: ${childRows.map(([a, t]) => `${a} is row ${t}`).join(', ')}, judged and recovered on its own (one action for one failure); this task is judged again once that row is no longer in flight`, idle);
    }
    const orphan = children ? `; ${waitingOn(children)}, which died with it` : task.agentId !== undefined && task.agentId !== task.sessionId ? '; a subagent dies with its session' : '';
    return verdict('stalled', `its run ended before the agent finished (${obs.runEnded.detail})${orphan}`, { stallReason: 'run_ended', ...idle });
  }

  // 4. Nothing to measure from.
  const progressAt = maxDefined(obs.lastProgressMs, obs.outputGrewAtMs);
  const missingNote = obs.missing.length === 0 ? '' : obs.missing.map((m) => `${m.source}: ${m.reason}`).join('; ');
  if (progressAt === undefined && task.dispatchedAtMs === undefined) {
    return verdict('unknown', `no activity evidence and no dispatched_at${missingNote ? ` (${missingNote})` : ''}`);
  }
  if (progressAt === undefined && missingNote) {
    // A source we cannot read yet is no proof of a stall, until the row's whole window has passed
    // since dispatch without a sign of life: then it never started (saying where we looked).
    const since = task.dispatchedAtMs!;
    const idleMs = Math.max(0, nowMs - since);
    const unseenMs = unobservedSince(wave.unobserved, since, nowMs);
    const timing = { idleMs, lastProgressMs: since, deadlineMs: since + unseenMs + window.effectiveTimeoutMs };
    if (idleMs - unseenMs > window.effectiveTimeoutMs) {
      return timed('stalled', `never started: no activity in ${idleBeside(idleMs, window.effectiveTimeoutMs)} since dispatch (window ${sec(window.effectiveTimeoutMs)}); looked in: ${missingNote}`, timing, { stallReason: 'never_started' });
    }
    // Starting: judged from dispatched_at like a row with no source at all (a fresh replacement
    // has no transcript for its first seconds), and said as such.
    return timed('healthy', `starting: dispatched ${sec(idleMs)} ago, no record yet (window ${sec(window.effectiveTimeoutMs)}; ${missingNote})`, timing);
  }

  // 5. A human has to answer. An interrupted agent whose process is gone waits for no one.
  const isGone = obs.isProcessAlive === false || task.hasExited === true;
  if (obs.waitingHuman && !(obs.waitingHuman.kind === 'interrupted' && isGone)) {
    const w = obs.waitingHuman;
    return verdict('waiting_human', `waiting for a human: ${w.kind.replaceAll('_', ' ')}${w.detail ? ` (${w.detail})` : ''}`);
  }

  // 6. Stalled: idle strictly longer than the window.
  const sinceMs = (progressAt ?? task.dispatchedAtMs)!;
  const idleMs = Math.max(0, nowMs - sinceMs);
  // Time the watchdog did not see pass (a paused machine, a clock stepped forward) is nobody's silence.
  const unseenMs = unobservedSince(wave.unobserved, sinceMs, nowMs);
  const judgedMs = idleMs - unseenMs;
  const timing = { idleMs, lastProgressMs: sinceMs, deadlineMs: sinceMs + unseenMs + window.effectiveTimeoutMs };
  const note = missingNote ? ` (${missingNote})` : '';
  const unseenNote = unseenMs > 0 ? `; ${sec(unseenMs)} of it the watchdog did not see pass (it woke late: the machine paused or the clock stepped), so ${sec(judgedMs)} of silence is judged` : '';
  if (judgedMs > window.effectiveTimeoutMs) {
    const q = obs.queuedUnconsumed;
    const isQueueStuck = q !== undefined && !obs.lastTool?.isOpen && !obs.waitingOnChildren && !obs.waitingOnTeam;
    const stallReason: StallReason = progressAt === undefined ? 'never_started' : window.isOpenOverrun(judgedMs) ? 'open_tool_overrun' : isQueueStuck ? 'queue_unconsumed' : 'inactivity';
    if (stallReason === 'open_tool_overrun' && obs.isProcessAlive === true && obs.canWaitOnHuman !== false) {
      // Past its own timeout with the agent's process alive: its CLI is waiting on a prompt (the harness says how to see it).
      const hint = obs.agentWords ? ` (${obs.agentWords.hiddenPromptHint})` : '';
      return timed('waiting_human', `${obs.lastTool?.name} call open ${sec(idleMs)}, past its own timeout, and the agent's process is alive: most likely a permission prompt${hint}`, timing);
    }
    const partition = stallReason !== 'never_started' ? telemetryPartition(obs, nowMs, window.effectiveTimeoutMs) : undefined;
    if (partition) {
      // Missing telemetry never kills while its host is silent too: the network may be down, not the agent.
      return timed('unknown', `no progress for ${sec(idleMs)}, but ${partition}: a network partition looks the same as a stall, so none is concluded; not acted on (docs/fleet.md, partitions)${note}`, timing);
    }
    if (stallReason === 'inactivity' && obs.waitingOnTeam && !isGone) {
      // The watchdog cannot see teammates at work (separate transcripts): never a stall while one
      // runs. A lead whose process is gone can no longer be woken (in-process teammates died with it).
      return verdict('healthy', `${waitingOnTeam(obs.waitingOnTeam)}, idle ${sec(idleMs)}: their transcripts are not read, so their silence is not judged; the lead is judged again when they message it or shut down${note}`, { idleMs, lastProgressMs: sinceMs });
    }
    const children = obs.waitingOnChildren;
    const childRows = children && stallReason === 'inactivity' ? ownRows(children.agentIds, task.taskId, wave) : [];
    const unseen = children?.unseenIds?.filter((id) => !wave.rowOfAgent?.has(id));
    if (stallReason === 'inactivity' && children && unseen?.length && !isGone) {
      // Missing evidence never kills: the child may be at work where the watchdog cannot look.
      const ids = unseen;
      return timed('unknown', `${waitingOn(children)}, idle ${sec(idleMs)}: no transcript found for ${ids.join(', ')}, so its silence cannot be judged; not acted on (a row of its own is judged on its own evidence)${note}`, timing, { unobservedChildren: ids });
    }
    if (childRows.length > 0) {
      // The child it waits on has a row of its own, judged and recovered there: acting on this
      // parent too would act twice on one stall (killing a lead kills its foreground child).
      return verdict('healthy', `${waitingOn(children!)}, idle ${sec(idleMs)}: ${childRows.map(([a, t]) => `${a} is row ${t}`).join(', ')}, judged and recovered on its own; this task is judged again once that row is no longer in flight${note}`, { idleMs, lastProgressMs: sinceMs });
    }
    const why =
      stallReason === 'never_started'
        ? `no activity since dispatch ${idleBeside(idleMs, window.effectiveTimeoutMs)} ago`
        : stallReason === 'open_tool_overrun'
          ? `${obs.lastTool?.name} call open ${idleBeside(idleMs, window.effectiveTimeoutMs)}, past its own timeout plus grace${obs.isProcessAlive === false ? '; the agent process is gone' : ''}`
          : stallReason === 'queue_unconsumed'
            ? `idle ${idleBeside(idleMs, window.effectiveTimeoutMs)} with nothing open while ${q!.detail} queued for it${q!.sinceMs !== undefined ? ` ${sec(Math.max(0, nowMs - q!.sinceMs))} ago` : ''} was never consumed (enqueued, never dequeued: a wake that never landed)`
          : children
            ? `no progress for ${idleBeside(idleMs, window.effectiveTimeoutMs)}: ${waitingOn(children)}, which stalled${children.unseenIds ? ` (no transcript found for ${children.unseenIds.join(', ')})` : ''}`
            : `no progress for ${idleBeside(idleMs, window.effectiveTimeoutMs)}`;
    const exited = task.hasExited ? '; its process exited without finishing' : '';
    const transportCause = stallReason === 'inactivity' && !task.hasExited ? silentModelCause(obs) : undefined;
    return timed('stalled', `${why} (window ${sec(window.effectiveTimeoutMs)}${unseenNote})${exited}${note}`, timing, transportCause ? { stallReason, transportCause } : { stallReason });
  }

  // 7. Alive but going round in circles.
  const repeat = (d.repeat ??= trailingRepeat(obs.recentCalls));
  if (repeat.call && repeat.count >= policy.loopRepeatCount) {
    return timed('looping', `same ${repeat.call.name} call repeated ${repeat.count} times in a row`, timing);
  }
  const err = (d.err ??= repeatedError(obs.recentCalls));
  if (err.error && err.count >= policy.loopErrorCount) {
    return timed('looping', `same error ${err.count} times in a row: ${err.error.replace(/\s+/g, ' ').slice(0, 80)}`, timing);
  }

  // 8. Healthy.
  const via = `${obs.waitingOnChildren ? `; ${waitingOn(obs.waitingOnChildren)}` : ''}${obs.waitingOnTeam ? `; ${waitingOnTeam(obs.waitingOnTeam)}` : ''}`;
  return timed('healthy', `active ${sec(idleMs)} ago (window ${sec(window.effectiveTimeoutMs)}${unseenNote})${via}${note}`, timing);
}

/** When a verdict's silence counts from, how long it is, and when it becomes a stall if nothing changes. */
interface Timing {
  idleMs: number;
  lastProgressMs: number;
  deadlineMs: number;
}

const isFuture = (at: number | undefined, nowMs: number, policy: Policy) => at !== undefined && at - nowMs > policy.futureSkewMs;

/**
 * One verdict, built field by field in one order (no spread of temporaries: assess runs for every
 * task every check, and each spread was an object allocated and thrown away). Its times and
 * `isLastToolOpen` are fields of the literal: a field added after it grows a second store per verdict.
 */
function makeVerdict(task: Task, obs: Observation, window: ReturnType<typeof derived>['window'], kind: VerdictKind, reason: string, extra: Partial<Verdict> | undefined, timing: Timing | undefined): Verdict {
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
function silentModelCause(obs: Observation): TransportCause | undefined {
  if (!(obs.sources.includes('transcript') || obs.sources.includes('telemetry')) || obs.lastTool?.isOpen || obs.waitingOnChildren || obs.waitingOnTeam) return undefined;
  return obs.isApiRetrying ? 'rate_limit' : 'frozen_stream';
}

/** The waited-on children that are in-flight rows of their own (not this task), as [agent, row]. */
function ownRows(agentIds: readonly string[], selfTaskId: string, wave: WaveContext): [string, string][] {
  const out: [string, string][] = [];
  for (const a of agentIds) {
    const row = wave.rowOfAgent?.get(a);
    if (row !== undefined && row !== selfTaskId) out.push([a, row]);
  }
  return out;
}

/** "waiting on subagent a1" / "waiting on background subagents a1, b2". */
function waitingOn(children: NonNullable<Observation['waitingOnChildren']>): string {
  const many = children.agentIds.length > 1 ? 's' : '';
  return `waiting on ${children.isBackground ? 'background ' : ''}subagent${many} ${children.agentIds.join(', ')}`;
}

/** "waiting on teammates a@team, b@team" (its turn ended while they work). */
function waitingOnTeam(team: NonNullable<Observation['waitingOnTeam']>): string {
  return `waiting on teammate${team.members.length > 1 ? 's' : ''} ${team.members.join(', ')}`;
}

function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
