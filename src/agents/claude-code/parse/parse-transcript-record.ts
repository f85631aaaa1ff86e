// Folds one Claude Code transcript record (one parsed JSONL line) into TranscriptState.
// Pure: no I/O, no clock; mutates the state it is given. Record shapes:
// shared/reference/claude-code-surfaces.md §1. Each record `type` is one family in
// records/table.ts (RECORD_TYPES, RECORD_FAMILIES); an unknown type is counted and otherwise
// ignored. A record is folded in two steps: records/turn.ts (identity, activity time, turn
// start/end, from the family's flags, actor and marks), then the family's own `apply`.
// To add a record type: a name in RECORD_TYPES, its row in RECORD_FAMILIES, one family file
// under records/; a `system` subtype: one row in records/system.ts SYSTEM_SUBTYPES.
import { isRec, recordTime, type RecordActor, type RecordContext } from './records/family.js';
import { familyOf } from './records/table.js';
import { applyTurn } from './records/turn.js';
import type { TranscriptState } from './transcript-state.js';

export type { RecordActor } from './records/family.js';

/** Fold one parsed record into `s`; `at` names its place ("line 12" or "byte 4096") for messages. */
export function applyTranscriptRecord(s: TranscriptState, rec: unknown, at: string): void {
  if (!isRec(rec) || typeof rec.type !== 'string') return;
  s.records++;
  const ts = recordTime(rec);
  const parsed = ts === undefined ? NaN : Date.parse(ts);
  // A `claude -p` stream-json output carries its subagents' messages too, each with the
  // `parent_tool_use_id` of the Agent call that started it. While that call is open in the
  // foreground (the lead waits inside it, 2.1.197), the subagent's calls are the lead's wait (a
  // long build in it keeps its exemption). A background subagent's (2.1.33x: `task_started`
  // `is_backgrounded`, then "Async agent launched") work is the run's progress only, never the lead's calls, output or turn: a
  // subagent's Bash parked in the background held the lead's row open on it, past its own window.
  const parent = rec.parent_tool_use_id;
  if (typeof parent === 'string' && parent !== '' && !s.open.some((c) => c.toolUseId === parent && !c.isBackground)) {
    if (Number.isFinite(parsed)) s.lastEventMs = Math.max(s.lastEventMs ?? parsed, parsed);
    return;
  }
  const family = familyOf(rec.type);
  const ctx: RecordContext = {
    atMs: Number.isFinite(parsed) ? parsed : undefined,
    actor: family.actor(rec),
    marks: family.marks(rec),
    isAfterTurnEnd: s.turnEndedMs !== undefined,
  };
  applyTurn(s, rec, at, family, ctx);
  family.apply(s, rec, ctx);
  // An undated record of the agent at work (a retry) as the newest: the file's mtime is its time.
  // Written only when it changes: most states never carry it, and most records are dated.
  if (ctx.atMs === undefined && ctx.actor === 'agent' && family.isSession) s.isUndatedAgentLast = true;
  else if (s.isUndatedAgentLast) s.isUndatedAgentLast = undefined;
}

/** The actor of one parsed record (see RecordActor). */
export function recordActor(rec: unknown): RecordActor {
  return isRec(rec) ? familyOf(rec.type).actor(rec) : 'harness';
}
