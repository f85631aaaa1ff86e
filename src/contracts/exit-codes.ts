// Every exit code of the CLI, owned once (DESIGN §10), and the one place an error becomes one.
// Each command's --help lists its codes by name from here (commands/*.ts, `exitCodes` of teach),
// `next` maps its reasons through here (contracts/next.ts NEXT_EXIT), and
// test/unit/exit-codes.test.ts checks every exit code that help, README, docs/, skills/ and
// examples/ mention against this table.
//
// A new exit code is one row in EXIT_CODES (the name its commands use, the number, what it means
// whatever the command); then name it in the `exitCodes` of each command that returns it.
// Pure but for the injected error stream.
import { InputError, InternalError, WatchdogError, fileSystemErrorOf } from './errors.js';
import { safeText } from '../present/safe-text.js';

export const EXIT_CODES = {
  ok: { code: 0, means: 'the command did what it is for (each --help says what that is); --help, --version' },
  failure: { code: 1, means: 'the world refused (a file cannot be written, an action failed), or a dispatch-watchdog bug (then with the stack)' },
  input: {
    code: 2,
    means: 'bad input or usage (a state file, config or flag), or another watchdog holds the lock; the message names file, line, field and the fix',
  },
  stall: { code: 3, means: 'something needs a person: a stall or an unanswered request (--once, --now), orphaned actions (recover)' },
  unwatched: {
    code: 4,
    means:
      'no stall, but a row cannot be judged (an unknown status such as "in-progress", no evidence at all): that agent is NOT watched; stderr names it (--once, --now)',
  },
  requests: { code: 10, means: 'next: new requests to carry out on agents (cancel, redispatch, resume, nudge)' },
  unanswered: { code: 11, means: 'next: a request passed its answer_by without an answer' },
  escalation: { code: 12, means: 'next: a ticket was escalated to Blocked' },
  attention: {
    code: 13,
    means:
      'next: a person is needed (a reconcile request, a long human wait, an orphaned action, an unobservable agent, a row whose status is unknown, a stall in report mode)',
  },
  max_wait: { code: 14, means: 'next: --max-wait passed with nothing for the orchestrator (run next again to keep waiting)' },
} as const satisfies Record<string, { code: number; means: string }>;

export type ExitName = keyof typeof EXIT_CODES;
export type ExitCode = (typeof EXIT_CODES)[ExitName]['code'];

/** Exit code by name: `EXIT.input` is 2. */
export const EXIT = Object.fromEntries(Object.entries(EXIT_CODES).map(([name, { code }]) => [name, code])) as {
  readonly [K in ExitName]: (typeof EXIT_CODES)[K]['code'];
};

/**
 * Errors become exit codes here: bad input or usage (InputError, a held lock among them) → 2 with
 * the message and its fix, and so is a file-system refusal the user can fix (a symlink in the state
 * dir, permissions, a read-only file system: `fileSystemErrorOf`); the world refused (ActionError,
 * a full disk among them) → 1 with the message, no stack;
 * anything else is our bug → 1 with the stack, to be reported.
 */
export function exitCodeFor(thrown: unknown, out: { err(text: string): void }): ExitCode {
  const e = fileSystemErrorOf(thrown) ?? thrown;
  if (e instanceof InputError) {
    out.err(`dispatch-watchdog: ${e.describe()}\n`);
    return EXIT.input;
  }
  if (e instanceof WatchdogError && !(e instanceof InternalError)) {
    out.err(`dispatch-watchdog: ${e.describe()}\n`);
    return EXIT.failure;
  }
  const err = e as Error;
  out.err(safeText(`dispatch-watchdog: internal error: ${err?.message ?? String(e)}\n${err?.stack ?? ''}\n`, { keepNewlines: true }));
  out.err('This is a dispatch-watchdog bug; please report it with the command you ran.\n');
  return EXIT.failure;
}
