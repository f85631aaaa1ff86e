// A root-cause hypothesis and a recommended action from a ticket's stall pattern (DESIGN §9).
// Pure: no I/O. The most specific evidence wins; the order of RULES is the precedence.
import type { StallRecord } from './stall-history.js';

/** The stall patterns the hypothesis distinguishes. */
export type HypothesisKind =
  | 'dispatch_environment'
  | 'looping'
  | 'hanging_command'
  | 'provider_capacity'
  | 'context_exhausted'
  | 'stuck_on_step'
  | 'context_or_dependency';

/** A hypothesis with its recommended action. */
export interface Hypothesis {
  kind: HypothesisKind;
  /** Markdown for "## Root Cause Hypothesis". */
  text: string;
  /** Markdown for "## Recommended Action". */
  action: string;
}

type Rule = (h: readonly StallRecord[], ticketId: string) => Hypothesis | undefined;

const count = (h: readonly StallRecord[], p: (r: StallRecord) => boolean) => h.filter(p).length;
/** At least two, and at least half of all stalls. */
const isRepeated = (n: number, total: number) => n >= 2 && n * 2 >= total;
const of = (n: number, total: number) => (n === total ? `all ${total}` : `${n} of ${total}`);

const RULES: Rule[] = [
  (h, t) => {
    if (h.length === 0 || count(h, (r) => r.stallReason === 'never_started') !== h.length) return undefined;
    return {
      kind: 'dispatch_environment',
      text: `The agent never showed any activity in ${of(h.length, h.length)} attempts. The dispatch or its environment is failing (the agent was not launched, crashed at start, lacks credentials or runs in the wrong directory), not the work itself.`,
      action: `Launch one agent for ${t} by hand with the same command and read its first transcript lines and stderr. Fix the launch or environment, then move ${t} out of Blocked to dispatch it again.`,
    };
  },
  (h, t) => {
    const n = count(h, (r) => r.stallReason === 'looping');
    if (!isRepeated(n, h.length)) return undefined;
    return {
      kind: 'looping',
      text: `The agent repeated the same tool call in ${of(n, h.length)} stalls: it retries an action that keeps failing instead of changing approach. The task probably lacks information the agent needs to get past that step.`,
      action: `Read the repeated call and its error in the last transcript, then add the missing information (the exact failing input, a file path, a decision) to ${t} or split the step out, and move it out of Blocked.`,
    };
  },
  (h, t) => {
    const n = count(h, (r) => r.stallReason === 'open_tool_overrun' && r.lastTool === 'Bash');
    if (!isRepeated(n, h.length)) return undefined;
    return {
      kind: 'hanging_command',
      text: `In ${of(n, h.length)} stalls a Bash command ran past its own timeout: a command hangs (an interactive prompt, a network call or a lock that never returns).`,
      action: `Find the last Bash command in the transcripts of ${t} and run it by hand. Make it non-interactive or give it a timeout (or run it in the background), then move ${t} out of Blocked.`,
    };
  },
  (h, t) => {
    const n = count(h, (r) => r.stallReason === 'context_exhausted');
    if (!isRepeated(n, h.length)) return undefined;
    return {
      kind: 'context_exhausted',
      text: `The agent ran out of context ("Prompt is too long") in ${of(n, h.length)} stalls, even with the narrowed recovery prompt: the task needs more reading than one context holds.`,
      action: `Split ${t} into smaller tickets (one module or one step each), or name the exact files and lines to change, then move it out of Blocked.`,
    };
  },
  (h, t) => {
    const n = count(h, (r) => r.stallReason === 'api_gave_up' || r.exemptions.includes('rate_limit'));
    if (!isRepeated(n, h.length)) return undefined;
    return {
      kind: 'provider_capacity',
      text: `The model provider was rate-limiting, retrying or failing (API errors the agent gave up on) in ${of(n, h.length)} stalls: provider capacity, not the task, stopped the agent.`,
      action: `Lower the wave's concurrency or wait for the provider's quota to recover, then move ${t} out of Blocked; the task itself may be fine.`,
    };
  },
  (h, t) => {
    const tool = h[0]?.lastTool;
    if (h.length < 2 || !tool || h.some((r) => r.lastTool !== tool)) return undefined;
    return {
      kind: 'stuck_on_step',
      text: `Every stall (${h.length}) ended on the same tool, \`${tool}\`: the agent is stuck on one step of the task.`,
      action: `Look at what the agent was doing with \`${tool}\` at the end of each transcript of ${t}; make that step explicit in the ticket (or do it by hand), then move ${t} out of Blocked.`,
    };
  },
];

const FALLBACK = (h: readonly StallRecord[], t: string): Hypothesis => ({
  kind: 'context_or_dependency',
  text:
    h.length === 0
      ? 'No stall details were recorded, so there is no pattern to read. The usual causes are context exhaustion or a blocking dependency.'
      : `The agent went quiet ${h.length === 1 ? 'once' : `${h.length} times`} with no common tool, open command or rate limit: likely context exhaustion (a long session loses track of the task) or a blocking dependency (waiting on other work, a review or a missing input).`,
  action: `Manual investigation required. Check whether ${t} depends on unfinished work; if not, split it into smaller tickets that each fit one agent session, then move it out of Blocked.`,
});

/** The hypothesis for a stall history (first matching rule, else context exhaustion / dependency). */
export function hypothesizeRootCause(history: readonly StallRecord[], ticketId: string): Hypothesis {
  for (const rule of RULES) {
    const h = rule(history, ticketId);
    if (h) return h;
  }
  return FALLBACK(history, ticketId);
}
