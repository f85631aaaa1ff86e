// What assess derives from an observation alone (and the policy): its stall window, widened by
// every exemption that holds, and the loop patterns at the end of its calls. Pure; kept per
// observation object, since a steady check judges the same observation again at every moment.
import { EXEMPTION_NAMES, type ExemptionName } from '../contracts/vocabulary.js';
import type { Observation, ToolCall } from '../observe/parse/observation.js';
import { EXEMPTION_RULES, openCallLimitMs } from './exemptions.js';
import type { Policy } from './policy.js';

export interface Window {
  effectiveTimeoutMs: number;
  exemptions: ExemptionName[];
  hasShellTimeoutExemption: boolean;
  isOpenOverrun: (idleMs: number) => boolean;
}

/** The effective stall window: base, widened by every exemption that holds (largest wins). */
export function effectiveWindow(obs: Observation, policy: Policy): Window {
  const base = policy.baseTimeoutMs;
  let window = base;
  const exemptions: ExemptionName[] = [];
  const asked: Partial<Record<ExemptionName, number>> = {};
  for (const name of EXEMPTION_NAMES) {
    const w = EXEMPTION_RULES[name].window(obs, policy);
    if (w === undefined) continue;
    exemptions.push(name);
    asked[name] = w;
    window = Math.max(window, w);
  }
  // Past its own limit an open call has overrun, whether or not that limit widened the window (a short shell call's does not).
  const openLimit = asked.open_tool_call ?? openCallLimitMs(obs, policy) ?? Infinity;
  return {
    effectiveTimeoutMs: window,
    exemptions,
    hasShellTimeoutExemption: (asked.bash_long_timeout ?? 0) > base,
    isOpenOverrun: (idle) => idle > openLimit,
  };
}

/**
 * The call (and its input) repeated at the end of the sequence, and how often. Status polls never
 * count (ToolCall.isStatusPoll, from the harness: a team's task list, a background shell or task's
 * output): asking again while waiting is the agent waiting, not a loop (a real team lead polled
 * its task list 4 times in 6 s while its teammates worked, test/fixtures/real/).
 */
export function trailingRepeat(calls: readonly ToolCall[]): { call?: ToolCall; count: number } {
  const last = calls.at(-1);
  if (!last || last.isStatusPoll) return { count: 0 };
  const key = `${last.name}\u0000${last.inputSummary ?? ''}`;
  let count = 0;
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i]!;
    if (`${c.name}\u0000${c.inputSummary ?? ''}` !== key) break;
    count++;
  }
  return { call: last, count };
}

/**
 * The same error ending the sequence, counted over the calls in a row that failed with it: a
 * call that succeeded (or failed otherwise) ends the loop, so the agent moving on clears it.
 */
export function repeatedError(calls: readonly ToolCall[]): { error?: string; count: number } {
  const done = calls.filter((c) => !c.isOpen);
  const error = done.at(-1)?.error;
  if (!error) return { count: 0 };
  let count = 0;
  for (let i = done.length - 1; i >= 0 && done[i]!.error === error; i--) count++;
  return { error, count };
}

/**
 * What assess derives from an observation alone (and the policy), kept per observation object:
 * a steady check judges the same (reused, never mutated) observation again at every moment.
 */
export interface Derived {
  policy: Policy;
  window: Window;
  repeat?: ReturnType<typeof trailingRepeat>;
  err?: ReturnType<typeof repeatedError>;
}
const derivedOf = new WeakMap<Observation, Derived>();

export function derived(obs: Observation, policy: Policy): Derived {
  const d = derivedOf.get(obs);
  if (d?.policy === policy) return d;
  const fresh: Derived = { policy, window: effectiveWindow(obs, policy) };
  derivedOf.set(obs, fresh);
  return fresh;
}
