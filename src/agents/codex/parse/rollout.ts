// Codex rollout files (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<start>-<thread>.jsonl`, Codex CLI
// 0.171.0; ../shared/reference/codex-0.171.0.md §3) folded into what the watchdog judges.
// Pure: lines in, state out; the time of each fact is its record's own `timestamp`.
//
// Format: one JSON object per line, append-only, `{timestamp, ordinal, type, payload}`. Read here:
// `session_meta` (thread id, cwd, subagent parent), `turn_context` (cwd), `event_msg` `task_started`
// / `task_complete` (with or without `error`) / `turn_aborted` / `token_count` (`info: null` marks a
// stream retry), `response_item` `function_call` / `function_call_output` / `custom_tool_call(_output)`
// / assistant `message`. Every other type (world_state, token_usage_record, item_completed, …) is
// progress only; unknown types are ignored. Nothing is written while the model streams, while the
// API is retried or while a command runs: an open call's own budget is what covers that silence.
import type { ToolCall } from '../../../observe/parse/observation.js';
import { codexCallBudget, type CodexCallKind } from './call-budget.js';

/** How the newest turn ended, when it did. */
export type CodexTurnEnd =
  | { kind: 'completed'; atMs: number; lastMessage?: string }
  | { kind: 'failed'; atMs: number; message: string; errorInfo: string }
  | { kind: 'aborted'; atMs: number; reason: string };

export interface CodexCall extends ToolCall {
  kind: CodexCallKind;
}

/** What a rollout said so far. Build with `emptyRollout()`, extend with `foldRolloutLine`. */
export interface RolloutState {
  threadId?: string;
  cwd?: string;
  /** A Codex subagent's rollout names its lead (`session_meta.source.subagent.thread_spawn`). */
  parentThreadId?: string;
  /** Newest record's time: every record is progress. */
  lastRecordMs?: number;
  lastOrdinal?: number;
  /** The newest turn: its id, start, and end (undefined while open). */
  turn?: { id: string; startedAtMs: number; end?: CodexTurnEnd };
  /** Calls without output yet, by call id, in the order made. */
  open: Map<string, CodexCall>;
  /** The newest call (open or answered). */
  lastCall?: CodexCall;
  /** The newest calls, oldest first (at most RECENT). */
  recent: CodexCall[];
  /** The newest assistant text. */
  lastOutput?: string;
  /** Codex subagents this thread spawned (`spawn_agent` output `{agent_id}`), child thread ids in order. */
  children: string[];
  /** Open `wait_agent` calls: the child threads each waits on (its `targets`; none named: every child), by call id. */
  waits: Map<string, string[]>;
  /** The command behind each yielded process or script still running (`session:N`, `cell:N`): its polls run it on. */
  running: Map<string, string>;
  /** Stream retries of the open turn (`token_count` with `info: null`: Codex gave up on a silent stream and sent again). */
  streamRetries: number;
  /** Lines that were not a record (a torn or foreign line), counted. */
  badLines: number;
}

const RECENT = 20;

export const emptyRollout = (): RolloutState => ({
  open: new Map(),
  recent: [],
  children: [],
  waits: new Map(),
  running: new Map(),
  streamRetries: 0,
  badLines: 0,
});

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Record<string, any> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, any>) : undefined);

/** A message's text (`input_text` / `output_text` parts, or a plain string). */
export function codexText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => str(obj(p)?.text) ?? '').join('\n');
}

/** The error info of a give-up as one word: a string as is, an object by its key and status. */
export function errorInfoWord(info: unknown): string {
  if (typeof info === 'string') return info;
  const o = obj(info);
  if (!o) return 'unknown';
  const [key] = Object.keys(o);
  const status = obj(o[key!])?.http_status_code;
  return status !== undefined ? `${key}:${status}` : (key ?? 'unknown');
}

function parseArgs(raw: unknown): Record<string, unknown> {
  if (obj(raw)) return raw as Record<string, unknown>;
  if (typeof raw !== 'string') return {};
  try {
    return obj(JSON.parse(raw)) ?? {};
  } catch {
    return {};
  }
}

function closeAll(s: RolloutState): void {
  for (const c of s.open.values()) replace(s, { ...c, isOpen: false });
  s.open.clear();
  s.waits.clear();
}

/** A call's new version replaces the old one wherever it is listed (never changed in place: observations share them). */
function replace(s: RolloutState, c: CodexCall): void {
  if (s.lastCall?.toolUseId === c.toolUseId) s.lastCall = c;
  const i = s.recent.findIndex((r) => r.toolUseId === c.toolUseId);
  if (i >= 0) s.recent = [...s.recent.slice(0, i), c, ...s.recent.slice(i + 1)];
}

function openCall(s: RolloutState, name: string, callId: string, args: Record<string, unknown>, atMs: number, input?: string): void {
  const b = codexCallBudget(name, args, input);
  // A poll of a yielded command (write_stdin) or script (wait) runs that command on: it carries it.
  const polled = name === 'write_stdin' ? `session:${String(args.session_id)}` : name === 'wait' ? `cell:${String(args.cell_id)}` : undefined;
  const call: CodexCall = {
    name,
    kind: b.kind,
    inputSummary: b.summary,
    command: b.command ?? (polled ? s.running.get(polled) : undefined),
    timeoutMs: b.timeoutMs,
    startedAtMs: atMs,
    isOpen: true,
    toolUseId: callId,
    isOpenKnown: true,
  };
  s.open.set(callId, call);
  if (name === 'wait_agent') {
    const targets = Array.isArray(args.targets) ? args.targets.filter((t): t is string => typeof t === 'string') : [];
    s.waits.set(callId, targets);
  }
  s.lastCall = call;
  s.recent = [...s.recent.slice(-(RECENT - 1)), call];
}

/** A child thread this thread spawned (once). */
function spawned(s: RolloutState, id: unknown): void {
  if (typeof id === 'string' && id !== '' && !s.children.includes(id)) s.children = [...s.children, id];
}

function closeCall(s: RolloutState, callId: string, output: string): void {
  const c = s.open.get(callId);
  if (!c) return;
  s.open.delete(callId);
  s.waits.delete(callId);
  if (c.name === 'spawn_agent') spawned(s, parseArgs(output).agent_id);
  const yielded = /Process running with session ID (\d+)|Script running with cell ID (\d+)/.exec(output);
  if (yielded && c.command) s.running.set(yielded[1] ? `session:${yielded[1]}` : `cell:${yielded[2]}`, c.command);
  const isError = /^aborted|aborted by user|^execution error|Process exited with code [1-9]/.test(output);
  replace(s, { ...c, isOpen: false, ...(isError ? { error: output.slice(0, 200) } : {}) });
}

/** Fold one line of a rollout into `s` (mutated and returned). A line that is not a record is counted, never thrown. */
export function foldRolloutLine(s: RolloutState, line: string): RolloutState {
  if (line.trim() === '') return s;
  let rec: Record<string, any> | undefined;
  try {
    rec = obj(JSON.parse(line));
  } catch {
    rec = undefined;
  }
  const atMs = rec ? Date.parse(String(rec.timestamp)) : Number.NaN;
  const payload = obj(rec?.payload);
  if (!rec || Number.isNaN(atMs) || !payload) {
    s.badLines++;
    return s;
  }
  s.lastRecordMs = Math.max(s.lastRecordMs ?? atMs, atMs);
  if (typeof rec.ordinal === 'number') s.lastOrdinal = rec.ordinal;
  const type = str(rec.type);
  const sub = str(payload.type);
  if (type === 'session_meta') {
    s.threadId ??= str(payload.id);
    s.cwd ??= str(payload.cwd);
    const spawn = obj(obj(obj(payload.source)?.subagent)?.thread_spawn);
    s.parentThreadId ??= str(spawn?.parent_thread_id) ?? str(payload.parent_thread_id);
  } else if (type === 'turn_context') {
    s.cwd = str(payload.cwd) ?? s.cwd;
  } else if (type === 'event_msg') {
    if (sub === 'task_started') {
      s.turn = { id: str(payload.turn_id) ?? '', startedAtMs: atMs };
      s.streamRetries = 0;
    } else if (sub === 'task_complete') {
      const err = obj(payload.error);
      const end: CodexTurnEnd = err
        ? { kind: 'failed', atMs, message: str(err.message) ?? 'no message', errorInfo: errorInfoWord(err.codex_error_info) }
        : { kind: 'completed', atMs, ...(str(payload.last_agent_message) !== undefined ? { lastMessage: str(payload.last_agent_message) } : {}) };
      s.turn = { id: str(payload.turn_id) ?? s.turn?.id ?? '', startedAtMs: s.turn?.startedAtMs ?? atMs, end };
      closeAll(s);
    } else if (sub === 'turn_aborted') {
      s.turn = {
        id: str(payload.turn_id) ?? s.turn?.id ?? '',
        startedAtMs: s.turn?.startedAtMs ?? atMs,
        end: { kind: 'aborted', atMs, reason: str(payload.reason) ?? 'interrupted' },
      };
      closeAll(s);
    } else if (sub === 'token_count' && payload.info === null) {
      s.streamRetries++;
    } else if (sub === 'item_completed' && obj(payload.item)?.type === 'CollabAgentToolCall' && payload.item.tool === 'spawn_agent') {
      const ids: unknown = payload.item.receiver_thread_ids;
      if (Array.isArray(ids)) for (const id of ids) spawned(s, id);
    }
  } else if (type === 'response_item') {
    if (sub === 'function_call') {
      openCall(s, str(payload.name) ?? 'unknown', str(payload.call_id) ?? '', parseArgs(payload.arguments), atMs);
    } else if (sub === 'custom_tool_call') {
      openCall(s, str(payload.name) ?? 'unknown', str(payload.call_id) ?? '', {}, atMs, str(payload.input));
    } else if (sub === 'function_call_output' || sub === 'custom_tool_call_output') {
      closeCall(s, str(payload.call_id) ?? '', typeof payload.output === 'string' ? payload.output : codexText(payload.output));
    } else if (sub === 'message' && payload.role === 'assistant') {
      const text = codexText(payload.content);
      if (text) s.lastOutput = text;
    }
  }
  return s;
}

/** The child threads the open `wait_agent` calls wait on (a call naming none waits on every child spawned). */
export function waitedChildren(s: RolloutState): string[] {
  const out = new Set<string>();
  for (const targets of s.waits.values()) for (const t of targets.length > 0 ? targets : s.children) out.add(t);
  return [...out];
}

/** Is the newest turn open (started, not ended)? */
export const isTurnOpen = (s: RolloutState): boolean => s.turn !== undefined && s.turn.end === undefined;
