// The WatchdogError family: one base class with a code, a hint (the fix) and a location.
// cli.ts maps each family to an exit code; nothing branches on message text.
import { safeText } from '../present/safe-text.js';

export interface ErrorLocation {
  file: string;
  line?: number;
  column?: number;
  /** Dotted field path inside the file, e.g. `current_wave.tasks[2].status`. */
  path?: string;
}

export type ErrorCode =
  | 'yaml_syntax'
  | 'yaml_alias'
  | 'wrong_type'
  | 'missing_file'
  | 'unreadable_file'
  | 'unsafe_id'
  | 'unknown_config_key'
  | 'bad_config'
  | 'bad_flag'
  | 'no_wave'
  | 'input_too_large'
  | 'state_changing'
  | 'unknown_request'
  | 'lock_held'
  | 'action_refused'
  | 'tracker_auth'
  | 'tracker_input'
  | 'tracker_not_found'
  | 'tracker_unavailable'
  | 'json_syntax'
  | 'unsafe_hook_path'
  | 'unsafe_state_path'
  | 'state_dir_unwritable'
  | 'disk_full'
  | 'internal';

export class WatchdogError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly location?: ErrorLocation;

  constructor(code: ErrorCode, message: string, opts: { hint?: string; location?: ErrorLocation; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = opts.hint;
    this.location = opts.location;
  }

  /** The full user-facing text: `<where> <message> <hint>`, with anything quoted from a file made safe to print (secrets, control characters). */
  describe(): string {
    const where = this.location ? formatLocation(this.location) + ' ' : '';
    return safeText(`${where}${this.message}${this.hint ? ' ' + this.hint : ''}`, { keepNewlines: true });
  }
}

/** The user fixes a file or a flag. Exit code 2. */
export class InputError extends WatchdogError {}

/** Several input problems found at once (a config file, flags): each keeps its own location and hint. */
export class InputProblems extends InputError {
  readonly problems: readonly InputError[];
  constructor(problems: readonly InputError[]) {
    super(problems[0]!.code, `${problems.length} problems:`, { location: problems[0]!.location });
    this.problems = problems;
  }

  /** One line per problem, in the order found. */
  override describe(): string {
    return [`${this.problems.length} problems:`, ...this.problems.map((p) => `  - ${p.describe()}`)].join('\n');
  }
}

/** One error for every problem: undefined for none, the problem itself for one, InputProblems for more. */
export function combineProblems(problems: readonly InputError[]): InputError | undefined {
  const flat = problems.flatMap((p) => (p instanceof InputProblems ? p.problems : [p]));
  if (flat.length <= 1) return flat[0];
  return new InputProblems(flat);
}

/** The world refused (EPERM, ESRCH, HTTP 401/429/5xx); `isRetryable` says whether trying again is safe. */
export class ActionError extends WatchdogError {
  readonly isRetryable: boolean;
  constructor(code: ErrorCode, message: string, opts: { hint?: string; isRetryable?: boolean; cause?: unknown } = {}) {
    super(code, message, opts);
    this.isRetryable = opts.isRetryable ?? false;
  }
}

/** Our bug: should never happen. */
export class InternalError extends WatchdogError {
  constructor(message: string, cause?: unknown) {
    super('internal', message, { cause, hint: 'This is a dispatch-watchdog bug; please report it with the command you ran.' });
  }
}

/** `file:line:col path:` prefix of a message. */
export function formatLocation(loc: ErrorLocation): string {
  let s = loc.file;
  if (loc.line !== undefined) s += `:${loc.line}`;
  if (loc.line !== undefined && loc.column !== undefined) s += `:${loc.column}`;
  if (loc.path) s += ` ${loc.path}:`;
  else s += ':';
  return s;
}

/**
 * A file-system refusal the user can fix (a symlinked directory in the state dir, a read-only or
 * foreign-owned state dir, a full disk) as the error that says so, or undefined for anything else.
 * Such errors come from Node with an errno `code`; left raw they would read as our bug.
 */
export function fileSystemErrorOf(e: unknown): WatchdogError | undefined {
  if (e instanceof WatchdogError || !(e instanceof Error)) return undefined;
  const errno = (e as NodeJS.ErrnoException).code;
  const at = (e as NodeJS.ErrnoException).path;
  const where = at ? ` ${at}` : '';
  switch (errno) {
    case 'ELOOP':
      // Our own guard words this one fully (atomic-write, append-line-sync): keep its text.
      return new InputError(
        'unsafe_state_path',
        e.message.startsWith('refusing')
          ? e.message.replace(/\s*Replace the link with a directory\.$/, '')
          : `refusing to follow the symlink${where}: every file the watchdog writes stays inside the state dir.`,
        {
          hint: 'Replace the link with a real directory (or point --state-dir at the directory it links to).',
          cause: e,
        },
      );
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      // Only a refusal on a named file: a pathless EPERM (a signal, say) is not the user's to fix here.
      if (!at) return undefined;
      return new InputError('state_dir_unwritable', `${errno === 'EROFS' ? 'read-only file system' : 'permission denied'} on ${at} (${errno}).`, {
        hint: 'Make it accessible to this user (the state dir must be writable), or point --state-dir (or ONEX_STATE_DIR) at a state dir that is.',
        cause: e,
      });
    case 'ENOSPC':
    case 'EDQUOT':
      return new ActionError('disk_full', `cannot write${where}: the disk is full (${errno}).`, {
        hint: 'Free some space and run it again: every line written before this one is intact, and unfinished actions are settled at the next start.',
        isRetryable: true,
        cause: e,
      });
    default:
      return undefined;
  }
}
