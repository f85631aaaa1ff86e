// Builders for Claude Code transcript lines and hook payloads, shaped after
// shared/fixtures/claude-code/ (2.1.39 / 2.1.101 records), for observe tests.

export const T0 = Date.parse('2026-02-12T10:00:00.000Z');
/** ISO time `s` seconds after T0. */
export const at = (s: number) => new Date(T0 + s * 1000).toISOString();
/** Epoch ms `s` seconds after T0. */
export const ms = (s: number) => T0 + s * 1000;

type Obj = Record<string, unknown>;
const line = (o: Obj) => JSON.stringify(o);
const base = (s: number, extra: Obj) => ({ isSidechain: false, sessionId: 'sess-1', version: '2.1.39', timestamp: at(s), ...extra });

export const toolUse = (id: string, name: string, input: Obj = {}) => ({ type: 'tool_use', id, name, input, caller: { type: 'direct' } });
export const toolResult = (id: string, content: unknown = 'ok', isError?: boolean) => ({
  tool_use_id: id,
  type: 'tool_result',
  content,
  ...(isError === undefined ? {} : { is_error: isError }),
});
export const text = (t: string) => ({ type: 'text', text: t });

export const assistant = (s: number, content: Obj[], extra: Obj = {}) =>
  line({ ...base(s, extra), type: 'assistant', message: { role: 'assistant', type: 'message', content, stop_reason: null } });
export const user = (s: number, content: unknown, extra: Obj = {}) => line({ ...base(s, extra), type: 'user', message: { role: 'user', content } });
export const system = (s: number, subtype: string, extra: Obj = {}) => line({ ...base(s, extra), type: 'system', subtype });
export const progress = (s: number, data: Obj, parentToolUseID?: string, extra: Obj = {}) =>
  line({ ...base(s, extra), type: 'progress', data, parentToolUseID });
export const apiError = (s: number, attempt: number) =>
  system(s, 'api_error', { level: 'error', retryAttempt: attempt, maxRetries: 10, retryInMs: 500, error: { status: 529, message: 'overloaded' } });
export const notification = (taskId: string, status: string) =>
  `<task-notification>\n<task-id>${taskId}</task-id>\n<output-file>/tmp/x/${taskId}.output</output-file>\n<status>${status}</status>\n<summary>done</summary>\n</task-notification>`;

/** Lines joined with a trailing newline, as Claude Code writes them. */
export const jsonl = (...lines: string[]) => lines.join('\n') + '\n';

/** A hook payload as Claude Code sends it on stdin. */
export const payload = (event: string, extra: Obj = {}) => ({
  session_id: 'sess-1',
  transcript_path: '/home/u/.claude/projects/-home-u-p/sess-1.jsonl',
  cwd: '/home/u/p',
  permission_mode: 'default',
  hook_event_name: event,
  ...extra,
});
