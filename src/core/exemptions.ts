// The exemption rules (docs/verdicts.md): each condition that legitimately widens a task's stall
// window, the policy keys it reads, and the window it asks for. Pure. The names are owned by
// contracts/vocabulary.ts; this record is total, so a new name does not compile without its rule.
import type { ExemptionName } from '../contracts/vocabulary.js';
import type { Observation } from '../observe/parse/observation.js';
import type { Policy } from './policy.js';
import { isCiPolling } from './ci-polling.js';

export interface ExemptionRule<K extends keyof Policy = keyof Policy> {
  /** The policy settings the rule reads (besides the base window). */
  reads: readonly K[];
  /** The window this exemption asks for when its condition holds, else undefined. */
  window(obs: Observation, policy: Pick<Policy, K | 'baseTimeoutMs'>): number | undefined;
}

const rule = <K extends keyof Policy>(r: ExemptionRule<K>): ExemptionRule => r;

/** The last call runs a shell command (its harness said so: ToolCall.kind). */
const isShell = (obs: Observation) => obs.lastTool?.kind === 'shell';
/** When the transcript or hooks can tell, a call that returned widens nothing; a row cannot tell (the seed's rule). */
const isRunning = (obs: Observation) => !obs.lastTool?.isOpenKnown || obs.lastTool.isOpen;

/**
 * When an open foreground call has overrun what its CLI allows it: its own timeout (or the CLI's
 * default) plus grace; undefined when nothing bounds it (a background call, no limit known).
 */
export function openCallLimitMs(obs: Observation, p: Pick<Policy, 'openToolGraceMs'>): number | undefined {
  const tool = obs.lastTool;
  if (!tool?.isOpen || tool.isBackground) return undefined;
  const own = tool.timeoutMs ?? tool.defaultTimeoutMs;
  return own === undefined ? undefined : own + p.openToolGraceMs;
}

/** One rule per exemption, in the order verdicts list them. */
export const EXEMPTION_RULES: { readonly [N in ExemptionName]: ExemptionRule } = {
  // A shell call's own limit (the onex skill's rule for a shell call's timeout, docs/verdicts.md): a
  // timeout of its own over bash_long_timeout, while it runs, gives that timeout plus grace; a
  // foreground call known open with a shorter limit (its own, or the CLI's default: Claude Code's
  // 120 s) gives that limit plus the moment its CLI takes to end the call and write the result
  // (shellLimitSettleMs), asked only when it widens the base: a build still inside its limit, or
  // one the CLI is ending at it, is never stalled, and past it a crash is flagged seconds later.
  bash_long_timeout: rule({
    reads: ['bashLongTimeoutMs', 'bashGraceMs', 'shellLimitSettleMs'],
    window: (obs, p) => {
      const tool = obs.lastTool;
      if (!isShell(obs) || !isRunning(obs)) return undefined;
      if (tool?.timeoutMs !== undefined && tool.timeoutMs > p.bashLongTimeoutMs) return Math.max(p.baseTimeoutMs, tool.timeoutMs + p.bashGraceMs);
      const own = tool?.isOpen && !tool.isBackground ? (tool.timeoutMs ?? tool.defaultTimeoutMs) : undefined;
      const limit = own === undefined ? undefined : own + p.shellLimitSettleMs;
      return limit !== undefined && limit > p.baseTimeoutMs ? limit : undefined;
    },
  }),
  // The API is backing off (or the row's output says so): the base window times the factor, and
  // at least the wait the retry record announces plus grace (a `retry-after` longer than that).
  // With a transcript, backoff is its retry records: model prose that says "retry" is not backoff.
  rate_limit: rule({
    reads: ['rateLimitPatterns', 'rateLimitFactor', 'openToolGraceMs'],
    window: (obs, p) => {
      const text = obs.isOutputTracked ? '' : (obs.lastOutput?.toLowerCase() ?? '');
      if (!obs.isApiRetrying && !p.rateLimitPatterns.some((x) => text.includes(x))) return undefined;
      const announced = obs.isApiRetrying && obs.apiRetryDelayMs !== undefined ? obs.apiRetryDelayMs + p.openToolGraceMs : 0;
      return Math.max(p.baseTimeoutMs * p.rateLimitFactor, announced);
    },
  }),
  // A shell command that waits on CI, while it runs: at least the CI polling window.
  ci_polling: rule({
    reads: ['ciPollingPatterns', 'ciPollingMs'],
    window: (obs, p) => {
      const tool = obs.lastTool;
      const command = tool?.command ?? (isShell(obs) ? tool?.inputSummary : undefined) ?? '';
      return isShell(obs) && isRunning(obs) && isCiPolling(command, p.ciPollingPatterns) ? p.ciPollingMs : undefined;
    },
  }),
  // A foreground tool call still open: its own timeout (the limit its CLI applies when it names none) plus grace.
  // A shell call with no timeout over bash_long_timeout of its own is bash_long_timeout's (its limit,
  // no grace: the seed's rule), unless its agent's process is known alive: then past its limit it is
  // most likely a permission prompt (a human wait: assess), never a stall in between.
  open_tool_call: rule({
    reads: ['openToolGraceMs', 'bashLongTimeoutMs'],
    window: (obs, p) => {
      const limit = openCallLimitMs(obs, p);
      if (limit === undefined) return undefined;
      const t = obs.lastTool?.timeoutMs;
      const isSeedShell = isShell(obs) && !(t !== undefined && t > p.bashLongTimeoutMs) && obs.isProcessAlive !== true;
      return isSeedShell ? undefined : limit;
    },
  }),
};
