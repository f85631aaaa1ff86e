// The Linear escalation comment and the idempotency key it carries (DESIGN §8, §9). Pure.
// The key is written twice: as a visible footer in inline code and as a trailing HTML comment.
// Either one is enough to recognise the comment, so a tracker that strips HTML comments from
// markdown still leaves a marker a retry can find.
import { DEFAULTS } from '../../contracts/defaults.js';
import { hypothesizeRootCause } from '../friction/friction-hypothesis.js';
import { renderStallTable, unloggedStallsLine, type StallRecord } from '../friction/stall-history.js';

/** What the escalation comment says. */
export interface EscalationCommentInput {
  ticketId: string;
  /** Agent runs of the ticket, first dispatch included. */
  attempts: number;
  history: readonly StallRecord[];
  /** The friction note, relative to the watchdog's state dir. */
  frictionPath: string;
  /** The escalation's idempotency key `<epic>:<task_id>:escalate`. */
  key: string;
  /** @defaultValue "Blocked" */
  stateName?: string;
}

/** `dispatch-watchdog:<key>`: the text a comment must contain to count as this escalation's. */
export function commentKeyText(key: string): string {
  return `dispatch-watchdog:${key}`;
}

/** The trailing HTML comment that marks a comment as posted for `key`. */
export function commentMarker(key: string): string {
  return `<!-- ${commentKeyText(key)} -->`;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** True when `body` carries `key` (visible footer or HTML comment); `e:t1` never matches `e:t1-r1`. */
export function hasCommentKey(body: string, key: string): boolean {
  return new RegExp(`${escapeRegExp(commentKeyText(key))}(?![A-Za-z0-9._@:-])`).test(body);
}

/** `body` with the key footer and marker appended, unless it already carries the key. */
export function withCommentKey(body: string, key: string): string {
  if (hasCommentKey(body, key)) return body;
  return `${body.trimEnd()}\n\n_Posted by dispatch-watchdog · key \`${commentKeyText(key)}\`_\n${commentMarker(key)}\n`;
}

/**
 * Why the ticket was moved to Blocked: a wall a replacement would meet too, in the agent's own words
 * (the usage limit's reset is what the person needs to know), or the redispatch limit.
 */
function whyBlocked(last: StallRecord | undefined): string {
  // The reason is "<what>: <the agent's words>"; the what is said here already.
  const said = last?.reason
    ?.slice(last.reason.indexOf(': ') + 2)
    .replace(/\s+/g, ' ')
    .trim();
  const words = said ? ` (${said})` : '';
  if (last?.stallReason === 'usage_limit') return `the agent hit its usage limit, and a replacement would hit the same wall${words}.`;
  if (last?.stallReason === 'auth_failed') return `the API refused the agent's credentials, and a replacement would be refused the same way${words}.`;
  return 'every attempt stalled and the redispatch limit is reached.';
}

/** The comment added to the Linear issue when it is moved to Blocked. */
export function renderEscalationComment(input: EscalationCommentInput): string {
  const { ticketId: t, history } = input;
  const hypothesis = hypothesizeRootCause(history, t);
  const n = input.attempts;
  const body = [
    // The seed's own sentence first (seeds/dispatch-watchdog.md), then our detail.
    `Auto-blocked: agent stalled ${n} time${n === 1 ? '' : 's'}. Requires manual investigation. See dispatch log.`,
    '',
    `dispatch-watchdog moved ${t} to **${input.stateName ?? DEFAULTS.linear.blocked_state}**: ${whyBlocked(history.at(-1))}`,
    '',
    ...(unloggedStallsLine(n, history) !== undefined ? [unloggedStallsLine(n, history)!, ''] : []),
    history.length > 0 ? renderStallTable(history) : '_No stall events were found in the dispatch log._',
    '',
    `**Root cause hypothesis:** ${hypothesis.text}`,
    '',
    `**Recommended action:** ${hypothesis.action}`,
    '',
    // A Linear reader cannot open the watchdog's files: the note's facts are above; the key finds the rest.
    `The friction note on the watchdog's host (\`${input.frictionPath}\`) holds this same history; its dispatch-log lines carry the key below.`,
  ].join('\n');
  return withCommentKey(body, input.key);
}
