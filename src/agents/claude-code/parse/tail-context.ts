// When a transcript state folded from a tail alone (a lazy cold start) judges exactly as the
// state folded from the whole file would, so the bytes before the tail need not be read. Pure.
//
// The rule (docs/verdicts.md, cause 8). Let T be the tail's state, F the whole file's. The tail
// is enough when all of these hold; otherwise the reader reads back (once, bounded) first:
//
// 1. An assistant message began inside the tail (`isFresh`: a `message.id` other than the
//    first one read). Claude Code sends the API call that writes a message with the result of
//    every call before it, so no call opened before the tail is still open: T and F have the
//    same open calls (the same last tool, open-call, Bash and CI exemptions, `waiting_human`
//    for an open question or plan, waited-on subagents). Nothing after it may contradict this
//    (a result or a progress line for a call the tail never saw: `isSpoiled`).
// 2. From that message on, the newest records decide alike in T and F: the API give-up
//    (`failed`), a turn end (`finished`), API retries (`rate_limit`), whether output is tracked.
// 3. The loop rules look at the last calls only: the run of the same call and the run of the
//    same error must each be broken by a call opened in the tail after that message (or 20
//    such calls were read, the whole window), so the prefix cannot lengthen them.
// 4. The turn is not over: a turn that ended may wait on background agents launched before the
//    tail, which only the whole file's `tasks` know.
// 5. The tail's newest record is within the base window: what the prefix could still add
//    (earlier progress, an exemption, a final answer without turn-end records, which counts
//    only after a whole window of silence) can then only widen the window or leave the verdict
//    healthy. So the deadline from T is never later than the one from F, and at that deadline
//    this rule fails and the reader completes the state before judging.
//
// 6. A team lead's records (`teamName`) read without its `TeamCreate`: teammates spawned before
//    the tail (even before a turn boundary in it) hold the lead's finish (lacksTeamContext).
//
// Not covered (as with a read-back that stops at a turn boundary): facts that never expire and
// sit only before the tail, such as a transcript's identity fields missing from every record of
// the tail. A stream-json `result` record is not one of them: a run resumed into the same file
// clears it (its `system/init`, a prompt, or the agent's next record), and rule 1's message is
// such a record, so no `result` before a tail that vouches alone is still in force. One followed
// only by harness records (hook output, queued input, local commands) still is; a tail without
// a fresh message reads back to it.
import { lacksTeamContext, RECENT_CALLS_MAX, type TranscriptState } from './transcript-state.js';
import type { ToolCall } from '../../../observe/parse/observation.js';
import { turnOver } from './parse-transcript.js';

const key = (c: ToolCall) => `${c.name}\u0000${c.inputSummary ?? ''}`;

/** Length of the run at the end of `xs` whose elements match the last one's `f`. */
function trailingRun<T>(xs: readonly T[], f: (x: T) => string | undefined): number {
  const last = xs.at(-1);
  if (last === undefined) return 0;
  const want = f(last);
  let n = 0;
  for (let i = xs.length - 1; i >= 0 && f(xs[i]!) === want; i--) n++;
  return n;
}

/**
 * True when `s` holds enough context to be judged at `nowMs` as the whole file would be (always
 * true for a state that did not come from a tail alone). `baseTimeoutMs`: the base stall window.
 */
export function tailSuffices(s: TranscriptState, nowMs: number, baseTimeoutMs: number): boolean {
  // A team lead's teammates may have been spawned before the tail, even before a turn boundary in it.
  if (lacksTeamContext(s)) return false;
  const t = s.tail;
  if (!t) return true;
  if (!t.isFresh || t.isSpoiled) return false;
  if (s.lastEventMs === undefined || s.lastAssistantMs === undefined) return false;
  if (nowMs - s.lastEventMs > baseTimeoutMs) return false;
  // A turn that is over may wait on background agents launched before the tail (its `tasks`).
  if (turnOver(s) !== undefined) return false;
  if (t.callsSinceFresh >= RECENT_CALLS_MAX) return true;
  const fresh = t.callsSinceFresh;
  if (fresh === 0) return false;
  // The same call in a row (open calls count): the run must end inside the fresh calls.
  if (trailingRun(s.recent, key) >= fresh) return false;
  // The same error on consecutive finished calls: the newest finished call must be a fresh one,
  // and an error run must end inside them.
  const done = s.recent.filter((c) => !c.isOpen);
  const freshDone = s.recent.slice(-fresh).filter((c) => !c.isOpen).length;
  if (freshDone === 0) return false;
  if (done.at(-1)!.error !== undefined && trailingRun(done, (c) => c.error ?? '\u0000ok') >= freshDone) return false;
  return true;
}

/** Assistant messages a tail sized in records aims to hold: the first (maybe begun before it) and three fresh ones (rule 3 needs two calls after the fresh message begins, the last two different). */
export const SIZED_TAIL_MESSAGES = 4;
/** Room for messages longer than the short tail's (a 20–40 KB request shape among 2.1.332's records). */
const SIZED_TAIL_SLACK = 1.25;

/**
 * The size of a tail, in bytes from the end, that would hold the messages `s` (folded from a tail
 * of `tailBytes` alone) was too short to hold: a lazy tail is sized in records, not bytes. A 16 KB
 * tail of an older transcript holds a dozen messages; of a 2.1.332 one (an `api-request` and its
 * blob per model request, a 20–40 KB request shape now and then, attachments), two or three.
 * Undefined when the tail fails `tailSuffices` for another reason than its length in messages (a
 * turn over, a spoiled premise, a loop run, a newest record past the window, a team): a longer
 * tail of the same kind would not vouch either, so the wide tail or the read-back is next.
 */
export function sizedTailBytes(s: TranscriptState, tailBytes: number, nowMs: number, baseTimeoutMs: number): number | undefined {
  const t = s.tail;
  if (!t || t.isSpoiled || lacksTeamContext(s) || turnOver(s) !== undefined) return undefined;
  if (s.lastEventMs !== undefined && nowMs - s.lastEventMs > baseTimeoutMs) return undefined;
  // Fresh, with calls enough after it: it failed on a loop or error run, which a wide tail may end.
  if (t.isFresh && t.callsSinceFresh >= 2) return undefined;
  const perMessage = tailBytes / Math.max(1, t.messages ?? 0);
  return Math.ceil(perMessage * SIZED_TAIL_MESSAGES * SIZED_TAIL_SLACK);
}
