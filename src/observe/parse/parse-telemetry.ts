// telemetry/<session>.ndjson lines (written by the OTLP receiver, contracts/telemetry.ts) →
// TelemetryState → PartialObservation (source 'telemetry'). Pure. Judged as a transcript is
// (docs/fleet.md): tool_decision (accept) opens a call and tool_result closes it, so an open call
// widens the window like an open transcript call; every event is progress; api_error is retry
// evidence until the next request goes through; a final answer (api_request or assistant_response
// with no call open after it) is an inferred finish, which counts only after a whole window of
// silence, like a `-p` transcript's. Every time judged here is the receiver's (a line's `rx`, when
// it arrived): a sender's clock may be minutes or decades off, so its `ts` is kept as evidence and
// never measures a silence (issue 36 item 2); lines are in the order the sender exported them.
import { TelemetryLineSchema } from '../../contracts/telemetry.js';
import type { TelemetryEventName } from '../../contracts/vocabulary.js';
import type { LineRef } from './line-splitter.js';
import { knownCall, type PartialObservation, type ToolCall } from './observation.js';
import { describeRef, type ObserveDiagnostic } from './diagnostic.js';
import { closeCall, ERROR_MAX_CHARS, excerpt, openCall, pickLastTool } from './call-table.js';

/** Tool-use ids remembered as closed (a result may be exported before its decision). @defaultValue 64 */
const CLOSED_MAX = 64;

export interface TelemetryState {
  /** 2: every time is the receiver's (1 took the sender's clock; a store of it is read again). */
  version: 2;
  kind: 'telemetry';
  /** When the receiver got the newest line (the watchdog's clock): the session's last progress, and what the partition rule compares with the host's traffic. */
  lastReceivedMs?: number;
  host?: string;
  /** The newest event's name. */
  last?: TelemetryEventName;
  recent: ToolCall[];
  open: ToolCall[];
  closedIds: string[];
  /** An api_error not yet followed by a request that went through. */
  retry?: { atMs?: number; attempt?: number; status?: string; error?: string };
  lines: number;
  badLines: number;
}

export function emptyTelemetryState(): TelemetryState {
  return { version: 2, kind: 'telemetry', recent: [], open: [], closedIds: [], lines: 0, badLines: 0 };
}

/** True for a TelemetryState loaded from disk. */
export function isTelemetryState(v: unknown): v is TelemetryState {
  const s = v as Partial<TelemetryState> | null;
  return (
    s !== null &&
    typeof s === 'object' &&
    s.version === 2 &&
    s.kind === 'telemetry' &&
    Array.isArray(s.recent) &&
    Array.isArray(s.open) &&
    Array.isArray(s.closedIds)
  );
}

/** Fold one telemetry line into `s`; a line that is not one becomes a diagnostic. */
export function parseTelemetryLine(s: TelemetryState, text: string, file: string, ref: LineRef): ObserveDiagnostic | undefined {
  if (text.trim() === '') return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const parsed = TelemetryLineSchema.safeParse(raw);
  if (!parsed.success) {
    s.badLines++;
    return {
      file,
      line: ref.lineNo,
      offset: ref.offset,
      message: `${describeRef(file, ref)}: not a telemetry line (schemas/telemetry-line.schema.json); skipped`,
    };
  }
  const l = parsed.data;
  s.lines++;
  // The receiver's clock, never the sender's `ts` (1970, 2100, or ten minutes behind: issue 36).
  const atMs = l.rx;
  s.lastReceivedMs = Math.max(s.lastReceivedMs ?? atMs, atMs);
  s.host = l.host;
  s.last = l.event;
  if (l.event !== 'api_error') s.retry = undefined;
  switch (l.event) {
    case 'tool_decision':
      if (l.decision !== 'reject' && l.tool_name && !(l.tool_use_id && s.closedIds.includes(l.tool_use_id))) {
        openCall(s, {
          name: l.tool_name,
          inputSummary: l.input,
          command: l.command,
          timeoutMs: l.timeout_ms,
          isBackground: l.background,
          startedAtMs: atMs,
          isOpen: true,
          toolUseId: l.tool_use_id,
        });
      }
      break;
    case 'tool_result':
      if (!l.tool_use_id) break;
      closeCall(s, l.tool_use_id, l.success === false ? excerpt(l.error ?? 'failed', ERROR_MAX_CHARS) : undefined);
      s.closedIds.push(l.tool_use_id);
      if (s.closedIds.length > CLOSED_MAX) s.closedIds.shift();
      break;
    case 'api_error':
      s.retry = { atMs, attempt: l.attempt, status: l.status_code, error: l.error };
      break;
    default:
      break;
  }
  return undefined;
}

/** The evidence in a session's telemetry, as one source for mergeObservations. */
export function summarizeTelemetry(s: TelemetryState): PartialObservation {
  const part: PartialObservation = { source: 'telemetry', recentCalls: s.recent.slice() };
  if (s.lastReceivedMs !== undefined) part.lastProgressMs = s.lastReceivedMs;
  const last = pickLastTool(s);
  if (last) part.lastTool = knownCall(last);
  if (s.retry) part.isApiRetrying = true;
  const foreground = s.open.some((c) => !c.isBackground);
  if ((s.last === 'api_request' || s.last === 'assistant_response') && !foreground && !s.retry) {
    part.finished = { kind: 'final answer (telemetry: no tool call after the last response)', atMs: s.lastReceivedMs, isInferred: true };
  }
  return part;
}
