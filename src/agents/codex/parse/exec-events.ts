// `codex exec --json` stdout (Codex CLI 0.171.0; ../shared/reference/codex-0.171.0.md §5) folded
// into what the rollout cannot show: the API retries. Pure: lines in, state out.
//
// One JSON object per line, no timestamps (the reader dates the newest line by the file's mtime):
// `thread.started {thread_id}`, `turn.started`, `item.started` / `item.completed`, `error {message}`
// (a retry is announced only here: "Reconnecting... 2/5 (…429…)", "Reconnecting... waiting for
// network (…)"), `turn.completed`, `turn.failed {error: {message}}`.

export interface ExecEventsState {
  threadId?: string;
  /** The newest line was a retry announcement of the open turn: its text. */
  retrying?: string;
  /** Retry announcements in the open turn. */
  retries: number;
  /** The open turn ended: how. */
  turnEnd?: { kind: 'completed' } | { kind: 'failed'; message: string };
  /** A command started and not completed (`item.started command_execution`). */
  openCommand?: string;
  lines: number;
}

export const emptyExecEvents = (): ExecEventsState => ({ retries: 0, lines: 0 });

const RETRY = /^Reconnecting\.\.\./;

/** Fold one stdout line into `s` (mutated and returned); a line that is not JSON is ignored. */
export function foldExecEvent(s: ExecEventsState, line: string): ExecEventsState {
  if (!line.startsWith('{')) return s;
  let e: Record<string, any>;
  try {
    e = JSON.parse(line) as Record<string, any>;
  } catch {
    return s;
  }
  s.lines++;
  const type = typeof e.type === 'string' ? e.type : '';
  if (type === 'thread.started' && typeof e.thread_id === 'string') s.threadId = e.thread_id;
  else if (type === 'turn.started') (s.turnEnd = undefined), (s.retries = 0), (s.retrying = undefined);
  else if (type === 'error' && typeof e.message === 'string' && RETRY.test(e.message)) s.retries++, (s.retrying = e.message);
  else if (type === 'turn.completed') (s.turnEnd = { kind: 'completed' }), (s.retrying = undefined);
  else if (type === 'turn.failed') (s.turnEnd = { kind: 'failed', message: String(e.error?.message ?? 'no message') }), (s.retrying = undefined);
  else if (type === 'item.started' || type === 'item.completed') {
    s.retrying = undefined;
    const item = e.item as Record<string, any> | undefined;
    if (item?.type === 'command_execution') s.openCommand = type === 'item.started' ? String(item.command ?? '') : undefined;
  }
  return s;
}
