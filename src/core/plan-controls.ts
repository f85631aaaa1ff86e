// Nudge, reconcile and attention (DESIGN §8; long-task-control's NUDGE_MAIN_AGENT, OWNER_RECONCILE):
// what to do about a row and an agent that disagree, and when a person must be told. Never
// destructive: a nudge is one message where it can land, a reconcile is a question to the owner.
// Pure: verdicts, rows and the history in; events and intended actions out.
import type { EventBody } from '../contracts/events.js';
import type { Task } from '../contracts/state-file.js';
import { msToIso } from '../contracts/time.js';
import { ADAPTER_TRAITS, type AdapterName, type AttentionKind } from '../contracts/vocabulary.js';
import type { Verdict } from './assess.js';
import type { ControlOptions } from './controls.js';
import type { History } from './history.js';

/** How a nudge reaches an agent: a teammate's inbox, or its session resumed with the nudge as prompt. */
export type NudgeRoute = 'inbox' | 'resume';

const key = (epicId: string, taskId: string, what: string) => `${epicId}:${taskId}:${what}`;

/**
 * Where a nudge to this agent can land, or undefined: only an agent between turns can read one
 * (the caller checks that), and only through a channel this adapter has.
 */
export function nudgeRoute(task: Task, adapter: AdapterName, c: ControlOptions): NudgeRoute | undefined {
  const isTeammate = Boolean(task.teamName && task.agentName) || Boolean(task.agentId?.includes('@'));
  const traits = ADAPTER_TRAITS[adapter];
  if (isTeammate && traits.hasInbox) return 'inbox';
  // A session of its own (not a subagent of one): resumed with the nudge as its prompt (the harness's `nudge` command).
  if (task.sessionId && !task.agentId) {
    if (traits.isRequestOnly) return 'resume';
    if (c.canResume) return 'resume';
  }
  return undefined;
}

/** The text of a nudge: what the row says, and the two honest ways out. */
export function renderNudge(task: Task): string {
  return (
    `Your turn ended, but ${task.ticketId} (task ${task.rowTaskId ?? task.taskId}) is still in progress in the epic state file. ` +
    'If the work is done, say so in one final summary (what changed, how it was verified); otherwise continue with the remaining work now.'
  );
}

/** When the current verdict of a task began (the time its verdict event was logged), if it is `kind`. */
function since(history: History, taskId: string, kind: Verdict['kind']): number | undefined {
  return history.lastLogged.get(taskId) === kind ? history.lastLoggedAtMs.get(taskId) : undefined;
}

function outcomeAtMs(history: History, k: string): number | undefined {
  const o = history.actions.get(k)?.outcome;
  return o && o.event !== 'action_failed' ? Date.parse(o.timestamp_utc) : undefined;
}

/** A nudge or a reconcile the executor carries out (an IntendedAction of plan.ts). */
export interface ControlAction {
  kind: 'nudge' | 'reconcile';
  key: string;
  task: Task;
  verdict: Verdict;
  attempt: number;
  route?: NudgeRoute;
}

/** What of the planner's options this part reads (plan.ts PlanOptions). */
export interface ControlPlanOptions {
  epicId: string;
  /** With `report` nothing is sent to an agent: no nudge (a reconcile request is only a question). */
  strategy?: string;
  isLagged: boolean;
  isReadOnly?: boolean;
  confirmedActionKeys?: ReadonlySet<string>;
  /** Rows one torn read may have changed: nothing is done about them yet. */
  heldTaskIds?: ReadonlySet<string>;
}

export interface ControlPlan {
  events: EventBody[];
  actions: ControlAction[];
  /** When a limit counted here runs out (a human wait, a reconcile grace): the loop wakes then. */
  wakeAtMs: number[];
}

/**
 * For each task in flight: a nudge, then (after its grace) a reconcile request, for a row the agent
 * disagrees with for longer than the reconcile grace; an attention event for a human wait or an
 * unobservable agent past its limit; and the nudge and reconcile requests the agent or the owner has
 * since answered by the truth changing.
 */
export function planControls(
  verdicts: readonly Verdict[],
  tasks: ReadonlyMap<string, Task>,
  history: History,
  opts: ControlPlanOptions,
  c: ControlOptions,
  nowMs: number,
): ControlPlan {
  const events: EventBody[] = [];
  const actions: ControlAction[] = [];
  const wakeAtMs: number[] = [];
  for (const v of verdicts) {
    // Only these verdicts lead to a control (a steady wave's thousands of healthy tasks cost nothing here).
    if (v.kind !== 'inconsistent' && v.kind !== 'waiting_human' && v.kind !== 'unknown') continue;
    const task = tasks.get(v.taskId);
    if (!task || (task.statusClass !== 'in_flight' && v.disagreement?.kind !== 'agent_running')) continue;
    const ids = { ticket_id: v.ticketId, task_id: v.taskId, agent_id: task.agentId ?? v.taskId };
    // Another action already owns this task instance (a stop, a replacement, an escalation).
    if ((['cancel', 'redispatch', 'escalate'] as const).some((k) => history.actions.has(key(opts.epicId, v.taskId, k)))) continue;
    if (v.kind === 'inconsistent' && v.disagreement) {
      const from = v.disagreement.sinceMs ?? since(history, v.taskId, 'inconsistent') ?? nowMs;
      if (nowMs - from <= c.reconcileGraceMs) {
        wakeAtMs.push(from + c.reconcileGraceMs + 1);
        continue;
      }
      const nudgeKey = key(opts.epicId, v.taskId, 'nudge');
      const route = v.disagreement.kind === 'agent_finished' && c.isNudgeOn && opts.strategy !== 'report' ? nudgeRoute(task, c.adapter, c) : undefined;
      const make = (kind: 'nudge' | 'reconcile', k: string) => {
        if (
          opts.isReadOnly ||
          opts.isLagged ||
          opts.heldTaskIds?.has(task.rowTaskId ?? v.taskId) ||
          (opts.confirmedActionKeys && !opts.confirmedActionKeys.has(k))
        )
          return;
        actions.push({ kind, key: k, task, verdict: v, attempt: 1, ...(kind === 'nudge' && route ? { route } : {}) });
      };
      if (route && !history.actions.has(nudgeKey)) {
        make('nudge', nudgeKey);
        continue;
      }
      const sentAt = outcomeAtMs(history, nudgeKey);
      if (sentAt !== undefined && nowMs - sentAt <= c.nudgeGraceMs) continue; // its grace window
      const reconcileKey = key(opts.epicId, v.taskId, 'reconcile');
      if (!history.actions.has(reconcileKey)) make('reconcile', reconcileKey);
      continue;
    }
    const attention = (kind: AttentionKind, limitMs: number, what: string) => {
      // Not logged yet: it is, by this check, so its limit runs from now.
      const from = since(history, v.taskId, v.kind);
      if (from === undefined || nowMs - from <= limitMs) {
        wakeAtMs.push((from ?? nowMs) + limitMs + 1);
        return;
      }
      const k = key(opts.epicId, v.taskId, `${kind}@${msToIso(from)}`);
      if (history.attention.has(k)) return;
      events.push({
        event: 'attention_needed',
        ...ids,
        key: k,
        kind,
        since: msToIso(from),
        reason: `${what} for ${Math.round((nowMs - from) / 1000)}s: ${v.reason}`,
      });
    };
    if (v.kind === 'waiting_human') attention('human_wait', c.humanWaitLimitMs, 'a person has been needed');
    if (v.kind === 'unknown' && v.unobservedChildren?.length) {
      // Waiting past its window on a child nothing can be seen of: a person at once, since the
      // watchdog never will (keyed by the moment it became so, stable while nothing changes).
      const from = v.deadlineMs ?? nowMs;
      const k = key(opts.epicId, v.taskId, `unobservable_child@${msToIso(from)}`);
      const names = v.unobservedChildren.join(', ');
      if (!history.attention.has(k))
        events.push({
          event: 'attention_needed',
          ...ids,
          key: k,
          kind: 'unobservable_child',
          since: msToIso(from),
          reason: `waits on ${names}, which cannot be observed: ${v.reason}`,
        });
    } else if (v.kind === 'unknown') attention('unobservable', c.unobservableAfterMs, 'the agent could not be observed');
  }
  // Requests the truth has answered: a nudged agent that made progress, a disagreement that cleared.
  let byTask: Map<string, Verdict> | undefined;
  for (const r of history.requests.values()) {
    if (r.status !== 'pending' || (r.kind !== 'nudge' && r.kind !== 'reconcile')) continue;
    byTask ??= new Map(verdicts.map((v) => [v.taskId, v]));
    const v = byTask.get(r.taskId);
    // A terminal row no longer in the list judged: its agent stopped, the row and it agree again.
    const isAgreed = v === undefined ? tasks.get(r.taskId)?.statusClass === 'terminal' : v.kind !== 'inconsistent';
    const isResolved = r.kind === 'nudge' ? v?.kind === 'healthy' || v?.kind === 'terminal' : isAgreed;
    if (isResolved) events.push({ event: 'request_answered', key: r.key, kind: r.kind, ticket_id: r.ticketId, task_id: r.taskId, how: 'resolved' });
  }
  return { events, actions, wakeAtMs };
}
