// Background tasks and child agents a transcript launches or hears about: their ids, the
// notifications that end them, and the status updates that wake a parent. Pure.
import { closeCall, trackTask, type TrackedTask, type TranscriptState } from '../transcript-state.js';

/** The call id under which an auto-backgrounded command's wait is kept open (the tool's own id is closed by its result). */
export const BACKGROUNDED = 'backgrounded:';

/** Tool names that launch a subagent (`Task` was renamed `Agent` in about 2.1.63). */
export function isSubagentTool(name: string): boolean {
  return name === 'Task' || name === 'Agent';
}

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
export function updateTask(s: TranscriptState, task: TrackedTask, isNotification = false): void {
  // A notification names the task, and in some builds the call that launched it: either finds it.
  const byCall = task.toolUseId === undefined ? undefined : s.tasks.find((t) => t.toolUseId === task.toolUseId && t.id !== task.id);
  if (byCall && !s.tasks.some((t) => t.id === task.id)) task = { ...task, id: byCall.id, toolUseId: undefined };
  const prev = s.tasks.find((t) => t.id === task.id);
  const wasWaitedOn = prev ? prev.kind === 'agent' && prev.status === 'running' : isNotification && AGENT_TASK_ID.test(task.id);
  trackTask(s, task);
  // The auto-backgrounded command an agent waits on (records/user.ts) ended: its wait is over.
  if (task.status !== 'running') closeCall(s, `${BACKGROUNDED}${task.id}`);
  if (!wasWaitedOn || task.status === 'running' || (s.turnEndedMs === undefined && s.finalTextMs === undefined)) return;
  s.turnEndedMs = undefined;
  s.finalTextMs = undefined;
  if (task.atMs !== undefined) s.lastEventMs = Math.max(s.lastEventMs ?? task.atMs, task.atMs);
}

/** A usage-limit give-up whose limit had not reset by `atMs` (or whose reset nobody said). */
const isWallStanding = (e: TranscriptState['apiError'], atMs: number | undefined) =>
  e?.kind === 'usage_limit' && (e.resetsAtMs === undefined || atMs === undefined || e.resetsAtMs > atMs);

const NOTIFICATION = /<(task-notification|bash-notification|agent-notification)>([\s\S]*?)<\/\1>/g;
const tag = (body: string, name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(body)?.[1]?.trim();

/**
 * Apply every `<task-notification>` (background Bash or agent ended, 2.1.x),
 * `<agent-notification>…<agent-id>…` (background agent ended, earlier builds) and
 * `<bash-notification>…<shell-id>…` (background shell ended, 2.0.x) in `text`.
 */
export function applyNotifications(s: TranscriptState, text: string, atMs: number | undefined, isDelivered = false): void {
  if (!text.includes('-notification>')) return;
  for (const m of text.matchAll(NOTIFICATION)) {
    // Delivered, it starts a turn the agent must answer: it ends an interruption, and a give-up
    // (the agent goes on: Claude Code sends the API a new request, issue 19 item 4), but not the
    // plan's usage limit before its reset: the woken turn meets the same wall (a `claude -p` lead
    // at the limit, woken by its subagent's failure, refuses the turn without a request or a
    // transcript record, and its run ends: measured on 2.1.337, usage-limit-login.test.ts).
    if (isDelivered) {
      s.interruptedMs = undefined;
      if (!isWallStanding(s.apiError, atMs)) s.apiError = undefined;
    }
    const id = tag(m[2]!, 'task-id') ?? tag(m[2]!, 'shell-id') ?? tag(m[2]!, 'agent-id');
    // 2.1.332 says `completed` of an agent that only stopped to wait on its own background work
    // ("… is waiting on its own background work", "the result below may be interim"): parked, not
    // ended; it resumes when that work reports. It still wakes the parent.
    const said = tag(m[2]!, 'status');
    const status = said === 'completed' && /waiting on its own background work/.test(tag(m[2]!, 'summary') ?? '') ? 'parked' : said;
    const toolUseId = tag(m[2]!, 'tool-use-id');
    const kind = m[1] === 'bash-notification' ? 'bash' : m[1] === 'agent-notification' ? 'agent' : 'unknown';
    if (id && status) updateTask(s, { id, kind, status, atMs, ...(toolUseId ? { toolUseId } : {}) }, m[1] !== 'bash-notification');
  }
}

/**
 * Where a record names a background task or child agent whose status it sets (records/user.ts,
 * applyNotifications, records/system.ts, the async launch text). A new place must be added here.
 */
const TASK_ID_MENTIONS =
  /"(?:agentId|task_id|shell_id|shellId|backgroundTaskId)":"([^"\\]+)"|<(?:task-id|shell-id|agent-id)>\s*([^<\s]+)\s*<\/(?:task-id|shell-id|agent-id)>|agentId:\s*([\w-]+)/g;

/**
 * Every id a stretch of transcript text (raw lines, unparsed) may set a task status for: a
 * superset of what folding those lines could add to `tasks`, found without JSON.parse.
 */
export function taskIdsMentioned(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(TASK_ID_MENTIONS)) out.add((m[1] ?? m[2] ?? m[3])!);
  return out;
}
