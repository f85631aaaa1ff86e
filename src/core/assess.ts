// Verdicts (DESIGN §5): assess(task, observation, policy, nowMs) → Verdict.
// Pure and deterministic: no I/O, no clock; precedence is first match wins.
import type { Task } from '../contracts/state-file.js';
import type { Observation } from '../observe/parse/observation.js';
import type { DisagreementKind, StallReason, VerdictKind } from '../contracts/vocabulary.js';
import { derived, repeatedError, trailingRepeat } from './observation-window.js';
import type { Policy } from './policy.js';
import { unobservedSince } from './unobserved.js';
import { msToIso } from '../contracts/time.js';
import { stillRunning } from './terminal-watch.js';
import { telemetryPartition } from './partition.js';
import { lostWake, lostWakeWhy } from './lost-wake.js';
import { idleBeside, makeVerdict, maxDefined, ownRows, sec, silentModelCause, statusGuess, waitingOn, waitingOnTeam } from './verdict.js';
import type { Timing, Verdict, WaveContext } from './verdict.js';

// The verdict's shape and helpers live in core/verdict.ts; importers keep reading them from here.
export { idleBeside, stallReasonOf, statusGuess, type Verdict, type WaveContext } from './verdict.js';

/** How much later than a row pid's end progress must be stamped to refute it (the agent's clock against the probe's). @defaultValue 2000 */
export const ROW_PID_END_SLACK_MS = 2000;

/** An end concluded from the row's pid alone, with progress stamped after it: someone still writes for the agent. */
function isRefutedRowPidEnd(obs: Observation): boolean {
  const end = obs.runEnded;
  if (!end?.isRowPidOnly || end.atMs === undefined) return false;
  const progressAt = maxDefined(obs.lastProgressMs, obs.outputGrewAtMs);
  return progressAt !== undefined && progressAt > end.atMs + ROW_PID_END_SLACK_MS;
}

/** Judge one task. `nowMs` is injected; the same inputs always give the same verdict. */
export function assess(task: Task, obs: Observation, policy: Policy, nowMs: number, wave: WaveContext = {}): Verdict {
  const d = derived(obs, policy);
  const window = d.window;
  const verdict = (kind: VerdictKind, reason: string, extra?: Partial<Verdict>): Verdict => makeVerdict(task, obs, window, kind, reason, extra, undefined);
  // A verdict with a deadline: its times are fields of the verdict as built, not added after.
  const timed = (kind: VerdictKind, reason: string, timing: Timing, extra?: Partial<Verdict>): Verdict =>
    makeVerdict(task, obs, window, kind, reason, extra, timing);

  // 1-2. Status decides first.
  if (task.statusClass === 'terminal') {
    // Its agent still at work past the row's end: a question for the owner (never acted on).
    const running = stillRunning(task, obs, window.effectiveTimeoutMs, nowMs);
    if (running)
      return verdict('inconsistent', `the row says "${task.status}" but its agent is still running: ${running}`, {
        disagreement: { kind: 'agent_running', sinceMs: task.terminalSinceMs },
      });
    return verdict('terminal', `status "${task.status}" is terminal; not evaluated`);
  }
  if (task.statusClass === 'blocked') return verdict('blocked', 'status is blocked');
  if (task.statusClass === 'unknown') {
    const guess = statusGuess(task.status);
    const mean = guess ? `did you mean "${guess}"? ` : '';
    return verdict(
      'unknown',
      `status "${task.status}" is not one the watchdog knows (${mean}expected in_progress, running, dispatched, blocked or a terminal status): this agent is NOT watched`,
    );
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
    const stallReason: StallReason =
      f.kind === 'context_exhausted'
        ? 'context_exhausted'
        : f.kind === 'runtime_killed'
          ? 'runtime_killed'
          : f.kind === 'agent_died'
            ? 'agent_died'
            : f.kind === 'usage_limit' || f.kind === 'auth_failed'
              ? f.kind
              : 'api_gave_up';
    const what =
      f.kind === 'context_exhausted'
        ? 'the agent ran out of context'
        : f.kind === 'runtime_killed'
          ? `killed by ${obs.agentWords?.displayName ?? 'its CLI'}'s own stall watchdog`
          : f.kind === 'agent_died'
            ? 'the agent process died'
            : f.kind === 'usage_limit'
              ? 'the agent hit its usage limit'
              : f.kind === 'auth_failed'
                ? "the API refused the agent's credentials"
                : `the agent gave up on an API error (${f.kind.replaceAll('_', ' ')})`;
    const idleMs = f.atMs === undefined ? undefined : Math.max(0, nowMs - f.atMs);
    const transportCause = f.kind === 'overloaded' || f.kind === 'connection' || f.kind === 'rate_limit' ? f.kind : undefined;
    return verdict('stalled', `${what}: ${f.detail ?? 'no message'}`, {
      stallReason,
      idleMs,
      lastProgressMs: f.atMs,
      ...(transportCause ? { transportCause } : {}),
    });
  }

  // A finish inferred from a final answer holds only after a whole window of silence: until then
  // the text may be followed by a slow call, and the agent is judged as working.
  const quietSinceMs = maxDefined(obs.lastProgressMs, obs.outputGrewAtMs);
  const finished =
    obs.finished &&
    // A run that ended after the final answer makes that answer its end (a `-p` run exits when done).
    (!obs.finished.isInferred ||
      obs.runEnded ||
      (quietSinceMs !== undefined && nowMs - quietSinceMs - unobservedSince(wave.unobserved, quietSinceMs, nowMs) > window.effectiveTimeoutMs))
      ? obs.finished
      : undefined;

  // A replacement we launched ourselves has no orchestrator row to disagree with: its finish is the end.
  if (task.isOwnReplacement && finished) {
    return verdict('terminal', `the agent finished (${finished.kind})${task.hasExited ? ' and its process exited' : ''}`);
  }

  // 3. Truth that contradicts itself is reported, never acted on.
  if (finished) {
    const kind: DisagreementKind = finished.kind.startsWith('parent transcript') ? 'result_delivered' : 'agent_finished';
    return verdict('inconsistent', `agent finished (${finished.kind}) but the row still says "${task.status}"`, {
      disagreement: { kind, ...(finished.atMs !== undefined ? { sinceMs: finished.atMs } : {}) },
    });
  }
  // Three stamps, checked without building a list of them (assess runs for every task every check).
  const future = isFuture(obs.lastProgressMs, nowMs, policy)
    ? (['last activity', obs.lastProgressMs!] as const)
    : isFuture(task.dispatchedAtMs, nowMs, policy)
      ? (['dispatched_at', task.dispatchedAtMs!] as const)
      : isFuture(obs.outputGrewAtMs, nowMs, policy)
        ? (['output growth', obs.outputGrewAtMs!] as const)
        : undefined;
  if (future) return verdict('inconsistent', `${future[0]} is ${sec(future[1] - nowMs)} in the future (clock skew or a bad timestamp)`);
  if (obs.contradictions.length > 0) return verdict('inconsistent', obs.contradictions.join('; '), { disagreement: { kind: 'foreign_transcript' } });

  // 4''. The run that ran the agent ended before it finished (SessionEnd): dead at once, not a
  // window later. A lead whose child has a row of its own is deferred to that row even then: one
  // action per failure (the child's row is orphaned by the same end). An end read from the row's
  // own pid alone is refuted by progress stamped after it: that pid was a wrapper's, which exited
  // while its agent works on (the agent is then judged on its evidence, as any other).
  if (obs.runEnded && !isRefutedRowPidEnd(obs)) {
    const at = maxDefined(obs.lastProgressMs, obs.outputGrewAtMs) ?? task.dispatchedAtMs;
    const idle = at === undefined ? {} : { idleMs: Math.max(0, nowMs - at), lastProgressMs: at };
    const children = obs.waitingOnChildren;
    const childRows = children ? ownRows(children.agentIds, task.taskId, wave) : [];
    if (childRows.length > 0) {
      return verdict(
        'healthy',
        `its run ended (${obs.runEnded.detail}) while ${waitingOn(children!)}: ${childRows.map(([a, t]) => `${a} is row ${t}`).join(', ')}, judged and recovered on its own (one action for one failure); this task is judged again once that row is no longer in flight`,
        idle,
      );
    }
    const orphan = children
      ? `; ${waitingOn(children)}, which died with it`
      : task.agentId !== undefined && task.agentId !== task.sessionId
        ? '; a subagent dies with its session'
        : '';
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
      return timed(
        'stalled',
        `never started: no activity in ${idleBeside(idleMs, window.effectiveTimeoutMs)} since dispatch (window ${sec(window.effectiveTimeoutMs)}); looked in: ${missingNote}`,
        timing,
        { stallReason: 'never_started' },
      );
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
  const unseenNote =
    unseenMs > 0
      ? `; ${sec(unseenMs)} of it the watchdog did not see pass (it woke late: the machine paused or the clock stepped), so ${sec(judgedMs)} of silence is judged`
      : '';
  if (judgedMs > window.effectiveTimeoutMs) {
    const q = obs.queuedUnconsumed;
    const isQueueStuck = q !== undefined && !obs.lastTool?.isOpen && !obs.waitingOnChildren && !obs.waitingOnTeam;
    // Every background child answered and none woke the agent: a lost wake, never the children's stall.
    const wake = lostWake(obs.waitingOnChildren);
    const stallReason: StallReason =
      progressAt === undefined
        ? 'never_started'
        : window.isOpenOverrun(judgedMs)
          ? 'open_tool_overrun'
          : isQueueStuck
            ? 'queue_unconsumed'
            : wake
              ? 'wake_lost'
              : 'inactivity';
    if (stallReason === 'open_tool_overrun' && obs.isProcessAlive === true && obs.canWaitOnHuman !== false) {
      // Past its own timeout with the agent's process alive: its CLI is waiting on a prompt (the harness says how to see it).
      const hint = obs.agentWords ? ` (${obs.agentWords.hiddenPromptHint})` : '';
      return timed(
        'waiting_human',
        `${obs.lastTool?.name} call open ${sec(idleMs)}, past its own timeout, and the agent's process is alive: most likely a permission prompt${hint}`,
        timing,
      );
    }
    const partition = stallReason !== 'never_started' ? telemetryPartition(obs, nowMs, window.effectiveTimeoutMs) : undefined;
    if (partition) {
      // Missing telemetry never kills while its host is silent too: the network may be down, not the agent.
      return timed(
        'unknown',
        `no progress for ${sec(idleMs)}, but ${partition}: a network partition looks the same as a stall, so none is concluded; not acted on (docs/fleet.md, partitions)${note}`,
        timing,
      );
    }
    if (stallReason === 'inactivity' && obs.waitingOnTeam && !isGone) {
      // The watchdog cannot see teammates at work (separate transcripts): never a stall while one
      // runs. A lead whose process is gone can no longer be woken (in-process teammates died with it).
      return verdict(
        'healthy',
        `${waitingOnTeam(obs.waitingOnTeam)}, idle ${sec(idleMs)}: their transcripts are not read, so their silence is not judged; the lead is judged again when they message it or shut down${note}`,
        { idleMs, lastProgressMs: sinceMs },
      );
    }
    const children = obs.waitingOnChildren;
    const childRows = children && stallReason === 'inactivity' ? ownRows(children.agentIds, task.taskId, wave) : [];
    const unseen = children?.unseenIds?.filter((id) => !wave.rowOfAgent?.has(id));
    if (stallReason === 'inactivity' && children && unseen?.length && !isGone) {
      // Missing evidence never kills: the child may be at work where the watchdog cannot look.
      const ids = unseen;
      return timed(
        'unknown',
        `${waitingOn(children)}, idle ${sec(idleMs)}: no transcript found for ${ids.join(', ')}, so its silence cannot be judged; not acted on (a row of its own is judged on its own evidence)${note}`,
        timing,
        { unobservedChildren: ids },
      );
    }
    if (childRows.length > 0) {
      // The child it waits on has a row of its own, judged and recovered there: acting on this
      // parent too would act twice on one stall (killing a lead kills its foreground child).
      return verdict(
        'healthy',
        `${waitingOn(children!)}, idle ${sec(idleMs)}: ${childRows.map(([a, t]) => `${a} is row ${t}`).join(', ')}, judged and recovered on its own; this task is judged again once that row is no longer in flight${note}`,
        { idleMs, lastProgressMs: sinceMs },
      );
    }
    const why =
      stallReason === 'never_started'
        ? `no activity since dispatch ${idleBeside(idleMs, window.effectiveTimeoutMs)} ago`
        : stallReason === 'open_tool_overrun'
          ? `${obs.lastTool?.name} call open ${idleBeside(idleMs, window.effectiveTimeoutMs)}, past its own timeout plus grace${obs.isProcessAlive === false ? '; the agent process is gone' : ''}`
          : stallReason === 'queue_unconsumed'
            ? `idle ${idleBeside(idleMs, window.effectiveTimeoutMs)} with nothing open while ${q!.detail} queued for it${q!.sinceMs !== undefined ? ` ${sec(Math.max(0, nowMs - q!.sinceMs))} ago` : ''} was never consumed (enqueued, never dequeued: a wake that never landed)`
            : wake && stallReason === 'wake_lost'
              ? lostWakeWhy(wake, idleBeside(idleMs, window.effectiveTimeoutMs), nowMs)
              : children
                ? `no progress for ${idleBeside(idleMs, window.effectiveTimeoutMs)}: ${waitingOn(children)}, which stalled${children.unseenIds ? ` (no transcript found for ${children.unseenIds.join(', ')})` : ''}`
                : `no progress for ${idleBeside(idleMs, window.effectiveTimeoutMs)}`;
    const exited = task.hasExited ? '; its process exited without finishing' : '';
    const transportCause = stallReason === 'inactivity' && !task.hasExited ? silentModelCause(obs) : undefined;
    return timed(
      'stalled',
      `${why} (window ${sec(window.effectiveTimeoutMs)}${unseenNote})${exited}${note}`,
      timing,
      transportCause ? { stallReason, transportCause } : { stallReason },
    );
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

const isFuture = (at: number | undefined, nowMs: number, policy: Policy) => at !== undefined && at - nowMs > policy.futureSkewMs;
