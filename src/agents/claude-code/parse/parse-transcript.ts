// Claude Code transcript lines → TranscriptState → PartialObservation (source 'transcript').
// Pure: the tail reader (transcript-tail.ts) does the I/O and hands over complete lines.
import type { Task } from '../../../contracts/state-file.js';
import type { LineRef } from '../../../observe/parse/line-splitter.js';
import { knownCall, type PartialObservation, type ToolCall } from '../../../observe/parse/observation.js';
import { hasBehaviour } from './cli-version.js';
import { applyTranscriptRecord } from './parse-transcript-record.js';
import { skimTranscriptLine } from './skim-record.js';
import { emptyTranscriptState, pickLastTool, runningAgents, runningTeammates, type TranscriptState } from './transcript-state.js';

// The diagnostic every line reader shares (observe/parse/diagnostic.ts), re-exported for this wing's readers.
import { describeRef, type ObserveDiagnostic } from '../../../observe/parse/diagnostic.js';
export { describeRef, type ObserveDiagnostic };

/** Fold one complete line into `state`; returns a diagnostic when it is not JSON. */
export function parseTranscriptLine(state: TranscriptState, text: string, file: string, ref: LineRef): ObserveDiagnostic | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  let rec: unknown;
  try {
    rec = JSON.parse(trimmed);
  } catch (e) {
    state.badLines++;
    const why = e instanceof Error ? e.message : String(e);
    return { file, line: ref.lineNo, offset: ref.offset, message: `${describeRef(file, ref)}: not a JSON record (${why}); line skipped` };
  }
  // A line number is known only when reading began at byte 0.
  if (ref.lineNo === undefined) state.isTailStart = true;
  applyTranscriptRecord(state, rec, ref.lineNo !== undefined ? `line ${ref.lineNo}` : `byte ${ref.offset}`);
  return undefined;
}

/**
 * Fold one complete line given as bytes: a record whose bulk the fold never reads is folded from
 * its first bytes (skim-record.ts), anything else decoded and parsed by parseTranscriptLine.
 */
export function parseTranscriptBytes(state: TranscriptState, bytes: Buffer, file: string, ref: LineRef): ObserveDiagnostic | undefined {
  const skim = skimTranscriptLine(bytes);
  if (skim === undefined) return parseTranscriptLine(state, bytes.toString('utf8'), file, ref);
  if ('text' in skim) return parseTranscriptLine(state, skim.text, file, ref);
  // A type the fold does not know: it reads nothing but the type (parse-transcript-record.ts).
  if (ref.lineNo === undefined) state.isTailStart = true;
  applyTranscriptRecord(state, { type: skim.unknownType }, ref.lineNo !== undefined ? `line ${ref.lineNo}` : `byte ${ref.offset}`);
  return undefined;
}

/** Parse a whole transcript text (tests, fixtures); a last line without newline is torn and ignored. */
export function parseTranscriptText(text: string, file = 'transcript.jsonl'): { state: TranscriptState; diagnostics: ObserveDiagnostic[] } {
  const state = emptyTranscriptState();
  const diagnostics: ObserveDiagnostic[] = [];
  const lines = text.split('\n');
  lines.pop(); // the part after the last newline: torn or empty
  let offset = 0;
  lines.forEach((line, i) => {
    const d = parseTranscriptLine(state, line, file, { offset, lineNo: i + 1 });
    if (d) diagnostics.push(d);
    offset += Buffer.byteLength(line) + 1;
  });
  return { state, diagnostics };
}

/** What else the shell knows about the file. */
export interface TranscriptFacts {
  /** When the file was last written (its mtime); used when the records carry no timestamps. */
  mtimeMs?: number;
  /** The moment judged: an mtime after it (a `--now` in the past) says nothing about that moment. */
  nowMs?: number;
}

const isForeground = (c: ToolCall) => !c.isBackground;

/** How far past the judged moment an mtime still counts: a live check reads files after it took its time. */
const MTIME_AHEAD_MS = 10_000;

/**
 * The file's mtime as evidence at `nowMs`. A live writer often touches the file between the moment
 * a check takes and the moment it stats the file: that is activity now, not in the future. An mtime
 * well after the moment (a `--now` in the past) says nothing about that moment.
 */
function mtimeAsOf(facts: TranscriptFacts): number | undefined {
  const { mtimeMs, nowMs } = facts;
  if (mtimeMs === undefined || nowMs === undefined || mtimeMs <= nowMs) return mtimeMs;
  return mtimeMs - nowMs <= MTIME_AHEAD_MS ? nowMs : undefined;
}

/**
 * The moments around `nowMs` at which a file's mtime counts the same as at `nowMs` (see
 * mtimeAsOf): from the mtime on, it is the mtime; more than MTIME_AHEAD_MS before it, nothing.
 * Undefined in between, where it is the moment itself. Lets the shell reuse a summary.
 */
export function mtimeSameAsOf(mtimeMs: number, nowMs: number): { fromMs: number; untilMs: number } | undefined {
  if (mtimeMs <= nowMs) return { fromMs: mtimeMs, untilMs: Infinity };
  if (mtimeMs - nowMs > MTIME_AHEAD_MS) return { fromMs: -Infinity, untilMs: mtimeMs - MTIME_AHEAD_MS };
  return undefined;
}

/** The evidence in a transcript's state, as one source for mergeObservations. */
export function summarizeTranscript(s: TranscriptState, facts: TranscriptFacts = {}): PartialObservation {
  const part: PartialObservation = { source: 'transcript', recentCalls: s.recent.slice() };
  if (s.lastEventMs !== undefined) part.lastProgressMs = s.lastEventMs;
  // The newest record is the agent at work with no time of its own (a stream-json retry before
  // 2.1.337): the file's last write is it. Without this, a retry storm longer than the window
  // after the last dated record would look like silence.
  const mtime = mtimeAsOf(facts);
  if (s.isUndatedAgentLast && mtime !== undefined && mtime > (part.lastProgressMs ?? -Infinity)) part.lastProgressMs = mtime;
  if (s.cwd !== undefined) part.cwd = s.cwd;
  // Output growth is the agent's own writing. The file's mtime is used only for records without
  // timestamps (stream-json output): harness lines (queued messages, an interruption) also
  // touch the file and must not keep a wedged agent looking alive.
  const grewAt = s.lastAssistantMs ?? (s.lastEventMs === undefined ? mtime : undefined);
  if (grewAt !== undefined && s.records > 0) part.outputGrewAtMs = grewAt;
  const last = pickLastTool(s);
  if (last) part.lastTool = knownCall(last);
  if (s.lastOutput !== undefined) part.lastOutput = s.lastOutput;
  if (s.lastAssistantMs !== undefined || s.lastOutput !== undefined) part.isOutputTracked = true;
  if (s.apiRetry) part.isApiRetrying = true;
  if (s.apiRetry?.retryInMs !== undefined) part.apiRetryDelayMs = s.apiRetry.retryInMs;
  // A subagent's resends are its backoff's only trace (its retries write no retry record, 2.1.300+);
  // a main session's retries do, so its resend without one is Claude Code resending a frozen stream.
  if (s.resend && s.requestSentMs !== undefined && !s.apiRetry && s.agentId !== undefined && hasBehaviour(s.cliVersion, 'apiRequestRecords') !== false)
    part.apiResend = { sinceMs: s.requestSentMs, gapMs: s.resend.gapMs, count: s.resend.count };
  if (s.cliVersion !== undefined) part.agentVersion = s.cliVersion;
  const asking = s.open.findLast((c) => c.name === 'AskUserQuestion' || c.name === 'ExitPlanMode');
  if (asking?.name === 'AskUserQuestion')
    part.waitingHuman = { kind: 'ask_user_question', sinceMs: asking.startedAtMs, detail: asking.inputSummary?.slice(0, 100) };
  if (asking?.name === 'ExitPlanMode') part.waitingHuman = { kind: 'plan_approval', sinceMs: asking.startedAtMs, detail: 'ExitPlanMode open' };
  if (s.interruptedMs !== undefined && !part.waitingHuman) {
    part.waitingHuman = { kind: 'interrupted', sinceMs: s.interruptedMs, detail: 'Esc: "[Request interrupted by user]", idle until a new prompt' };
  }
  // Queued input not consumed: the agent has something to answer, so a turn that ended before it is not the end.
  const isQueued = s.queued !== undefined && (s.turnEndedMs === undefined || (s.queued.sinceMs ?? Infinity) >= s.turnEndedMs);
  if (s.queued) part.queuedUnconsumed = { sinceMs: s.queued.sinceMs, detail: `${s.queued.what}${s.queued.count > 1 ? ` and ${s.queued.count - 1} more` : ''}` };
  const running = runningTasks(s).length;
  const withBackground = running > 0 ? `, ${running} background task${running === 1 ? '' : 's'} still running` : '';
  const turn = turnOver(s);
  if (s.apiError) {
    // A give-up ends the turn too; it is a failure, not a finish.
    part.failed = { kind: s.apiError.kind, atMs: s.apiError.atMs, detail: s.apiError.text };
  } else if (s.result && !s.result.isError) {
    part.finished = { kind: `result ${s.result.subtype ?? ''}`.trim(), atMs: s.result.atMs };
  } else if (turn && (runningAgents(s).length > 0 || runningTeammates(s).length > 0)) {
    // The turn ended to wait on background subagents or teammates: Claude Code wakes the agent
    // when they end (or message it), so it is not finished; it waits on them (observeTranscript
    // takes the subagents' progress; teammates' transcripts are not read).
    const team = runningTeammates(s);
    if (team.length > 0) part.waitingOnTeam = { members: team };
  } else if (turn === 'ended' && !isQueued) {
    // Background shells (dev servers) may outlive the turn: the turn still ended.
    part.finished = { kind: `turn ended${withBackground}`, atMs: s.turnEndedMs || undefined };
  } else if (turn === 'final_answer' && !isQueued) {
    part.finished = { kind: `final answer (this Claude Code writes no turn-end record)${withBackground}`, atMs: s.finalTextMs || undefined, isInferred: true };
  }
  return part;
}

/**
 * Whether the agent's turn is over with nothing open in the foreground: `ended` by a turn-end
 * record, or a `final_answer` in a Claude Code that writes none (inferred).
 */
export function turnOver(s: TranscriptState): 'ended' | 'final_answer' | undefined {
  if (s.open.some(isForeground)) return undefined;
  if (s.turnEndedMs !== undefined) return 'ended';
  return s.hasNoTurnEndRecords && s.finalTextMs !== undefined ? 'final_answer' : undefined;
}

/** The background subagents an agent whose turn is over waits on (none while its turn goes on). */
export function backgroundWaits(s: TranscriptState): string[] {
  return s.apiError || (s.result && !s.result.isError) || !turnOver(s) ? [] : runningAgents(s);
}

/** Background Bash tasks and child agents still running, as far as this transcript knows. */
export function runningTasks(s: TranscriptState): string[] {
  return s.tasks.filter((t) => t.status === 'running').map((t) => t.id);
}

/** A child agent this transcript reports finished (`completed`), for finding a subagent's end in its parent. */
export function childCompletion(s: TranscriptState, agentId: string): { atMs?: number } | undefined {
  const t = s.tasks.find((x) => x.id === agentId && x.status === 'completed');
  return t ? { atMs: t.atMs } : undefined;
}

/**
 * A child agent the parent's transcript says was stopped (a `killed` task notification: "stopped by
 * the user or by the app connected to this session", a person's stop, the app's, the lead's
 * TaskStop), not failed: Claude Code's own stall watchdog says `failed` ("Agent stalled").
 */
export function childStopped(s: TranscriptState, agentId: string): { atMs?: number } | undefined {
  const t = s.tasks.find((x) => x.id === agentId && x.status === 'killed');
  return t ? { atMs: t.atMs } : undefined;
}

/** A transcript of another agent or session than the task's is a contradiction (DESIGN §5.3). */
export function transcriptContradictions(s: TranscriptState, task: Pick<Task, 'agentId' | 'sessionId'>, file: string): string[] {
  const out: string[] = [];
  const where = `${file}${s.identityAt ? ` (${s.identityAt})` : ''}`;
  if (task.agentId && s.agentId && s.agentId !== task.agentId) {
    out.push(`transcript ${where} belongs to agent "${s.agentId}", but the task's agent_id is "${task.agentId}"`);
  }
  if (task.sessionId && s.sessionId && s.sessionId !== task.sessionId) {
    out.push(`transcript ${where} belongs to session "${s.sessionId}", but the task's session_id is "${task.sessionId}"`);
  }
  return out;
}
