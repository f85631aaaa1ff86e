// Folds one Claude Code transcript record (one parsed JSONL line) into TranscriptState.
// Pure: no I/O, no clock; mutates the state it is given. Record shapes:
// shared/reference/claude-code-surfaces.md §1. Keys on `type`, `message.content[].type`,
// `tool_use.id`/`tool_use_id` and `timestamp`; unknown record types are ignored.
import { summarizeToolInput } from './tool-input-summary.js';
import type { ApiFailureKind } from './observation.js';
import { closeCall, ERROR_MAX_CHARS, excerpt, openCall, trackTask, type TrackedTask, type TranscriptState } from './transcript-state.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Tool names that launch a subagent (`Task` was renamed `Agent` in about 2.1.63). */
export function isSubagentTool(name: string): boolean {
  return name === 'Task' || name === 'Agent';
}

/** Text of a tool_result `content`: a string or `{type:"text",text}` blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isRec(b) ? (str(b.text) ?? '') : '')).join('\n');
}

const NOTIFICATION = /<(task-notification|bash-notification|agent-notification)>([\s\S]*?)<\/\1>/g;
const tag = (body: string, name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(body)?.[1]?.trim();

/**
 * A local agent's task id: `a` and 6 or 16 hex digits (`a2898e3`, `aa713ded844f2cbf7`); background
 * shells are `b…` (`b7636e2`) or `bash_N` (2.0.x).
 */
export const AGENT_TASK_ID = /^a[0-9a-f]{6}(?:[0-9a-f]{10})?$/;

/**
 * A background task's new status. When it ends a background subagent after the parent's turn
 * ended, Claude Code wakes the parent with the notification: a new turn begins at once. A
 * notification for an agent whose launch was not read (a cold tail start) wakes it too.
 */
function updateTask(s: TranscriptState, task: TrackedTask, isNotification = false): void {
  // A notification names the task, and in some builds the call that launched it: either finds it.
  const byCall = task.toolUseId === undefined ? undefined : s.tasks.find((t) => t.toolUseId === task.toolUseId && t.id !== task.id);
  if (byCall && !s.tasks.some((t) => t.id === task.id)) task = { ...task, id: byCall.id, toolUseId: undefined };
  const prev = s.tasks.find((t) => t.id === task.id);
  const wasWaitedOn = prev ? prev.kind === 'agent' && prev.status === 'running' : isNotification && AGENT_TASK_ID.test(task.id);
  trackTask(s, task);
  if (!wasWaitedOn || task.status === 'running' || (s.turnEndedMs === undefined && s.finalTextMs === undefined)) return;
  s.turnEndedMs = undefined;
  s.finalTextMs = undefined;
  if (task.atMs !== undefined) s.lastEventMs = Math.max(s.lastEventMs ?? task.atMs, task.atMs);
}

/**
 * Apply every `<task-notification>` (background Bash or agent ended, 2.1.x),
 * `<agent-notification>…<agent-id>…` (background agent ended, earlier builds) and
 * `<bash-notification>…<shell-id>…` (background shell ended, 2.0.x) in `text`.
 */
function applyNotifications(s: TranscriptState, text: string, atMs: number | undefined, isDelivered = false): void {
  if (!text.includes('-notification>')) return;
  for (const m of text.matchAll(NOTIFICATION)) {
    // Delivered to an agent the human interrupted, it starts a turn the agent must answer.
    if (isDelivered) s.interruptedMs = undefined;
    const id = tag(m[2]!, 'task-id') ?? tag(m[2]!, 'shell-id') ?? tag(m[2]!, 'agent-id');
    const status = tag(m[2]!, 'status');
    const toolUseId = tag(m[2]!, 'tool-use-id');
    const kind = m[1] === 'bash-notification' ? 'bash' : m[1] === 'agent-notification' ? 'agent' : 'unknown';
    if (id && status) updateTask(s, { id, kind, status, atMs, ...(toolUseId ? { toolUseId } : {}) }, m[1] !== 'bash-notification');
  }
}

/** A teammate spawn's result text (2.1.x: "Spawned successfully.\nagent_id: scaffolder@canvas-build\n…"). */
const TEAMMATE_SPAWN = /^\s*Spawned successfully\.[\s\S]*?\bagent_id:\s*(\S+)/;

/** A message from a teammate, delivered to the lead as user text (`teammate_id` is the short name, or `system`). */
const TEAMMATE_MESSAGE = /<teammate-message\s+teammate_id="([^"]+)"[^>]*>([\s\S]*?)<\/teammate-message>/g;

/** The tracked teammate `name` (short, or `<name>@<team>`). */
const teammateNamed = (s: TranscriptState, name: string) => s.tasks.find((t) => t.kind === 'teammate' && (t.id === name || t.id.startsWith(`${name}@`)));

function setTeammate(s: TranscriptState, name: string | undefined, status: string, atMs: number | undefined): void {
  const t = name === undefined ? undefined : teammateNamed(s, name);
  if (t) trackTask(s, { id: t.id, kind: 'teammate', status, atMs });
}

/**
 * Apply every `<teammate-message>` in `text` to the teammates this lead spawned: a
 * `shutdown_approved` (or the system's `teammate_terminated`, "X has shut down.") ends one, an
 * `idle_notification` makes it idle (its turn ended: it waits for a message), anything else
 * shows it at work. Names the lead never spawned (a teammate's own transcript hears from
 * `team-lead`) are not tracked.
 */
function applyTeammateMessages(s: TranscriptState, text: string, atMs: number | undefined): void {
  for (const m of text.matchAll(TEAMMATE_MESSAGE)) {
    const from = m[1]!;
    const body = m[2]!.trim();
    let msg: Rec | undefined;
    try {
      const parsed: unknown = body.startsWith('{') ? JSON.parse(body) : undefined;
      msg = isRec(parsed) ? parsed : undefined;
    } catch {
      msg = undefined;
    }
    const type = str(msg?.type);
    const sender = str(msg?.from) ?? from;
    if (type === 'teammate_terminated') setTeammate(s, /^\s*(\S+) has shut down/.exec(str(msg?.message) ?? '')?.[1], 'terminated', atMs);
    else if (type === 'shutdown_approved') setTeammate(s, sender, 'shutdown', atMs);
    else if (type === 'idle_notification') setTeammate(s, sender, 'idle', atMs);
    else setTeammate(s, from, 'running', atMs);
  }
}

/** A user record that delivers teammate messages: it wakes the lead (a new turn it must answer), but it is not a human prompt. */
function isTeammateMessage(rec: Rec): boolean {
  if (rec.type !== 'user' || !isRec(rec.message)) return false;
  const c = rec.message.content;
  const text = typeof c === 'string' ? c : Array.isArray(c) && !c.some((b) => isRec(b) && b.type === 'tool_result') ? c.map((b) => (isRec(b) ? (str(b.text) ?? '') : '')).join('\n') : '';
  return text.includes('<teammate-message');
}

/** `toolUseResult.status` values of a subagent that has not ended. */
const AGENT_STILL_RUNNING = new Set(['running', 'pending', 'async_launched', 'remote_launched']);

/** The agent id in an async launch's result text ("Async agent launched successfully.\nagentId: a1b2…"). */
const ASYNC_LAUNCH = /^\s*Async agent launched successfully[\s\S]*?\bagentId:\s*([\w-]+)/;

/** Tools that stop a background shell or task, and the input field naming it. */
const KILL_TOOLS: Record<string, string[]> = { KillShell: ['shell_id'], KillBash: ['shell_id'], TaskStop: ['task_id', 'shell_id'] };

/** Claude Code's own error text, written as an assistant message when it gives up on the API. */
const API_FAILURES: [RegExp, ApiFailureKind][] = [
  [/prompt is too long|context (?:length|window)|too many tokens/i, 'context_exhausted'],
  [/overloaded|\b529\b/i, 'overloaded'],
  [/connection error|unable to connect|ECONNRESET|ECONNREFUSED|ETIMEDOUT|fetch failed|network/i, 'connection'],
  [/rate.?limit|usage limit|\b429\b/i, 'rate_limit'],
];

/** The API failure an assistant record reports, if it is Claude Code's terminal error message. */
function apiFailure(rec: Rec, message: Rec, text: string): TranscriptState['apiError'] | undefined {
  const isFlagged = rec.isApiErrorMessage === true;
  // 1.0.x wrote the same message without the flag, from the "<synthetic>" model.
  const isSynthetic = message.model === '<synthetic>' && /^(API Error|Prompt is too long|Connection error|Unable to connect|Request timed out)/i.test(text.trim());
  if (!isFlagged && !isSynthetic) return undefined;
  const status = num(rec.apiErrorStatus);
  const probe = `${text} ${str(rec.error) ?? ''} ${status ?? ''}`;
  const kind = API_FAILURES.find(([re]) => re.test(probe))?.[1] ?? 'api_error';
  return { status, kind, text: excerpt(text.trim(), ERROR_MAX_CHARS) };
}

function applyAssistant(s: TranscriptState, rec: Rec, atMs: number | undefined): void {
  const message = isRec(rec.message) ? rec.message : {};
  if (atMs !== undefined) s.lastAssistantMs = Math.max(s.lastAssistantMs ?? atMs, atMs);
  const content = Array.isArray(message.content) ? message.content : [];
  const text = content.map((b) => (isRec(b) && b.type === 'text' ? (str(b.text) ?? '') : '')).join('\n');
  const failure = apiFailure(rec, message, text);
  s.apiError = failure && { ...failure, atMs };
  const tail = s.tail;
  const messageId = str(message.id);
  if (tail && messageId !== undefined) {
    if (tail.firstMessageId === undefined) tail.firstMessageId = messageId;
    else if (messageId !== tail.firstMessageId && !tail.isFresh) {
      tail.isFresh = true;
      // Nothing may be open when a new message begins; a call the tail rebuilt from progress lines still is.
      if (s.open.length > 0) tail.isSpoiled = true;
    }
  }
  for (const block of content) {
    if (!isRec(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '') {
      s.lastOutput = excerpt(block.text);
      s.finalTextMs = atMs ?? s.finalTextMs ?? 0;
    } else if (block.type === 'tool_use' && typeof block.name === 'string') {
      s.finalTextMs = undefined;
      const facts = summarizeToolInput(block.name, block.input);
      const input = isRec(block.input) ? block.input : {};
      const killsTaskId = KILL_TOOLS[block.name]?.map((k) => str(input[k])).find((x) => x !== undefined);
      if (block.name === 'TeamCreate') s.isTeamKnown = true;
      if (block.name === 'SendMessage') applySendMessage(s, input, atMs);
      const isNew = openCall(s, { name: block.name, ...facts, startedAtMs: atMs, isOpen: true, toolUseId: str(block.id), ...(killsTaskId ? { killsTaskId } : {}) });
      if (tail?.isFresh && isNew) tail.callsSinceFresh++;
    }
  }
}

/**
 * The lead writes to a teammate: anything but a shutdown request or answer wakes an idle one
 * (`recipient`/`to`; `*` or a `broadcast` writes to all).
 */
function applySendMessage(s: TranscriptState, input: Rec, atMs: number | undefined): void {
  const message = isRec(input.message) ? input.message : undefined;
  const type = str(input.type) ?? str(message?.type);
  if (type?.startsWith('shutdown_')) return;
  const to = str(input.recipient) ?? str(input.to);
  const all = type === 'broadcast' || to === '*';
  for (const t of s.tasks) {
    if (t.kind === 'teammate' && t.status === 'idle' && (all || (to !== undefined && (t.id === to || t.id.startsWith(`${to}@`))))) trackTask(s, { id: t.id, kind: 'teammate', status: 'running', atMs });
  }
}

function applyUser(s: TranscriptState, rec: Rec, atMs: number | undefined, actor: RecordActor): void {
  const message = isRec(rec.message) ? rec.message : {};
  if ((actor === 'human' && !isLocalCommand(rec)) || isTeammateMessage(rec)) {
    // A new prompt: the previous turn's final answer and give-up no longer describe the agent.
    s.apiError = undefined;
    s.finalTextMs = undefined;
  }
  let resultFor: string | undefined;
  if (typeof message.content === 'string') {
    applyNotifications(s, message.content, atMs, true);
    applyTeammateMessages(s, message.content, atMs);
  } else if (Array.isArray(message.content)) {
    for (const block of message.content) {
      if (isRec(block) && block.type === 'text' && typeof block.text === 'string') {
        applyNotifications(s, block.text, atMs, true);
        applyTeammateMessages(s, block.text, atMs);
      }
      if (!isRec(block) || block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
      const error = block.is_error === true ? excerpt(resultText(block.content), ERROR_MAX_CHARS) : undefined;
      const call = s.open.find((c) => c.toolUseId === block.tool_use_id);
      if (call?.killsTaskId && error === undefined) updateTask(s, { id: call.killsTaskId, kind: 'unknown', status: 'killed', atMs });
      // A background agent's launch, when the record carries no structured toolUseResult.
      const launched = error === undefined ? ASYNC_LAUNCH.exec(resultText(block.content))?.[1] : undefined;
      if (launched) trackTask(s, { id: launched, kind: 'agent', status: 'running', atMs, toolUseId: block.tool_use_id });
      const teammate = error === undefined ? TEAMMATE_SPAWN.exec(resultText(block.content))?.[1] : undefined;
      if (teammate) trackTask(s, { id: teammate, kind: 'teammate', status: 'running', atMs, toolUseId: block.tool_use_id });
      // A team deleted: Claude Code refuses while a member is active, so none is left.
      if (call?.name === 'TeamDelete' && error === undefined) {
        for (const t of s.tasks) if (t.kind === 'teammate' && t.status !== 'shutdown' && t.status !== 'terminated') trackTask(s, { id: t.id, kind: 'teammate', status: 'deleted', atMs });
      }
      const isKnown = closeCall(s, block.tool_use_id, error);
      // After a message that began in the tail, every result answers a call the tail holds.
      if (!isKnown && s.tail?.isFresh) s.tail.isSpoiled = true;
      resultFor ??= block.tool_use_id;
    }
  }
  if (rec.isCompactSummary === true && atMs !== undefined) s.compactedAtMs = atMs;
  const result = rec.toolUseResult;
  if (!isRec(result)) return;
  const bgId = str(result.backgroundTaskId);
  if (bgId) trackTask(s, { id: bgId, kind: 'bash', status: 'running', atMs });
  const agentId = str(result.agentId);
  // A subagent's end: its Task/Agent result (`completed`), or a TaskOutput/AgentOutput of a background one (`failed`…).
  if (agentId && typeof result.status === 'string' && !AGENT_STILL_RUNNING.has(result.status)) updateTask(s, { id: agentId, kind: 'agent', status: result.status, atMs });
  const teammateId = result.status === 'teammate_spawned' ? (str(result.agent_id) ?? str(result.teammate_id)) : undefined;
  if (teammateId) trackTask(s, { id: teammateId, kind: 'teammate', status: 'running', atMs, ...(resultFor ? { toolUseId: resultFor } : {}) });
  if (agentId && result.status === 'async_launched') trackTask(s, { id: agentId, kind: 'agent', status: 'running', atMs, ...(resultFor ? { toolUseId: resultFor } : {}) });
  // TaskOutput: {retrieval_status, task: {task_id, status}}
  const task = isRec(result.task) ? result.task : undefined;
  const taskId = str(task?.task_id);
  if (taskId && typeof task?.status === 'string') updateTask(s, { id: taskId, kind: 'unknown', status: task.status, atMs });
  // 2.0.x BashOutput: {shellId, status}; KillShell: {message: "Successfully killed shell: …", shell_id}.
  const shellId = str(result.shellId);
  if (shellId && typeof result.status === 'string') trackTask(s, { id: shellId, kind: 'bash', status: result.status, atMs });
  const killed = str(result.shell_id);
  if (killed && /kill/i.test(str(result.message) ?? '')) trackTask(s, { id: killed, kind: 'bash', status: 'killed', atMs });
}

/**
 * Harness records about background tasks: `task_notification` / `task_updated` (stream-json
 * output; a task ended) and `agents_killed` (the user stopped every background agent).
 */
function applyTaskRecord(s: TranscriptState, rec: Rec, atMs: number | undefined): void {
  if (rec.subtype === 'agents_killed') {
    for (const id of s.tasks.filter((t) => t.kind === 'agent' && t.status === 'running').map((t) => t.id)) trackTask(s, { id, kind: 'agent', status: 'killed', atMs });
    return;
  }
  const id = str(rec.task_id);
  const status = rec.subtype === 'task_updated' ? (isRec(rec.patch) ? str(rec.patch.status) : undefined) : str(rec.status);
  const toolUseId = str(rec.tool_use_id);
  if (id && status && status !== 'running' && status !== 'pending') updateTask(s, { id, kind: 'unknown', status, atMs, ...(toolUseId ? { toolUseId } : {}) }, true);
}

/** A call rebuilt from a progress line after a message that began in the tail: that message did not end what came before. */
function spoilFreshTail(s: TranscriptState): void {
  if (s.tail?.isFresh) s.tail.isSpoiled = true;
}

/** A `bash_progress` line for a call we never saw (it began before a tail start): rebuild it. */
function applyBashProgress(s: TranscriptState, rec: Rec, data: Rec, atMs: number | undefined): void {
  const id = str(rec.parentToolUseID);
  if (!id || s.recent.some((c) => c.toolUseId === id) || s.open.some((c) => c.toolUseId === id)) return;
  const elapsed = num(data.elapsedTimeSeconds);
  const startedAtMs = atMs !== undefined && elapsed !== undefined ? atMs - elapsed * 1000 : atMs;
  openCall(s, { name: 'Bash', timeoutMs: num(data.timeoutMs), startedAtMs, isOpen: true, toolUseId: id });
  spoilFreshTail(s);
}

/**
 * An `agent_progress` line names the subagent of an open Task/Agent call; rebuild the call when a
 * tail start cut it off. Not for a subagent known as a task (a background one, its launch
 * answered `async_launched`; or one whose end was read): its launch call returned, though it may
 * have left the last 20 calls long ago, so the line must not reopen it as a foreground call.
 */
function applyAgentProgress(s: TranscriptState, rec: Rec, data: Rec, atMs: number | undefined, isAfterTurnEnd: boolean): void {
  const id = str(rec.parentToolUseID);
  const agentId = str(data.agentId);
  if (!id || !agentId) return;
  const known = [...s.open, ...s.recent].filter((c) => c.toolUseId === id);
  if (known.length === 0) {
    if (s.tasks.some((t) => t.id === agentId || t.toolUseId === id)) return;
    // Right after a turn end no foreground call is open: this is a background agent launched
    // before what was read (a cold tail), running, as the whole file's state knows it.
    if (isAfterTurnEnd) {
      trackTask(s, { id: agentId, kind: 'agent', status: 'running', atMs, toolUseId: id });
      return;
    }
    openCall(s, { name: 'Task', startedAtMs: atMs, isOpen: true, toolUseId: id, childAgentId: agentId });
    spoilFreshTail(s);
    return;
  }
  for (const c of known) c.childAgentId = agentId;
}

/**
 * `[Request interrupted by user]`: Esc, or Claude Code's own stall watchdog giving up on the
 * agent. It stops the agent, so it is not progress: idle keeps counting from the last real work.
 */
function isInterruption(rec: Rec): boolean {
  if (rec.type !== 'user' || !isRec(rec.message)) return false;
  const c = rec.message.content;
  const first = typeof c === 'string' ? c : Array.isArray(c) && isRec(c[0]) ? str(c[0].text) : undefined;
  return first?.startsWith('[Request interrupted by user') ?? false;
}

/**
 * A user record that is a local command (`/model`, `/login`) or its output: the human's, not the
 * agent's. Newer builds (2.1.96) write the output as `system/local_command` instead.
 */
function isLocalCommand(rec: Rec): boolean {
  if (rec.type === 'system' && rec.subtype === 'local_command') return true;
  if (rec.type !== 'user' || !isRec(rec.message)) return false;
  const c = rec.message.content;
  const text = typeof c === 'string' ? c : Array.isArray(c) && isRec(c[0]) ? (str(c[0].text) ?? '') : '';
  return isLocalCommandText(text);
}

/** 1.0.x and scripted runs (`-p`, SDK: entrypoint `sdk-*`) write no `turn_duration` record. */
function noteVersion(s: TranscriptState, rec: Rec): void {
  const version = str(rec.version);
  const entrypoint = str(rec.entrypoint);
  if (version === undefined && entrypoint === undefined) return;
  const major = version === undefined ? undefined : Number.parseInt(version, 10);
  s.hasNoTurnEndRecords = (major !== undefined && major < 2) || (entrypoint?.startsWith('sdk') ?? false) ? true : undefined;
}

/** Fold one parsed record into `s`; `at` names its place ("line 12" or "byte 4096") for messages. */
export function applyTranscriptRecord(s: TranscriptState, rec: unknown, at: string): void {
  if (!isRec(rec) || typeof rec.type !== 'string') return;
  s.records++;
  const ts = str(rec.timestamp);
  const parsed = ts === undefined ? NaN : Date.parse(ts);
  const atMs = Number.isFinite(parsed) ? parsed : undefined;
  const type = rec.type;
  const known = ['assistant', 'user', 'progress', 'system', 'attachment', 'result'].includes(type);
  const actor = recordActor(rec);
  const isCommand = isLocalCommand(rec);
  if (type === 'system' && rec.subtype === 'compact_boundary') {
    const meta = isRec(rec.compactMetadata) ? rec.compactMetadata : {};
    s.isManualCompact = meta.trigger === 'manual' ? true : undefined;
  }
  // A manual /compact (a local command) and its summary are the human's doing, like /model.
  const isHumanCompact = s.isManualCompact === true && ((type === 'system' && rec.subtype === 'compact_boundary') || rec.isCompactSummary === true);
  if (known && actor !== 'interrupt' && !isCommand && !isHumanCompact) {
    const agentId = str(rec.agentId);
    const sessionId = str(rec.sessionId) ?? str(rec.session_id);
    if (agentId) s.agentId = agentId;
    if (sessionId) s.sessionId = sessionId;
    if (agentId || sessionId) s.identityAt = at;
    const teamName = str(rec.teamName);
    if (teamName) s.teamName = teamName;
    noteVersion(s, rec);
    if (atMs !== undefined) {
      s.lastEventMs = Math.max(s.lastEventMs ?? atMs, atMs);
      s.firstEventMs ??= atMs;
    }
  }
  if (isRec(rec) && rec.isCompactSummary !== true && type !== 'system') s.isManualCompact = undefined;
  const isRetry = type === 'system' && rec.subtype === 'api_error';
  if (known && !isRetry && type !== 'system') s.apiRetry = undefined;
  // The agent at work, or a new prompt, resumes a finished turn; hook output, queued input,
  // notifications (the agent's answer to them resumes it) and local commands do not.
  // A teammate's message wakes a lead whose turn ended: a new turn it must answer.
  // A stream-json `result` ends a `claude -p` run; a run resumed into the same file (its
  // `system/init`, a prompt, the agent at work) is no longer finished by it.
  const isTeamWake = isTeammateMessage(rec);
  const isAfterTurnEnd = s.turnEndedMs !== undefined;
  const isRunStart = type === 'system' && rec.subtype === 'init';
  if ((actor === 'agent' && !isHumanCompact) || (actor === 'human' && !isCommand) || isTeamWake || isRunStart) {
    s.turnEndedMs = undefined;
    s.interruptedMs = undefined;
    s.result = undefined;
  }
  // A new run, like a new prompt: the last run's final answer and give-up no longer describe the agent.
  if (isRunStart) {
    s.finalTextMs = undefined;
    s.apiError = undefined;
  }
  // A subagent's records say `isSidechain` and carry its `agentId`: no human types into it.
  if (actor === 'interrupt' && rec.isSidechain !== true && rec.agentId === undefined) {
    // Esc: the turn is neither over nor going on; the agent waits for the human's next prompt.
    s.interruptedMs = atMs ?? s.lastEventMs ?? 0;
    s.turnEndedMs = undefined;
    s.finalTextMs = undefined;
  }
  if ((actor === 'human' && !isCommand) || isTeamWake || rec.isCompactSummary === true || (type === 'system' && (rec.subtype === 'turn_duration' || rec.subtype === 'stop_hook_summary'))) {
    s.hasTurnStart = true;
    // A turn boundary in the tail: what came before it is context enough (the read-back rule).
    s.tail = undefined;
  }
  switch (type) {
    case 'assistant':
      return applyAssistant(s, rec, atMs);
    case 'user':
      return applyUser(s, rec, atMs, actor);
    case 'progress': {
      const data = isRec(rec.data) ? rec.data : {};
      if (data.type === 'bash_progress') applyBashProgress(s, rec, data, atMs);
      if (data.type === 'agent_progress') applyAgentProgress(s, rec, data, atMs, isAfterTurnEnd);
      return;
    }
    case 'system':
      if (isRetry) {
        const err = isRec(rec.error) ? rec.error : {};
        s.apiRetry = { sinceMs: s.apiRetry?.sinceMs ?? atMs, attempt: num(rec.retryAttempt), maxRetries: num(rec.maxRetries), retryInMs: num(rec.retryInMs), status: num(err.status) };
      } else if (rec.subtype === 'compact_boundary') {
        s.compactedAtMs = atMs;
      } else if (rec.subtype === 'turn_duration' || rec.subtype === 'stop_hook_summary') {
        s.turnEndedMs = atMs ?? s.turnEndedMs ?? 0;
      } else if (rec.subtype === 'task_notification' || rec.subtype === 'task_updated' || rec.subtype === 'agents_killed') {
        applyTaskRecord(s, rec, atMs);
      }
      return;
    case 'queue-operation':
      // Queued input is not the agent's work, but it carries task notifications.
      if (typeof rec.content === 'string') applyNotifications(s, rec.content, atMs);
      return;
    case 'result':
      s.result = { subtype: str(rec.subtype), atMs, isError: rec.is_error === true };
      if (typeof rec.result === 'string' && rec.result.trim() !== '') s.lastOutput = excerpt(rec.result);
      return;
    default:
      return;
  }
}

/** Where a record names a background task or child agent whose status it sets (applyUser, applyNotifications, applyTaskRecord, ASYNC_LAUNCH). */
const TASK_ID_MENTIONS = /"(?:agentId|task_id|shell_id|shellId|backgroundTaskId)":"([^"\\]+)"|<(?:task-id|shell-id|agent-id)>\s*([^<\s]+)\s*<\/(?:task-id|shell-id|agent-id)>|agentId:\s*([\w-]+)/g;

/**
 * Every id a stretch of transcript text (raw lines, unparsed) may set a task status for: a
 * superset of what folding those lines could add to `tasks`, found without JSON.parse.
 */
export function taskIdsMentioned(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(TASK_ID_MENTIONS)) out.add((m[1] ?? m[2] ?? m[3])!);
  return out;
}

/** Who a record shows at work: used by `replay` to tell whether the agent went on after a stall. */
export type RecordActor = 'agent' | 'human' | 'interrupt' | 'harness';

/** 1.0.x wrote the caveat before a local command as plain `isMeta` user text (2.x tags it `<local-command-caveat>`). */
const CAVEAT_1_0 = 'Caveat: The messages below were generated by the user while running local commands.';

/** Local commands typed by the human (`/model`, `/login`) and their output, written as user text. */
export function isLocalCommandText(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('<command-name>') || t.startsWith('<command-message>') || t.startsWith('<local-command-stdout>') || t.startsWith('<local-command-stderr>') || t.startsWith('<local-command-caveat>') || t.startsWith(CAVEAT_1_0);
}

/** The actor of one parsed record (see RecordActor). */
export function recordActor(rec: unknown): RecordActor {
  if (!isRec(rec)) return 'harness';
  switch (rec.type) {
    case 'assistant':
      return 'agent';
    case 'progress':
      return isRec(rec.data) && rec.data.type === 'hook_progress' ? 'harness' : 'agent';
    case 'system':
      return rec.subtype === 'api_error' || rec.subtype === 'compact_boundary' ? 'agent' : 'harness';
    case 'user': {
      if (isInterruption(rec)) return 'interrupt';
      if (rec.isMeta === true) return 'harness';
      if (rec.isCompactSummary === true) return 'agent';
      const c = isRec(rec.message) ? rec.message.content : undefined;
      if (Array.isArray(c) && c.some((b) => isRec(b) && b.type === 'tool_result')) return 'agent';
      const text = typeof c === 'string' ? c : Array.isArray(c) ? c.map((b) => (isRec(b) ? (str(b.text) ?? '') : '')).join('\n') : '';
      if (text.includes('<task-notification>') || text.includes('<bash-notification>') || text.includes('<agent-notification>')) return 'harness';
      // A teammate's message (agent teams) is delivered by the harness, not typed by a human.
      if (text.includes('<teammate-message')) return 'harness';
      return 'human';
    }
    default:
      return 'harness';
  }
}
