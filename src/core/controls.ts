// The seed's other control actions (DESIGN §8 "Resume, nudge, reconcile, attention"): which
// recovery a stall gets (resume the agent's own session, or a fresh agent), and the settings they
// read. Pure: plain data in, plain data out.
import type { WatchdogConfig } from '../contracts/config.js';
import { DEFAULTS } from '../contracts/defaults.js';
import { ADAPTER_TRAITS, type AdapterName, type RecoveryMode, type TransportCause } from '../contracts/vocabulary.js';
import type { Task } from '../contracts/state-file.js';
import type { Verdict } from './assess.js';
import type { History } from './history.js';

/** The control settings the planner reads (config `recovery`, `attention`; adapter capabilities). */
export interface ControlOptions {
  /** Transport causes recovered by resuming the agent's own session. @defaultValue DEFAULTS.recovery.resume_on */
  resumeOn: readonly TransportCause[];
  /** The adapter can carry a resume out: the request-only adapters by request, process and command with agents.resume_argv. */
  canResume: boolean;
  /** Agent CLIs whose rows the adapter resumes even without agents.resume_argv (the process adapter has a default resume template of their own). */
  resumableAgents?: ReadonlySet<string>;
  /** The adapter, for where a nudge can land (core/plan-controls.ts nudgeRoute). */
  adapter: AdapterName;
  /** Nudge an agent between turns whose row is still in progress, once. @defaultValue true */
  isNudgeOn: boolean;
  /** A nudge's grace window. @defaultValue the base window */
  nudgeGraceMs: number;
  /** How long a row and its agent may disagree before a nudge or a reconcile request. @defaultValue the base window */
  reconcileGraceMs: number;
  /** A human wait this long makes `next` return attention. @defaultValue 1800000 */
  humanWaitLimitMs: number;
  /** An agent unobservable this long makes `next` return attention. @defaultValue 5 base windows */
  unobservableAfterMs: number;
}

/** Config + adapter (+ the base window from --timeout) → ControlOptions. */
export function resolveControls(
  config: WatchdogConfig,
  adapter: AdapterName,
  timeoutSeconds = config.timeout_seconds ?? DEFAULTS.timeout_seconds,
): ControlOptions {
  const { launchesItself } = ADAPTER_TRAITS[adapter];
  const r = config.recovery ?? {};
  const a = config.attention ?? {};
  const windowMs = timeoutSeconds * 1000;
  return {
    resumeOn: r.resume_on ?? DEFAULTS.recovery.resume_on,
    canResume: !launchesItself || Boolean(config.agents?.resume_argv),
    adapter,
    isNudgeOn: r.nudge ?? DEFAULTS.recovery.nudge,
    nudgeGraceMs: r.nudge_grace_seconds !== undefined ? r.nudge_grace_seconds * 1000 : DEFAULTS.recovery.nudge_grace_windows * windowMs,
    reconcileGraceMs: r.reconcile_grace_seconds !== undefined ? r.reconcile_grace_seconds * 1000 : DEFAULTS.recovery.reconcile_grace_windows * windowMs,
    humanWaitLimitMs: (a.human_wait_seconds ?? DEFAULTS.attention.human_wait_seconds) * 1000,
    unobservableAfterMs: a.unobservable_seconds !== undefined ? a.unobservable_seconds * 1000 : DEFAULTS.attention.unobservable_windows * windowMs,
  };
}

/** The settings when nothing is configured (mailbox adapter, the default window). */
export const DEFAULT_CONTROLS: ControlOptions = resolveControls({}, 'mailbox');

/**
 * How to recover a stalled task: `resume` when its cause is transport (listed in resume_on), its
 * session is known and the adapter can resume it, and the ticket's last recovery was not already a
 * resume (a second stall in a row means the context is not the problem's cure); else `fresh`.
 */
export function recoveryModeOf(v: Verdict, task: Task, history: History, c: ControlOptions): RecoveryMode {
  const canResume = c.canResume || (task.agent !== undefined && c.resumableAgents?.has(task.agent) === true);
  if (!v.transportCause || !c.resumeOn.includes(v.transportCause) || !canResume) return 'fresh';
  if (!task.sessionId) return 'fresh';
  return history.lastRecoveryMode.get(v.ticketId) === 'resume' ? 'fresh' : 'resume';
}

/** Why a session's context is sound, per cause; `cli` is the agent CLI's name in prose (its harness's displayName). */
const CAUSE_TEXT: Record<TransportCause, (cli: string) => string> = {
  frozen_stream: () => 'the response stream from the API stopped mid-answer',
  overloaded: (cli) => `the API was overloaded and ${cli} gave up retrying`,
  connection: (cli) => `the connection to the API was lost and ${cli} gave up retrying`,
  rate_limit: (cli) => `the API rate limit held past ${cli}'s retries`,
};

/**
 * The prompt a resumed session gets: short, since the whole conversation is still there.
 * `agentName`: the CLI's name in prose (agents/harness.ts HarnessWording.displayName).
 */
export function renderResumePrompt(r: { ticketId: string; cause?: TransportCause; checkpointPath?: string; agentName?: string }): string {
  const why = r.cause ? CAUSE_TEXT[r.cause](r.agentName ?? 'the agent') : 'the previous request was interrupted';
  return (
    `Continue where you left off on ${r.ticketId}: the previous request was interrupted (${why}); ` +
    'your conversation and work so far are intact. Do not start over: check what is already done, then finish the remaining work.' +
    (r.checkpointPath ? ` (The watchdog's checkpoint of this ticket is ${r.checkpointPath}.)` : '')
  );
}
