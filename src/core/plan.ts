// Verdicts + history + strategy → the events to log and the actions to take (DESIGN §7, §8).
// Pure: no I/O, no clock. The shell carries the plan out and journals it.
import { VERDICT_EVENT, type EventBody } from '../contracts/events.js';
import { recoveryTaskId } from '../contracts/ids.js';
import { msToIso, utcDate } from '../contracts/time.js';
import { WALL_REASONS, type ActionKind, type RecoveryMode, type Strategy } from '../contracts/vocabulary.js';
import { DEFAULT_CONTROLS, recoveryModeOf, type ControlOptions } from './controls.js';
import { planControls, type NudgeRoute } from './plan-controls.js';
import type { Task } from '../contracts/state-file.js';
import type { Observation } from '../observe/parse/observation.js';
import { stallReasonOf, type Verdict } from './assess.js';
import { actedTaskIds, type History } from './history.js';
import { massStallNoteRelPath } from '../files/paths.js';

export interface IntendedAction {
  kind: ActionKind;
  key: string;
  task: Task;
  verdict: Verdict;
  /** Redispatch: the attempt this launch is (1 = first redispatch). Escalate: stalled attempts so far. */
  attempt: number;
  recoveryTaskId?: string;
  /** Redispatch: a fresh agent, or the agent's own session resumed (core/controls.ts). */
  mode?: RecoveryMode;
  /** Nudge: where it lands (a teammate's inbox, or a resume of its session). */
  route?: NudgeRoute;
}

/** The shell's port for carrying out a plan: each intended action exactly once, journaling every step. */
export interface ActionPerformer {
  perform(action: IntendedAction, observation: Observation): Promise<void>;
  /** Housekeeping after each check's actions (e.g. retrying a failed tracker step). */
  afterCheck?(nowMs: number): Promise<void>;
  /** Wait for the actions still running in the background (a slow escalation) to finish. */
  drain?(): Promise<void>;
}

export interface PlanOptions {
  epicId: string;
  strategy: Strategy;
  maxRedispatches: number;
  /** Treat `looping` like `stalled` for actions. */
  shouldActOnLooping: boolean;
  /** `windowMs`: stalls detected this long before `nowMs` still count (staggered stalls). @defaultValue CIRCUIT_WINDOW_MS.
   * `maxHoldMs`: one mass-stall episode holds actions at most this long. */
  circuitBreaker: { minStalled: number; fraction: number; windowMs?: number; maxHoldMs?: number };
  /** The time of this check: with it, the circuit breaker counts the stalls of a sliding window, not of one check, and bounds an episode. */
  nowMs?: number;
  /** The watchdog itself ran late: re-observe before acting (DESIGN §8 self-lag guard). */
  isLagged: boolean;
  /** Resume, nudge, reconcile and attention settings. @defaultValue DEFAULT_CONTROLS */
  controls?: ControlOptions;
  /** --dry-run / --now: decide, but nothing will be carried out. */
  isReadOnly?: boolean;
  /**
   * Keys an earlier read of the state file also planned (DESIGN §3): when given, any other
   * action is held, since one read alone is never enough to do harm.
   */
  confirmedActionKeys?: ReadonlySet<string>;
  /** Rows held as last trusted (a regression not yet confirmed): no action on them. */
  heldTaskIds?: ReadonlySet<string>;
}

export interface StallDecision {
  actionTaken: string;
  redispatchAttempt: number;
  recoveryTaskId?: string;
}

export interface Plan {
  events: EventBody[];
  actions: IntendedAction[];
  /** Per stalled task id: what this check decided (for watchdog.json). */
  stalls: Map<string, StallDecision>;
  isMassStall: boolean;
  /** Moments a limit of this plan runs out (a human wait, a reconcile grace): the loop wakes then. */
  wakeAtMs?: number[];
}

/** The idempotency key of an action on one task instance. */
export function actionKey(epicId: string, taskId: string, kind: ActionKind): string {
  return `${epicId}:${taskId}:${kind}`;
}

const secs = (ms: number | undefined) => Math.round((ms ?? 0) / 1000);

/** How far back the circuit breaker counts stalls toward its fraction of the tasks in flight. @defaultValue 60000 */
export const CIRCUIT_WINDOW_MS = 60_000;
/** Stalls detected this close together (at least circuit_breaker.min_stalled of them) trip the breaker whatever the fraction. @defaultValue 10000 */
export const BURST_MS = 10_000;

/**
 * Stalls of this epic logged from `sinceMs` up to `nowMs`: task and ticket. One dated after now
 * (the clock was stepped back since) is not recent: counted, it would hold every real stall as a
 * mass stall until the clock caught up.
 */
function recentStalls(history: History, sinceMs: number, nowMs: number): { taskId: string; ticketId: string }[] {
  // This epic's stalls only: never every epic's stall history (100,000s of events in a long log,
  // each read back from the log and parsed) and no Date.parse per stall per check.
  return history.ownStalls.filter((s) => s.atMs >= sinceMs && s.atMs <= nowMs).map((s) => ({ taskId: s.taskId, ticketId: s.ticketId }));
}

/** State-dir relative path of the friction note of one mass-stall episode. */
export function massStallNotePath(epicId: string, startMs: number): string {
  return massStallNoteRelPath(epicId, utcDate(startMs), msToIso(startMs).slice(11, 19).replaceAll(':', ''));
}

/** The task ids of a mass stall (DESIGN §7 circuit breaker) among `stalled` (not empty), or undefined when it is none. */
function massStallOf(
  inFlight: readonly Verdict[],
  stalled: readonly Verdict[],
  history: History,
  opts: PlanOptions,
): { taskIds: string[]; populationSize: number } | undefined {
  const cb = opts.circuitBreaker;
  // A starved host does not stall every agent in the same millisecond: each deadline wakes its own
  // check. Stalls of the last window count with this check's, over the tasks in flight then or now.
  // A task that stalled and has since recovered proves the host well again: it does not count.
  // Counted by ticket: a ticket's replacements stalling one after another are one agent's trouble.
  const hasRecovered = new Set(inFlight.filter((v) => v.kind !== 'stalled').map((v) => v.taskId));
  const since = (ms: number) => (opts.nowMs === undefined ? [] : recentStalls(history, opts.nowMs - ms, opts.nowMs).filter((r) => !hasRecovered.has(r.taskId)));
  const recent = since(cb.windowMs ?? CIRCUIT_WINDOW_MS);
  const stalledTickets = new Set([...stalled.map((v) => v.ticketId), ...recent.map((r) => r.ticketId)]);
  const population = new Set([...inFlight.map((v) => v.ticketId), ...recent.map((r) => r.ticketId)]);
  // A burst: this many stalls newly detected within seconds of each other is the host, not the agents.
  const fresh = stalled.filter((v) => history.lastLogged.get(v.taskId) !== 'stalled');
  const burstRecent = since(BURST_MS);
  const burstTickets = new Set([...fresh.map((v) => v.ticketId), ...burstRecent.map((r) => r.ticketId)]);
  const isMassStall =
    (stalledTickets.size >= cb.minStalled && stalledTickets.size >= cb.fraction * population.size) || (fresh.length > 0 && burstTickets.size >= cb.minStalled);
  if (!isMassStall) return undefined;
  return {
    taskIds: [...new Set([...stalled.map((v) => v.taskId), ...recent.map((r) => r.taskId), ...burstRecent.map((r) => r.taskId)])].sort(),
    populationSize: population.size,
  };
}

/** Decide what to log and do for one check. */
export function planCheck(verdicts: readonly Verdict[], tasks: ReadonlyMap<string, Task>, history: History, opts: PlanOptions): Plan {
  const acted = actedTaskIds(history);
  const inFlight = verdicts.filter((v) => tasks.get(v.taskId)?.statusClass === 'in_flight' && v.kind !== 'terminal');
  // A terminal row whose agent still runs is logged and reconciled like an in-flight disagreement.
  const judged = [...inFlight, ...verdicts.filter((v) => v.disagreement?.kind === 'agent_running' && tasks.get(v.taskId)?.statusClass === 'terminal')];
  const stalled = inFlight.filter((v) => v.kind === 'stalled');
  const cb = opts.circuitBreaker;
  // With nothing stalled now there is no mass stall: a steady check builds none of its sets.
  const mass = stalled.length > 0 ? massStallOf(inFlight, stalled, history, opts) : undefined;
  const isMassStall = mass !== undefined;

  const events: EventBody[] = [];
  const actions: IntendedAction[] = [];
  const stalls = new Map<string, StallDecision>();

  // The breaker holds actions for one episode at most circuit_breaker.max_hold_seconds; then the
  // episode is escalated once (a friction note, by the shell) and stalls are acted on again.
  const episode = history.massStallEpisode?.isOpen ? history.massStallEpisode : undefined;
  let isHeld = isMassStall && !episode?.isEscalated;
  if (mass) {
    const ids = mass.taskIds;
    const startMs = episode?.startMs ?? opts.nowMs;
    if (history.lastMassStall !== ids.join(',')) {
      // Divided by the tasks in flight now or stalled in the window (a replaced task's stall counts
      // among them): never "6 of 5 tasks stalled".
      const among = new Set([...inFlight.map((v) => v.taskId), ...ids]).size;
      events.push({
        event: 'mass_stall',
        stalled: ids.length,
        in_flight: among,
        task_ids: ids,
        ...(startMs !== undefined ? { episode_started_at: msToIso(startMs) } : {}),
      });
    }
    if (isHeld && episode && opts.nowMs !== undefined && cb.maxHoldMs !== undefined && opts.nowMs - episode.startMs > cb.maxHoldMs) {
      isHeld = false;
      events.push({
        event: 'mass_stall_escalated',
        episode_started_at: msToIso(episode.startMs),
        held_seconds: secs(opts.nowMs - episode.startMs),
        task_ids: ids,
        friction_path: massStallNotePath(opts.epicId, episode.startMs),
      });
    }
  } else if (episode && opts.nowMs !== undefined) {
    events.push({ event: 'mass_stall_ended', held_seconds: secs(opts.nowMs - episode.startMs) });
  }

  for (const v of judged) {
    const task = tasks.get(v.taskId)!;
    const isTarget = v.kind === 'stalled' || (v.kind === 'looping' && opts.shouldActOnLooping);
    const decision = isTarget ? decide(v, task, history, opts, acted, isHeld) : undefined;
    if (decision?.action) actions.push(decision.action);
    if (decision && v.kind === 'stalled') stalls.set(v.taskId, decision);
    const eventName = VERDICT_EVENT[v.kind];
    const previous = history.lastLogged.get(v.taskId);
    // A stall whose reason changed is logged again (an inactivity stall the agent then gives up on
    // is api_gave_up): the log says what the stall, and any action on it, was for.
    const lastReason = history.lastStallReason.get(v.taskId);
    const isNewReason = v.kind === 'stalled' && previous === 'stalled' && lastReason !== undefined && lastReason !== (v.stallReason ?? 'inactivity');
    // A stall whose action was held (a second look, a lagging watchdog, a mass stall) is logged
    // again when the action is finally taken: the log says what was done, and when.
    const lastAction = history.lastStallAction.get(v.taskId);
    const isHeldNowTaken = v.kind === 'stalled' && previous === 'stalled' && lastAction?.startsWith('held:') === true && decision?.action !== undefined;
    if (!eventName || (previous === v.kind && !isNewReason && !isHeldNowTaken)) continue;
    const ids = { ticket_id: v.ticketId, task_id: v.taskId, agent_id: task.agentId ?? v.taskId };
    if (eventName === 'healthy') {
      events.push({
        event: 'healthy',
        ...ids,
        idle_seconds: secs(v.idleMs),
        effective_timeout_seconds: secs(v.effectiveTimeoutMs),
        recovered: previous === 'stalled' || previous === 'looping',
      });
    } else if (eventName === 'stall_detected') {
      const d = decision!; // a stalled verdict is always a target, so it has its decision
      events.push({
        event: 'stall_detected',
        ...ids,
        stall_reason: stallReasonOf(v),
        idle_seconds: secs(v.idleMs),
        bash_timeout_exemption: v.hasShellTimeoutExemption,
        redispatch_attempt: d.redispatchAttempt,
        max_redispatches: opts.maxRedispatches,
        action_taken: d.actionTaken,
        effective_timeout_seconds: secs(v.effectiveTimeoutMs),
        exemptions: v.exemptions,
        reason: v.reason,
        ...(v.lastTool ? { last_tool: v.lastTool } : {}),
        ...(v.lastTool && v.isLastToolOpen !== undefined ? { last_tool_open: v.isLastToolOpen } : {}),
      });
    } else {
      events.push({ event: eventName, ...ids, reason: v.reason });
    }
  }
  // Nudge, reconcile, attention: never destructive, so neither the breaker nor a replacement's cap holds them.
  let wakeAtMs: number[] | undefined;
  if (opts.nowMs !== undefined) {
    const c = planControls(judged, tasks, history, opts, opts.controls ?? DEFAULT_CONTROLS, opts.nowMs);
    events.push(...c.events);
    actions.push(...c.actions);
    wakeAtMs = c.wakeAtMs;
  }
  // A row whose status the watchdog does not know is an agent nobody watches: logged (once, like
  // any verdict change) so the loop can say it, though it is not in flight; and a person is needed
  // at once (`next` returns attention), once per status written: a second typo is news again.
  for (const v of verdicts) {
    const task = tasks.get(v.taskId);
    if (task?.statusClass !== 'unknown') continue;
    const ids = { ticket_id: v.ticketId, task_id: v.taskId, agent_id: task.agentId ?? v.taskId };
    if (history.lastLogged.get(v.taskId) !== 'unknown') events.push({ event: 'task_unknown', ...ids, reason: v.reason });
    const key = `${opts.epicId}:${v.taskId}:unknown_status@${task.status}`;
    if (opts.nowMs !== undefined && !history.attention.has(key)) {
      const sinceMs = history.lastLogged.get(v.taskId) === 'unknown' ? history.lastLoggedAtMs.get(v.taskId) : undefined;
      events.push({ event: 'attention_needed', ...ids, key, kind: 'unknown_status', since: msToIso(sinceMs ?? opts.nowMs), reason: v.reason });
    }
  }
  return { events, actions, stalls, isMassStall, ...(wakeAtMs?.length ? { wakeAtMs } : {}) };
}

function decide(
  v: Verdict,
  task: Task,
  history: History,
  opts: PlanOptions,
  acted: Set<string>,
  isMassStall: boolean,
): StallDecision & { action?: IntendedAction } {
  const count = history.redispatchCount.get(v.ticketId) ?? 0;
  const base = { redispatchAttempt: count + 1 };
  if (opts.strategy === 'report') return { ...base, actionTaken: 'report' };
  if (task.pendingRequestKey) return { ...base, actionTaken: 'awaiting_orchestrator' };
  if (acted.has(v.taskId)) return { ...base, actionTaken: 'already_under_way' };
  if (isMassStall) return { ...base, actionTaken: 'held:mass_stall' };
  if (opts.isLagged) return { ...base, actionTaken: 'held:self_lag' };
  if (opts.heldTaskIds?.has(task.rowTaskId ?? v.taskId)) return { ...base, actionTaken: 'held:unconfirmed_read' };
  const make = (kind: ActionKind, attempt: number, recovery?: string, mode?: RecoveryMode): StallDecision & { action?: IntendedAction } => {
    const key = actionKey(opts.epicId, v.taskId, kind);
    if (opts.confirmedActionKeys && !opts.confirmedActionKeys.has(key)) return { ...base, actionTaken: 'held:unconfirmed_read' };
    // A resume is a redispatch that keeps the session: same key, same cap; it is named in action_taken.
    const taken = mode === 'resume' ? 'redispatch:resume' : kind;
    return {
      ...base,
      actionTaken: opts.isReadOnly ? `dry_run:${taken}` : taken,
      recoveryTaskId: recovery,
      action: { kind, key, task, verdict: v, attempt, recoveryTaskId: recovery, ...(mode ? { mode } : {}) },
    };
  };
  if (opts.strategy === 'cancel') return make('cancel', count + 1);
  // A replacement would hit the same wall: a person decides (wait for the usage limit's reset or
  // raise the plan; fix the API key or log in again).
  if (v.stallReason !== undefined && WALL_REASONS.has(v.stallReason)) return make('escalate', count + 1);
  if (count < opts.maxRedispatches) {
    const mode = recoveryModeOf(v, task, history, opts.controls ?? DEFAULT_CONTROLS);
    return make('redispatch', count + 1, recoveryTaskId(v.taskId, count + 1), mode);
  }
  return make('escalate', count + 1);
}
