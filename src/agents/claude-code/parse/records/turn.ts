// The bookkeeping every record does before its family applies it: who the session is, when it
// last did something, and whether a turn begins, ends or was interrupted. Reads only the
// family's flags, the record's actor and marks (family.ts), and fields every record type may
// carry (`agentId`, `sessionId`, `isCompactSummary`…). Pure.
import type { TranscriptState } from '../transcript-state.js';
import { str, type Rec, type RecordContext, type RecordFamily } from './family.js';

/** 1.0.x and scripted runs (`-p`, SDK: entrypoint `sdk-*`) write no `turn_duration` record. */
function noteVersion(s: TranscriptState, rec: Rec): void {
  const version = str(rec.version);
  const entrypoint = str(rec.entrypoint);
  if (version === undefined && entrypoint === undefined) return;
  if (version !== undefined) s.cliVersion = version;
  const major = version === undefined ? undefined : Number.parseInt(version, 10);
  s.hasNoTurnEndRecords = (major !== undefined && major < 2) || (entrypoint?.startsWith('sdk') ?? false) ? true : undefined;
}

/** The session's identity and activity time, from a record that shows it at work; `at` names the record's place. */
function noteSession(s: TranscriptState, rec: Rec, at: string, atMs: number | undefined): void {
  const agentId = str(rec.agentId);
  const sessionId = str(rec.sessionId) ?? str(rec.session_id);
  if (agentId) s.agentId = agentId;
  if (sessionId) s.sessionId = sessionId;
  if (agentId || sessionId) s.identityAt = at;
  // The session's own start: a later record's cwd (after a `cd`, a subagent in another worktree) can point elsewhere.
  const cwd = str(rec.cwd);
  if (cwd) s.cwd ??= cwd;
  const teamName = str(rec.teamName);
  if (teamName) s.teamName = teamName;
  noteVersion(s, rec);
  if (atMs !== undefined) {
    s.lastEventMs = Math.max(s.lastEventMs ?? atMs, atMs);
    s.firstEventMs ??= atMs;
  }
}

/** Fold what `rec` (of `family`) means for the session and its turn into `s`. */
export function applyTurn(s: TranscriptState, rec: Rec, at: string, family: RecordFamily, { atMs, actor, marks }: RecordContext): void {
  const isCommand = marks.isLocalCommand === true;
  if (marks.compact) s.isManualCompact = marks.compact === 'manual' ? true : undefined;
  // A manual /compact (a local command) and its summary are the human's doing, like /model.
  const isHumanCompact = s.isManualCompact === true && (marks.compact !== undefined || rec.isCompactSummary === true);
  if (family.isSession && actor !== 'interrupt' && !isCommand && !isHumanCompact) noteSession(s, rec, at, atMs);
  if (rec.isCompactSummary !== true && !family.isHarnessNote) s.isManualCompact = undefined;
  // The API answered: a stretch of retries is over.
  if (family.isSession && !family.isHarnessNote) s.apiRetry = undefined;
  // The agent at work, or a new prompt, resumes a finished turn; hook output, queued input,
  // notifications (the agent's answer to them resumes it) and local commands do not.
  // A teammate's message wakes a lead whose turn ended: a new turn it must answer.
  // A stream-json `result` ends a `claude -p` run; a run resumed into the same file (its
  // `system/init`, a prompt, the agent at work) is no longer finished by it.
  const isTeamWake = marks.isTeamWake === true;
  const isRunStart = marks.isRunStart === true;
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
  if ((actor === 'human' && !isCommand) || isTeamWake || rec.isCompactSummary === true || marks.isTurnEnd === true) {
    s.hasTurnStart = true;
    // A turn boundary in the tail: what came before it is context enough (the read-back rule).
    s.tail = undefined;
  }
}
