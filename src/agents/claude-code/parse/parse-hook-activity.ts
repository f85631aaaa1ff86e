// activity/<id>.ndjson lines (written by `dispatch-watchdog hook`, see hook-line.ts) →
// HookState → PartialObservation (source 'hooks'). Pure. PreToolUse opens a call by
// tool_use_id; PostToolUse/PostToolUseFailure close it (even when logged first, as async hooks
// may be); PermissionRequest (the dialog opened, naming the agent and the tool) and Notification
// permission_prompt mean a human must answer; SubagentStop/Stop mean the agent's turn ended, until
// the next event shows it working again; Interrupt (2.1.335+) means a stop ended the main session's
// turn (who stopped it, and how), and the session idles until its next prompt.
import { HookStateSchema } from '../../../contracts/observe-store.js';
import type { LineRef } from '../../../observe/parse/line-splitter.js';
import { knownCall, type ApiFailureKind, type PartialObservation, type ToolCall } from '../../../observe/parse/observation.js';
import { describeRef, type ObserveDiagnostic } from './parse-transcript.js';
import { FAILURE_BY_ERROR, namesPlanLimit } from './give-up-kind.js';
import { rowOf } from './records/family.js';
import { closeCall, ERROR_MAX_CHARS, excerpt, openCall, pickLastTool } from './transcript-state.js';

/** Tool-use ids remembered as closed (a Post line may precede its Pre line). @defaultValue 64 */
const CLOSED_MAX = 64;

export interface HookState {
  version: 1;
  kind: 'hooks';
  lastEventMs?: number;
  sessionId?: string;
  agentId?: string;
  recent: ToolCall[];
  open: ToolCall[];
  closedIds: string[];
  /** An open prompt; `toolUseId` is the call it was raised for, when one was open. */
  waiting?: { kind: 'permission_prompt' | 'notification'; sinceMs?: number; detail?: string; toolUseId?: string; fromEvent?: string };
  stopped?: { event: string; atMs?: number; backgroundRunning?: number; backgroundAgents?: string[] };
  /** `StopFailure`: the turn ended on an API error (its `error` kind and Claude Code's message, `last_assistant_message`). */
  stopFailure?: { error?: string; atMs?: number; message?: string };
  /** `SessionEnd`: the session's process ended (its `reason`); a later event (a resumed run) clears it. */
  sessionEnded?: { atMs?: number; reason?: string };
  /** `Interrupt` (2.1.335+): a stop ended the turn (its `source`, `reason`, `via`); the next event of a new turn clears it. */
  interrupted?: { atMs?: number; source?: string; reason?: string; via?: string };
  lastOutput?: string;
  transcriptPath?: string;
  agentTranscriptPath?: string;
  lines: number;
  badLines: number;
}

/** The state of an activity file nothing has been read from. */
export function emptyHookState(): HookState {
  return { version: 1, kind: 'hooks', recent: [], open: [], closedIds: [], lines: 0, badLines: 0 };
}

/** True for a HookState loaded from disk. */
export function isHookState(v: unknown): v is HookState {
  return HookStateSchema.safeParse(v).success;
}

type Rec = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function closeAll(s: HookState): void {
  const ids = s.open.map((c) => c.toolUseId);
  s.open = [];
  for (const id of ids) if (id) closeCall(s, id);
}

const ENDS = new Set(['SubagentStop', 'Stop', 'StopFailure']);
const POSTS = new Set(['PostToolUse', 'PostToolUseFailure']);

function apply(s: HookState, l: Rec, atMs: number | undefined): void {
  const event = str(l.event) ?? '';
  const toolUseId = str(l.tool_use_id);
  // Post hooks run async (they may land late): they neither resume a stopped agent nor answer
  // a prompt, except the Post of the very call the prompt was raised for.
  if (!POSTS.has(event) && !ENDS.has(event) && event !== 'Notification' && event !== 'SessionEnd') {
    s.stopped = undefined;
    s.stopFailure = undefined;
    s.sessionEnded = undefined;
  }
  // An interruption holds until a new turn shows: not the late Post of the stopped call, not the
  // idle Notification that follows it, not the process's end (judged as the end of the run).
  if (s.interrupted && !POSTS.has(event) && event !== 'Notification' && event !== 'SessionEnd' && event !== 'Interrupt') s.interrupted = undefined;
  // A prompt holds the agent: the Post of its call, a new turn, or a later call (the agent went on) answers it.
  const isLaterCall = event === 'PreToolUse' && toolUseId !== undefined && toolUseId !== s.waiting?.toolUseId && s.waiting?.fromEvent === 'PermissionRequest';
  if (
    s.waiting &&
    (ENDS.has(event) ||
      isLaterCall ||
      ['SubagentStart', 'UserPromptSubmit'].includes(event) ||
      (POSTS.has(event) && toolUseId === (s.waiting.toolUseId ?? toolUseId)))
  ) {
    s.waiting = undefined;
  }
  switch (event) {
    case 'PreToolUse':
      if (str(l.tool_name) && !(toolUseId && s.closedIds.includes(toolUseId))) {
        openCall(s, {
          name: str(l.tool_name)!,
          inputSummary: str(l.input),
          command: str(l.command),
          timeoutMs: typeof l.timeout_ms === 'number' ? l.timeout_ms : undefined,
          isBackground: l.background === true ? true : undefined,
          startedAtMs: atMs,
          isOpen: true,
          toolUseId,
        });
      }
      return;
    case 'PostToolUse':
    case 'PostToolUseFailure':
      if (!toolUseId) return;
      closeCall(s, toolUseId, event === 'PostToolUseFailure' ? excerpt(str(l.error) ?? 'failed', ERROR_MAX_CHARS) : undefined);
      s.closedIds.push(toolUseId);
      if (s.closedIds.length > CLOSED_MAX) s.closedIds.shift();
      return;
    case 'Notification': {
      const type = str(l.notification_type);
      const detail = str(l.message);
      // The prompt is for the newest call still open (its Post answers it).
      const toolUseId = s.open.at(-1)?.toolUseId;
      if (type === 'permission_prompt') {
        if (s.waiting?.fromEvent !== 'PermissionRequest') s.waiting = { kind: 'permission_prompt', sinceMs: atMs, detail, toolUseId };
      } else if (type === 'idle_prompt' || type === 'elicitation_dialog') s.waiting = { kind: 'notification', sinceMs: atMs, detail: detail ?? type };
      return;
    }
    case 'PermissionRequest': {
      // No tool_use_id in the payload (2.1.197): the prompt is for the newest open call of that tool.
      const tool = str(l.tool_name);
      const call = s.open.findLast((c) => c.name === tool && (l.input === undefined || c.inputSummary === l.input)) ?? s.open.findLast((c) => c.name === tool);
      const what = [tool, str(l.command) ?? str(l.input)].filter(Boolean).join(': ');
      // The Notification that follows (~6 s later) keeps this one: it says less.
      s.waiting = {
        kind: 'permission_prompt',
        sinceMs: atMs,
        detail: `permission dialog${what ? ` for ${what}` : ''}`,
        fromEvent: event,
        ...(call?.toolUseId ? { toolUseId: call.toolUseId } : {}),
      };
      return;
    }
    case 'SubagentStop':
    case 'Stop':
      closeAll(s);
      s.stopped = { event, atMs, backgroundRunning: typeof l.background_running === 'number' ? l.background_running : undefined };
      if (Array.isArray(l.background_agents)) s.stopped.backgroundAgents = l.background_agents.filter((x): x is string => typeof x === 'string');
      if (str(l.last_message)) s.lastOutput = str(l.last_message);
      return;
    case 'StopFailure':
      closeAll(s);
      s.stopFailure = { error: str(l.error), atMs, message: str(l.last_message) };
      return;
    case 'SessionEnd':
      s.sessionEnded = { atMs, reason: str(l.reason) };
      return;
    case 'Interrupt':
      // The stop ended the turn: its calls were cancelled (their Post may never come), its prompt withdrawn.
      closeAll(s);
      s.waiting = undefined;
      s.interrupted = { atMs, source: str(l.source), reason: str(l.reason), via: str(l.via) };
      return;
    default:
      return;
  }
}

/** Fold one activity line into `s`; a line that is not a JSON object becomes a diagnostic. */
export function parseHookLine(s: HookState, text: string, file: string, ref: LineRef): ObserveDiagnostic | undefined {
  if (text.trim() === '') return undefined;
  let l: unknown;
  try {
    l = JSON.parse(text);
  } catch {
    l = undefined;
  }
  if (l === null || typeof l !== 'object' || Array.isArray(l) || typeof (l as Rec).event !== 'string') {
    s.badLines++;
    return {
      file,
      line: ref.lineNo,
      offset: ref.offset,
      message: `${describeRef(file, ref)}: not a hook activity line (expected a JSON object with "event"); skipped`,
    };
  }
  const rec = l as Rec;
  s.lines++;
  const parsed = typeof rec.ts === 'string' ? Date.parse(rec.ts) : NaN;
  const atMs = Number.isFinite(parsed) ? parsed : undefined;
  // An interruption is not progress (as in the transcript): an agent whose run ended after it is judged from its last work.
  if (atMs !== undefined && rec.event !== 'Interrupt') s.lastEventMs = Math.max(s.lastEventMs ?? atMs, atMs);
  s.sessionId = str(rec.session_id) ?? s.sessionId;
  s.agentId = str(rec.agent_id) ?? s.agentId;
  s.transcriptPath = str(rec.transcript_path) ?? s.transcriptPath;
  s.agentTranscriptPath = str(rec.agent_transcript_path) ?? s.agentTranscriptPath;
  apply(s, rec, atMs);
  return undefined;
}

/** The StopFailure hook's `error` as a failure kind. */
function stopFailureKind(error: string | undefined): ApiFailureKind {
  if (!error) return 'api_error';
  // The `error` kinds a give-up record names (refused credentials, no credits left) say the same here.
  const named = rowOf(FAILURE_BY_ERROR, error);
  if (named) return named;
  if (/prompt.?too.?long|context/i.test(error)) return 'context_exhausted';
  if (/overloaded/i.test(error)) return 'overloaded';
  if (/rate.?limit/i.test(error)) return 'rate_limit';
  if (/connect|network/i.test(error)) return 'connection';
  return 'api_error';
}

/** The evidence in hook activity, as one source for mergeObservations. */
export function summarizeHooks(s: HookState): PartialObservation {
  const part: PartialObservation = { source: 'hooks', recentCalls: s.recent.slice() };
  if (s.lastEventMs !== undefined) part.lastProgressMs = s.lastEventMs;
  const last = pickLastTool(s);
  if (last) part.lastTool = knownCall(last);
  if (s.lastOutput !== undefined) part.lastOutput = s.lastOutput;
  const asking = s.open.findLast((c) => c.name === 'AskUserQuestion');
  // An interruption clears every prompt; a prompt beside it is the idle Notification after it, which says less.
  if (s.interrupted) part.waitingHuman = { kind: 'interrupted', sinceMs: s.interrupted.atMs, detail: interruptionDetail(s.interrupted) };
  else if (s.waiting) part.waitingHuman = { kind: s.waiting.kind, sinceMs: s.waiting.sinceMs, detail: s.waiting.detail };
  else if (asking) part.waitingHuman = { kind: 'ask_user_question', sinceMs: asking.startedAtMs, detail: asking.inputSummary?.slice(0, 100) };
  if (s.stopped && !s.stopped.backgroundRunning) part.finished = { kind: s.stopped.event, atMs: s.stopped.atMs };
  // The turn ended while background subagents run (the Stop hook's `background_tasks`, 2.1.332): it waits on them.
  if (s.stopped?.backgroundAgents?.length) part.waitingOnChildren = { agentIds: s.stopped.backgroundAgents.slice(), isBackground: true };
  if (s.sessionEnded) part.runEnded = runEndedOf(s.sessionEnded);
  if (s.stopFailure) {
    const { error, atMs, message } = s.stopFailure;
    // Its message names the plan's usage limit (a claude.ai login gives up at once there): that wall, not a passing rate limit.
    part.failed = namesPlanLimit(message)
      ? { kind: 'usage_limit', atMs, detail: `StopFailure: ${error ?? 'unknown error'} (${message})` }
      : { kind: stopFailureKind(error), atMs, detail: `StopFailure: ${error ?? 'unknown error'}` };
  }
  return part;
}

const STOPPED_BY: Record<string, string> = {
  user: 'a person (or a client that does not say who)',
  session: "another session's Claude",
  system: 'a hook, plugin, permission check or app acting by itself',
};
const ENDED_BY: Record<string, string> = {
  stop: 'a stop (Esc, Ctrl+C or an interrupt request)',
  permission_denied: 'a denied permission',
  rewind: 'a rewind to an earlier message',
};

/** What the Interrupt hook said, in words: who stopped the turn, with what, and how it arrived. */
export function interruptionDetail(i: NonNullable<HookState['interrupted']>): string {
  const by = i.source === undefined ? '' : ` by ${STOPPED_BY[i.source] ?? i.source}`;
  const what = i.reason === undefined || i.reason === 'other' ? '' : ` with ${ENDED_BY[i.reason] ?? i.reason}`;
  const via = i.via === 'terminal' ? ' at its terminal' : i.via === 'client' ? ' from an app, SDK program or service' : '';
  return `Interrupt hook: the turn was stopped${by}${what}${via}; idle until a new prompt`;
}

/** The `SessionEnd` of a session as the end of every agent's run in it. */
export function runEndedOf(e: NonNullable<HookState['sessionEnded']>): NonNullable<PartialObservation['runEnded']> {
  return { atMs: e.atMs, detail: `SessionEnd${e.reason ? ` (${e.reason})` : ''}${e.atMs !== undefined ? ` at ${new Date(e.atMs).toISOString()}` : ''}` };
}

/**
 * A permission prompt raised in the main session (where background subagents' prompts go) holds
 * the agent too when the agent has a call open since before the prompt and nothing after it.
 */
export function inheritSessionPrompt(
  session: HookState,
  agent: { isOpen: boolean; openSinceMs?: number; lastProgressMs?: number },
): PartialObservation['waitingHuman'] {
  const w = session.waiting;
  if (!w || w.kind !== 'permission_prompt' || !agent.isOpen || w.sinceMs === undefined) return undefined;
  if (agent.openSinceMs !== undefined && agent.openSinceMs > w.sinceMs) return undefined;
  // 1 s of slack: the agent's own lines for the same moment may be stamped just after the prompt.
  if (agent.lastProgressMs !== undefined && agent.lastProgressMs > w.sinceMs + 1000) return undefined;
  return { kind: w.kind, sinceMs: w.sinceMs, detail: `in the main session${w.detail ? `: ${w.detail}` : ''}` };
}
