// The line `dispatch-watchdog hook` appends to activity/<agent_id or session_id>.ndjson: the
// few payload fields the watchdog uses, shortened, never the tool's full input or output.
// Pure; imports nothing heavy, so the hook entry stays fast.
import { shorten, summarizeToolInput } from './tool-input-summary.js';
import { redactSecrets } from '../../../present/safe-text.js';

/** One activity line (snake_case like the hook payload it comes from). */
export interface HookLine {
  /** When the hook ran, ISO-8601 UTC. */
  ts: string;
  /** `hook_event_name`: PreToolUse, PostToolUse, PostToolUseFailure, Notification, SubagentStart, SubagentStop, Stop, StopFailure, Interrupt… */
  event: string;
  session_id?: string;
  agent_id?: string;
  agent_type?: string;
  tool_name?: string;
  tool_use_id?: string;
  /** Stable summary of tool_input (same as the transcript parser's). */
  input?: string;
  command?: string;
  timeout_ms?: number;
  background?: true;
  /** PostToolUseFailure `error`, StopFailure `error`. */
  error?: string;
  is_interrupt?: true;
  duration_ms?: number;
  notification_type?: string;
  message?: string;
  /** Stop/SubagentStop: background tasks still running (newer builds list them). */
  background_running?: number;
  /** SessionEnd `reason` (`other`, `prompt_input_exit`, `logout`…); Interrupt `reason` (`stop`, `permission_denied`, `rewind`, `other`). */
  reason?: string;
  /** Interrupt (2.1.335+): who stopped the turn (`user`: a person or a client that does not say, `session`: another session's Claude, `system`: a hook, plugin, permission check or app acting by itself). */
  source?: string;
  /** Interrupt: how the stop arrived (`terminal`, `client`), where known. */
  via?: string;
  /** Stop/SubagentStop: the ids of the background subagents still running (2.1.332 lists them), at most 16. */
  background_agents?: string[];
  /** Stop/SubagentStop `last_assistant_message` (newer builds), shortened. */
  last_message?: string;
  transcript_path?: string;
  agent_transcript_path?: string;
}

/** Longest line written, in bytes; one O_APPEND write of this size is never interleaved. @defaultValue 4000 */
export const HOOK_LINE_MAX_BYTES = 4000;

// Same rule as contracts/ids.ts SAFE_ID_PATTERN (not imported from there: that module loads zod,
// and the hook must start fast). A test keeps the two equal.
export const HOOK_SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;

type Rec = Record<string, unknown>;
const str = (v: unknown, max = 200): string | undefined => (typeof v === 'string' && v !== '' ? shorten(redactSecrets(v), max) : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
const DONE = new Set(['completed', 'failed', 'killed', 'stopped', 'done', 'cancelled', 'canceled', 'error']);

/** The file id of a payload (`agent_id`, else `session_id`), when it is a safe file name. */
export function hookFileId(payload: Rec): string | undefined {
  const id = typeof payload.agent_id === 'string' && payload.agent_id !== '' ? payload.agent_id : payload.session_id;
  return typeof id === 'string' && HOOK_SAFE_ID.test(id) ? id : undefined;
}

/** Build the activity line of a hook payload; undefined when it is not a hook payload we can file. */
export function buildHookLine(payload: unknown, nowMs: number): { id: string; line: HookLine } | undefined {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  const p = payload as Rec;
  const id = hookFileId(p);
  const event = str(p.hook_event_name, 64);
  if (!id || !event) return undefined;
  const line: HookLine = { ts: new Date(nowMs).toISOString(), event };
  const set = <K extends keyof HookLine>(k: K, v: HookLine[K] | undefined) => {
    if (v !== undefined) line[k] = v;
  };
  set('session_id', str(p.session_id, 128));
  set('agent_id', str(p.agent_id, 128));
  set('agent_type', str(p.agent_type, 64));
  const tool = str(p.tool_name, 64);
  if (tool) {
    const facts = summarizeToolInput(tool, p.tool_input);
    set('tool_name', tool);
    set('input', facts.inputSummary);
    set('command', facts.command === undefined ? undefined : shorten(facts.command, 500));
    set('timeout_ms', facts.timeoutMs);
    set('background', facts.isBackground ? true : undefined);
  }
  set('tool_use_id', str(p.tool_use_id, 128));
  set('error', typeof p.error === 'string' ? str(p.error) : undefined);
  set('is_interrupt', p.is_interrupt === true ? true : undefined);
  set('duration_ms', num(p.duration_ms));
  set('notification_type', str(p.notification_type, 64));
  set('message', str(p.message));
  if (Array.isArray(p.background_tasks)) {
    // 2.1.332 lists a background subagent's own task among the running ones at its SubagentStop:
    // the stopping agent is not work it leaves running.
    const self = p.hook_event_name === 'SubagentStop' ? p.agent_id : undefined;
    const running = p.background_tasks
      .filter((t) => (t as Rec | null)?.id !== self || self === undefined)
      .filter((t) => !DONE.has(String((t as Rec | null)?.status ?? 'running').toLowerCase())).length;
    set('background_running', running);
    const agents = p.background_tasks
      .map((t) => t as Rec | null)
      .filter(
        (t) =>
          t?.type === 'subagent' &&
          t.id !== self &&
          !DONE.has(String(t.status ?? 'running').toLowerCase()) &&
          typeof t.id === 'string' &&
          HOOK_SAFE_ID.test(t.id),
      )
      .map((t) => t!.id as string)
      .slice(0, 16);
    set('background_agents', agents.length > 0 ? agents : undefined);
  }
  set('last_message', str(p.last_assistant_message, 300));
  set('reason', p.hook_event_name === 'SessionEnd' || p.hook_event_name === 'Interrupt' ? str(p.reason, 64) : undefined);
  if (p.hook_event_name === 'Interrupt') {
    set('source', str(p.source, 32));
    set('via', str(p.via, 32));
  }
  set('transcript_path', str(p.transcript_path, 1000));
  set('agent_transcript_path', str(p.agent_transcript_path, 1000));
  return { id, line: fitLine(line) };
}

/** Drop the least needed fields until the JSON fits HOOK_LINE_MAX_BYTES. */
function fitLine(line: HookLine): HookLine {
  const order: (keyof HookLine)[] = ['last_message', 'message', 'command', 'agent_transcript_path', 'transcript_path', 'error', 'input'];
  for (const k of order) {
    if (Buffer.byteLength(JSON.stringify(line)) <= HOOK_LINE_MAX_BYTES) break;
    delete line[k];
  }
  return line;
}
