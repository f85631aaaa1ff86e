// What a Codex tool call is and how long it may legitimately stay open (Codex CLI 0.171.0;
// ../shared/reference/codex-0.171.0.md §1, §8 b/h, §9, §12.5). Pure.
//
// Codex's shell tool has no timeout: `exec_command` returns after its `yield_time_ms` (default
// 10 000, at most 30 000) with "Process running with session ID N" and the model polls with
// `write_stdin` (an empty poll waits up to its `yield_time_ms`, 5 000–300 000). So an open call's
// budget is its own yield, and a long command is a chain of calls, each inside its budget. In code
// mode the call is a `custom_tool_call` `exec` whose JavaScript may set `// @exec: {"yield_time_ms": N}`.

/** The kind of a call, as core judges it (DESIGN §15). */
export type CodexCallKind = 'shell' | 'subagent' | 'file' | 'web' | 'mcp' | 'other';

export interface CallBudget {
  kind: CodexCallKind;
  /** How long the call may stay open by Codex's own rules (ms), or undefined when it has none. */
  timeoutMs?: number;
  /** The command, for a shell call. */
  command?: string;
  summary?: string;
}

export const EXEC_DEFAULT_YIELD_MS = 10_000;
export const EXEC_MAX_YIELD_MS = 30_000;
/** An empty `write_stdin` poll waits at least this long… */
export const POLL_MIN_YIELD_MS = 5_000;
/** …and at most this long. */
export const POLL_MAX_YIELD_MS = 300_000;
/** `wait_agent` accepts 10 s – 1 h. */
export const WAIT_AGENT_MAX_MS = 3_600_000;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** The pragma a code-mode script may start with: `// @exec: {"yield_time_ms": 5000}`. */
function pragmaYield(input: string | undefined): number | undefined {
  const m = /^\s*\/\/\s*@exec:\s*(\{.*\})/m.exec(input ?? '');
  if (!m) return undefined;
  try {
    return num((JSON.parse(m[1]!) as Record<string, unknown>).yield_time_ms);
  } catch {
    return undefined;
  }
}

/** An argv as one command line: a shell's `-c` / `-lc` script as it is, anything else joined. */
function argvCommand(argv: string[]): string {
  const at = argv.findIndex((a, i) => i > 0 && /^-[A-Za-z]*c[A-Za-z]*$/.test(a));
  return at > 0 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]!) && argv[at + 1] !== undefined ? argv[at + 1]! : argv.join(' ');
}

/** A JavaScript string literal's text (quotes off, the common escapes undone; a template's `${…}` kept as written). */
function unquote(body: string): string {
  return body.replace(/\\(.)/gs, (_, c: string) => ({ n: '\n', t: '\t', r: '\r' })[c] ?? c);
}

/**
 * The shell commands a code-mode script runs: the `cmd` of each `tools.exec_command({cmd: …})` call
 * written as a string literal (reference §8 h: `await tools.exec_command({cmd: "sleep 20; echo hi",
 * yield_time_ms: 30000})`). A command built at run time (a variable, a concatenation, an array) is
 * not seen.
 */
export function scriptCommands(input: string | undefined): string[] {
  if (!input) return [];
  const out: string[] = [];
  const call = /\bexec_command\s*\(\s*\{[^{}]*?["']?\bcmd["']?\s*:\s*(["'`])((?:\\.|(?!\1)[^\\])*)\1/gs;
  for (let m = call.exec(input); m; m = call.exec(input)) out.push(unquote(m[2]!));
  return out;
}

/** The kind and budget of a call named `name` with `args` (custom tools: `input`, the freeform text). */
export function codexCallBudget(name: string, args: Record<string, unknown>, input?: string): CallBudget {
  const yieldMs = num(args.yield_time_ms);
  switch (name) {
    case 'exec_command': {
      const cmd = typeof args.cmd === 'string' ? args.cmd : Array.isArray(args.cmd) ? argvCommand(args.cmd.map(String)) : undefined;
      return { kind: 'shell', timeoutMs: clamp(yieldMs ?? EXEC_DEFAULT_YIELD_MS, 0, EXEC_MAX_YIELD_MS), command: cmd, summary: cmd };
    }
    case 'write_stdin': {
      const isPoll = typeof args.chars !== 'string' || args.chars === '';
      const t = isPoll
        ? clamp(yieldMs ?? POLL_MAX_YIELD_MS, POLL_MIN_YIELD_MS, POLL_MAX_YIELD_MS)
        : clamp(yieldMs ?? EXEC_DEFAULT_YIELD_MS, 0, EXEC_MAX_YIELD_MS);
      return { kind: 'shell', timeoutMs: t, summary: `session ${String(args.session_id ?? '?')}${isPoll ? ' (poll)' : ''}` };
    }
    case 'exec': {
      // Code mode: a script; the commands it runs are the string literals its tools.exec_command calls name.
      const cmds = scriptCommands(input);
      const command = cmds.length > 0 ? cmds.join('\n') : undefined;
      return {
        kind: 'shell',
        timeoutMs: clamp(pragmaYield(input) ?? EXEC_DEFAULT_YIELD_MS, 0, EXEC_MAX_YIELD_MS),
        command,
        summary: (command ?? input)?.slice(0, 200),
      };
    }
    case 'wait':
      // Code mode's poll of a yielded script (`wait {cell_id, yield_time_ms}`).
      return {
        kind: 'shell',
        timeoutMs: clamp(yieldMs ?? POLL_MAX_YIELD_MS, POLL_MIN_YIELD_MS, POLL_MAX_YIELD_MS),
        summary: `cell ${String(args.cell_id ?? '?')}`,
      };
    case 'wait_agent':
      return {
        kind: 'subagent',
        timeoutMs: clamp(num(args.timeout_ms) ?? WAIT_AGENT_MAX_MS, 10_000, WAIT_AGENT_MAX_MS),
        summary: JSON.stringify(args.targets ?? args.ids ?? []),
      };
    case 'spawn_agent':
      return { kind: 'subagent', summary: typeof args.message === 'string' ? args.message.slice(0, 200) : undefined };
    case 'apply_patch':
      return { kind: 'file' };
    case 'web_search':
      return { kind: 'web' };
    default:
      return { kind: name.includes('__') ? 'mcp' : 'other' };
  }
}
