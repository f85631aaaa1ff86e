// A root-cause hypothesis and a recommended action from a ticket's stall pattern (DESIGN §9).
// Pure: no I/O. The most specific evidence wins; the order of RULES is the precedence.
import type { StallRecord } from './stall-history.js';
import { allHarnesses } from '../../agents/harnesses.js';

/** A tool that runs shell commands in some agent CLI (`Bash`, `exec_command`): its harness says so. */
function isShellTool(name: string): boolean {
  return allHarnesses().some((h) => h.classifyTool({ name }).kind === 'shell');
}

/** The stall patterns the hypothesis distinguishes. */
export type HypothesisKind =
  | 'mass_stall'
  | 'dispatch_environment'
  | 'looping'
  | 'hanging_command'
  | 'provider_capacity'
  | 'usage_limit'
  | 'auth_failed'
  | 'context_exhausted'
  | 'stuck_on_step'
  | 'api_hang'
  | 'context_or_dependency';

/** A hypothesis with its recommended action. */
export interface Hypothesis {
  kind: HypothesisKind;
  /** Markdown for "## Root Cause Hypothesis". */
  text: string;
  /** Markdown for "## Recommended Action". */
  action: string;
}

/**
 * Where the ticket stands, so the advice says only what is true: "move it out of Blocked" for a
 * ticket that is Blocked, the tracker's skip as a skip, and nothing to undo for one that recovered.
 */
export interface TicketStanding {
  /** `blocked`: escalated and moved to Blocked; `tracker_skipped`: escalated, the tracker never touched; `recovered`: never escalated. @defaultValue 'blocked' */
  state: 'blocked' | 'tracker_skipped' | 'recovered';
  /** The instance that took over last (`t1-r1`), for a recovered ticket. */
  replacement?: string;
}

type Rule = (h: readonly StallRecord[], ticketId: string, then: string) => Hypothesis | undefined;

/** How each action ends: the step back into the wave that the ticket's standing calls for. */
function thenStep(t: string, s: TicketStanding): string {
  if (s.state === 'blocked') return `then move ${t} out of Blocked`;
  if (s.state === 'tracker_skipped') return `then dispatch ${t} again (the tracker step was skipped: it was never moved to Blocked)`;
  return `before ${t} is dispatched again`;
}

const count = (h: readonly StallRecord[], p: (r: StallRecord) => boolean) => h.filter(p).length;
/** At least two, and at least half of all stalls. */
const isRepeated = (n: number, total: number) => n >= 2 && n * 2 >= total;
const of = (n: number, total: number) => (n === total ? `all ${total}` : `${n} of ${total}`);

/** The call was still running when the silence was judged (an open call's exemption, or past its own timeout). */
const isOpenAtStall = (r: StallRecord) => r.stallReason === 'open_tool_overrun' || r.exemptions.includes('open_tool_call');

const RULES: Rule[] = [
  (h, t, then) => {
    // The newest stall was the plan's usage limit: escalated at once, not after the redispatch limit.
    if (h.at(-1)?.stallReason !== 'usage_limit') return undefined;
    return {
      kind: 'usage_limit',
      text: `The agent's account hit its usage limit: it stopped at once and a replacement would hit the same wall, so it was escalated without a redispatch. Nothing points at the task.`,
      action: `Wait for the usage limit to reset, raise the plan or buy credits (or run ${t} under another account), ${then}.`,
    };
  },
  (h, _t, then) => {
    // The newest stall was the API refusing the agent's credentials: escalated at once too.
    if (h.at(-1)?.stallReason !== 'auth_failed') return undefined;
    return {
      kind: 'auth_failed',
      text: `The API refused the agent's credentials (HTTP 401/403: an API key revoked or mistyped, a login expired): it stopped at once and a replacement would be refused the same way, so it was escalated without a redispatch. Nothing points at the task.`,
      action: `Fix the agents' credentials (the API key in their environment, or the agent CLI's login on the machine that runs them), ${then}.`,
    };
  },
  (h, t, then) => {
    const n = count(h, (r) => r.isMassStall === true);
    if (n === 0 || n * 2 < h.length) return undefined;
    return {
      kind: 'mass_stall',
      text: `${n === h.length ? (n === 1 ? 'The stall' : `All ${n} stalls`) : `${n} of ${h.length} stalls`} happened in a mass stall: much of the wave went silent at once (the circuit breaker held actions). The host (load, memory, sleep), the network or the model provider stopped every agent together; nothing points at this task.`,
      action: `Look at what the machine and the provider were doing at ${h.find((r) => r.isMassStall)!.detectedAt} (load, sleep, network, provider status), not at ${t}'s scope; ${then.replace(/^then /, '')} once that is fixed.`,
    };
  },
  (h, t, then) => {
    // An attempt that never started ran out of nothing (no context, no tool): its launch failed.
    const n = count(h, (r) => r.stallReason === 'never_started');
    if (h.length === 0 || (n !== h.length && !isRepeated(n, h.length))) return undefined;
    const which =
      n === h.length
        ? ''
        : ` (${h
            .filter((r) => r.stallReason === 'never_started')
            .map((r) => r.taskId)
            .join(', ')}; the others went quiet after starting)`;
    return {
      kind: 'dispatch_environment',
      text: `The agent never showed any activity in ${of(n, h.length)} attempts${which}. The dispatch or its environment is failing (the agent was not launched, crashed at start, lacks credentials or runs in the wrong directory), not the work itself.`,
      action: `Launch one agent for ${t} by hand with the same command and read its first transcript lines and stderr. Fix the launch or environment, ${then}.`,
    };
  },
  (h, t, then) => {
    const n = count(h, (r) => r.stallReason === 'looping');
    if (!isRepeated(n, h.length)) return undefined;
    return {
      kind: 'looping',
      text: `The agent repeated the same tool call in ${of(n, h.length)} stalls: it retries an action that keeps failing instead of changing approach. The task probably lacks information the agent needs to get past that step.`,
      action: `Read the repeated call and its error in the last transcript, then add the missing information (the exact failing input, a file path, a decision) to ${t} or split the step out, ${then}.`,
    };
  },
  (h, t, then) => {
    const hung = h.filter((r) => r.stallReason === 'open_tool_overrun' && r.lastTool !== undefined && isShellTool(r.lastTool));
    const n = hung.length;
    if (!isRepeated(n, h.length)) return undefined;
    const tools = [...new Set(hung.map((r) => r.lastTool))].join(', ');
    return {
      kind: 'hanging_command',
      text: `In ${of(n, h.length)} stalls a shell command (${tools}) ran past its own timeout: a command hangs (an interactive prompt, a network call or a lock that never returns).`,
      action: `Find the last shell command in the transcripts of ${t} and run it by hand. Make it non-interactive or give it a timeout (or run it in the background), ${then}.`,
    };
  },
  (h, t, then) => {
    const n = count(h, (r) => r.stallReason === 'context_exhausted');
    if (!isRepeated(n, h.length)) return undefined;
    return {
      kind: 'context_exhausted',
      text: `The agent ran out of context ("Prompt is too long") in ${of(n, h.length)} stalls, even with the narrowed recovery prompt: the task needs more reading than one context holds.`,
      action: `Split ${t} into smaller tickets (one module or one step each), or name the exact files and lines to change, ${then}.`,
    };
  },
  (h, t, then) => {
    const n = count(h, (r) => r.stallReason === 'api_gave_up' || r.exemptions.includes('rate_limit'));
    if (!isRepeated(n, h.length)) return undefined;
    return {
      kind: 'provider_capacity',
      text: `The model provider was rate-limiting, retrying or failing (API errors the agent gave up on) in ${of(n, h.length)} stalls: provider capacity, not the task, stopped the agent.`,
      action: `Lower the wave's concurrency or wait for the provider's quota to recover, ${then}; the task itself may be fine.`,
    };
  },
  (h, t, then) => {
    const tool = h[0]?.lastTool;
    // Only a call still open at the stall is a step the agent was stuck on (see api_hang below).
    if (h.length < 2 || !tool || h.some((r) => r.lastTool !== tool || !isOpenAtStall(r))) return undefined;
    return {
      kind: 'stuck_on_step',
      text: `Every stall (${h.length}) ended on the same tool, \`${tool}\`: the agent is stuck on one step of the task.`,
      action: `Look at what the agent was doing with \`${tool}\` at the end of each transcript of ${t}; make that step explicit in the ticket (or do it by hand), ${then}.`,
    };
  },
  (h, t, then) => {
    // Silent after its last call had returned: the agent was waiting on the model, not on a tool.
    // A stall resumed for its transport cause was judged one by the watchdog (a frozen first request has no tool).
    const n = count(h, (r) => r.isResumed === true || (r.stallReason === 'inactivity' && !isOpenAtStall(r) && r.lastTool !== undefined));
    if (!isRepeated(n, h.length) && !(h.length > 0 && h.every((r) => r.isResumed))) return undefined;
    const tools = [...new Set(h.map((r) => r.lastTool).filter(Boolean))].map((x) => `\`${x}\``).join(', ');
    const after = tools ? `after its last tool call (${tools}) had returned` : 'with no tool call open';
    return {
      kind: 'api_hang',
      text: `${h.length === 1 ? 'The agent' : `In ${of(n, h.length)} stalls the agent`} went silent ${after}: it was waiting on the model's next response (a frozen stream, a silent retry, or a process that stopped), not on a tool.`,
      action: `Check the provider's status and the agent's network at those times; resuming the same session usually gets past a frozen stream. The task is probably fine: ${then.replace(/^then /, '')} as it is.`,
    };
  },
];

const FALLBACK = (h: readonly StallRecord[], t: string, then: string): Hypothesis => {
  // An attempt that never started is no session that lost track of its task: counted apart.
  const quiet = h.filter((r) => r.stallReason !== 'never_started').length;
  const unstarted = h.length - quiet;
  const times = (n: number) => (n === 1 ? 'once' : `${n} times`);
  return {
    kind: 'context_or_dependency',
    text:
      h.length === 0
        ? 'No stall details were recorded, so there is no pattern to read. The usual causes are context exhaustion or a blocking dependency.'
        : `The agent went quiet ${times(quiet)}${unstarted > 0 ? ` after starting (and ${unstarted === 1 ? 'one attempt' : `${unstarted} attempts`} never started)` : ''} with no common tool, open command or rate limit: likely context exhaustion (a long session loses track of the task) or a blocking dependency (waiting on other work, a review or a missing input).`,
    action: `Manual investigation required. Check whether ${t} depends on unfinished work; if not, split it into smaller tickets that each fit one agent session, ${then}.`,
  };
};

/** The hypothesis for a stall history (first matching rule, else context exhaustion / dependency). */
export function hypothesizeRootCause(history: readonly StallRecord[], ticketId: string, standing: TicketStanding = { state: 'blocked' }): Hypothesis {
  const then = thenStep(ticketId, standing);
  const found = RULES.map((rule) => rule(history, ticketId, then)).find(Boolean) ?? FALLBACK(history, ticketId, then);
  if (standing.state !== 'recovered') return found;
  // Never escalated: the watchdog's own recovery worked; say so before any advice.
  const by = standing.replacement ? `its replacement ${standing.replacement} took over with no stall since` : 'it went on with no stall since';
  return { ...found, action: `Nothing to undo: ${ticketId} was never escalated (${by}). If it keeps stalling: ${found.action}` };
}
