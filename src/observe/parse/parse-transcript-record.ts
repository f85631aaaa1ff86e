// Folds one Claude Code transcript record (one parsed JSONL line) into TranscriptState.
// Pure: no I/O, no clock; mutates the state it is given. Record shapes:
// shared/reference/claude-code-surfaces.md §1. Keys on `type`, `message.content[].type`,
// `tool_use.id`/`tool_use_id` and `timestamp`; unknown record types are ignored.
import { summarizeToolInput } from './tool-input-summary.js';
import { closeCall, ERROR_MAX_CHARS, excerpt, openCall, trackTask, type TranscriptState } from './transcript-state.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Text of a tool_result `content`: a string or `{type:"text",text}` blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isRec(b) ? (str(b.text) ?? '') : '')).join('\n');
}

const NOTIFICATION = /<task-notification>([\s\S]*?)<\/task-notification>/g;
const tag = (body: string, name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(body)?.[1]?.trim();

/** Apply every `<task-notification>` in `text` (background Bash or agent ended). */
function applyNotifications(s: TranscriptState, text: string, atMs: number | undefined): void {
  if (!text.includes('<task-notification>')) return;
  for (const m of text.matchAll(NOTIFICATION)) {
    const id = tag(m[1]!, 'task-id');
    const status = tag(m[1]!, 'status');
    if (id && status) trackTask(s, { id, kind: 'unknown', status, atMs });
  }
}

function applyAssistant(s: TranscriptState, rec: Rec, atMs: number | undefined): void {
  const message = isRec(rec.message) ? rec.message : {};
  if (atMs !== undefined) s.lastAssistantMs = Math.max(s.lastAssistantMs ?? atMs, atMs);
  if (rec.isApiErrorMessage === true) s.apiError = { atMs, status: num(rec.apiErrorStatus) };
  else s.apiError = undefined;
  const content = Array.isArray(message.content) ? message.content : [];
  for (const block of content) {
    if (!isRec(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '') {
      s.lastOutput = excerpt(block.text);
    } else if (block.type === 'tool_use' && typeof block.name === 'string') {
      const facts = summarizeToolInput(block.name, block.input);
      openCall(s, { name: block.name, ...facts, startedAtMs: atMs, isOpen: true, toolUseId: str(block.id) });
    }
  }
}

function applyUser(s: TranscriptState, rec: Rec, atMs: number | undefined): void {
  const message = isRec(rec.message) ? rec.message : {};
  if (typeof message.content === 'string') {
    applyNotifications(s, message.content, atMs);
  } else if (Array.isArray(message.content)) {
    for (const block of message.content) {
      if (!isRec(block) || block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
      const error = block.is_error === true ? excerpt(resultText(block.content), ERROR_MAX_CHARS) : undefined;
      closeCall(s, block.tool_use_id, error);
    }
  }
  if (rec.isCompactSummary === true && atMs !== undefined) s.compactedAtMs = atMs;
  const result = rec.toolUseResult;
  if (!isRec(result)) return;
  const bgId = str(result.backgroundTaskId);
  if (bgId) trackTask(s, { id: bgId, kind: 'bash', status: 'running', atMs });
  const agentId = str(result.agentId);
  if (agentId && result.status === 'completed') trackTask(s, { id: agentId, kind: 'agent', status: 'completed', atMs });
  if (agentId && result.status === 'async_launched') trackTask(s, { id: agentId, kind: 'agent', status: 'running', atMs });
  // TaskOutput: {retrieval_status, task: {task_id, status}}
  const task = isRec(result.task) ? result.task : undefined;
  const taskId = str(task?.task_id);
  if (taskId && typeof task?.status === 'string') trackTask(s, { id: taskId, kind: 'unknown', status: task.status, atMs });
}

/** A `bash_progress` line for a call we never saw (it began before a tail start): rebuild it. */
function applyBashProgress(s: TranscriptState, rec: Rec, data: Rec, atMs: number | undefined): void {
  const id = str(rec.parentToolUseID);
  if (!id || s.recent.some((c) => c.toolUseId === id) || s.open.some((c) => c.toolUseId === id)) return;
  const elapsed = num(data.elapsedTimeSeconds);
  const startedAtMs = atMs !== undefined && elapsed !== undefined ? atMs - elapsed * 1000 : atMs;
  openCall(s, { name: 'Bash', timeoutMs: num(data.timeoutMs), startedAtMs, isOpen: true, toolUseId: id });
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

/** Fold one parsed record into `s`; `at` names its place ("line 12" or "byte 4096") for messages. */
export function applyTranscriptRecord(s: TranscriptState, rec: unknown, at: string): void {
  if (!isRec(rec) || typeof rec.type !== 'string') return;
  s.records++;
  const ts = str(rec.timestamp);
  const parsed = ts === undefined ? NaN : Date.parse(ts);
  const atMs = Number.isFinite(parsed) ? parsed : undefined;
  const type = rec.type;
  const known = ['assistant', 'user', 'progress', 'system', 'attachment', 'result'].includes(type);
  if (known && !isInterruption(rec)) {
    const agentId = str(rec.agentId);
    const sessionId = str(rec.sessionId) ?? str(rec.session_id);
    if (agentId) s.agentId = agentId;
    if (sessionId) s.sessionId = sessionId;
    if (agentId || sessionId) s.identityAt = at;
    if (atMs !== undefined) s.lastEventMs = Math.max(s.lastEventMs ?? atMs, atMs);
  }
  const isRetry = type === 'system' && rec.subtype === 'api_error';
  if (known && !isRetry && type !== 'system') s.apiRetry = undefined;
  // Hook output lines follow a turn's end; real work (a prompt, a call, a result) resumes it.
  if (type === 'assistant' || type === 'user' || (type === 'progress' && isRec(rec.data) && rec.data.type !== 'hook_progress')) {
    s.turnEndedMs = undefined;
  }
  switch (type) {
    case 'assistant':
      return applyAssistant(s, rec, atMs);
    case 'user':
      return applyUser(s, rec, atMs);
    case 'progress': {
      const data = isRec(rec.data) ? rec.data : {};
      if (data.type === 'bash_progress') applyBashProgress(s, rec, data, atMs);
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
