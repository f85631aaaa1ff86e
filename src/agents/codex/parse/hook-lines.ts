// The hook lines Codex sends (`dispatch-watchdog hook` installed with `hook install --codex`:
// activity/<thread>.ndjson, the payloads Claude-Code-shaped, reference §6) → one source `hooks` of
// a Codex row: when the agent was last heard from, where its rollout is (transcript_path), and a
// turn that ended (Stop fires at a successful turn's end, before task_complete is written). Its
// calls are left to the rollout: PostToolUse fires only when a command's process exits, not at
// its yields, so a hook's view of an open call would hide the polls. Pure.
import type { LineRef } from '../../../observe/parse/line-splitter.js';
import { describeRef, type ObserveDiagnostic } from '../../../observe/parse/diagnostic.js';
import type { PartialObservation } from '../../../observe/parse/observation.js';

export interface CodexHookState {
  version: 1;
  kind: 'codex-hooks';
  /** When the newest line was written (its `ts`: the hook ran on this machine, so its clock is ours). */
  lastMs?: number;
  lastEvent?: string;
  /** The rollout the hooks name (`transcript_path`). */
  transcriptPath?: string;
  /** A Stop after the newest prompt and tool call: the turn ended. */
  stoppedAtMs?: number;
  lines: number;
  badLines: number;
}

export const emptyCodexHookState = (): CodexHookState => ({ version: 1, kind: 'codex-hooks', lines: 0, badLines: 0 });

export const isCodexHookState = (v: unknown): v is CodexHookState =>
  (v as CodexHookState | null)?.kind === 'codex-hooks' && (v as CodexHookState).version === 1;

/** Events that start work again after a Stop (a resumed session, a new turn, a call). */
const WORK = new Set(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'SubagentStart']);

/** Fold one activity line into `s`; a line that is not one becomes a diagnostic. */
export function foldCodexHookLine(s: CodexHookState, text: string, file: string, ref: LineRef): ObserveDiagnostic | undefined {
  if (text.trim() === '') return undefined;
  let l: { ts?: unknown; event?: unknown; transcript_path?: unknown; agent_id?: unknown };
  try {
    l = JSON.parse(text) as typeof l;
  } catch {
    l = {};
  }
  const atMs = typeof l.ts === 'string' ? Date.parse(l.ts) : NaN;
  if (typeof l.event !== 'string' || !Number.isFinite(atMs)) {
    s.badLines++;
    return { file, line: ref.lineNo, offset: ref.offset, message: `${describeRef(file, ref)}: not a hook activity line (ts, event); skipped` };
  }
  s.lines++;
  s.lastMs = Math.max(s.lastMs ?? atMs, atMs);
  s.lastEvent = l.event;
  // A subagent's lines name its own rollout elsewhere (agent_transcript_path); the lead's is the session's.
  if (typeof l.transcript_path === 'string' && l.agent_id === undefined) s.transcriptPath = l.transcript_path;
  if (l.event === 'Stop' && l.agent_id === undefined) s.stoppedAtMs = atMs;
  else if (WORK.has(l.event) && l.agent_id === undefined) s.stoppedAtMs = undefined;
  return undefined;
}

/** The evidence in a Codex thread's hook lines, as one source for mergeObservations. */
export function summarizeCodexHooks(s: CodexHookState): PartialObservation {
  const part: PartialObservation = { source: 'hooks' };
  if (s.lastMs !== undefined) part.lastProgressMs = s.lastMs;
  if (s.transcriptPath !== undefined) part.transcriptFile = s.transcriptPath;
  if (s.stoppedAtMs !== undefined) part.finished = { kind: 'Stop hook', atMs: s.stoppedAtMs };
  return part;
}
