// The calls part of any parser state (a transcript's, hook activity's, telemetry's): calls opened
// and closed by id, bounded, shared with the observations summarized from them. Pure.
import { redactSecrets } from '../../present/safe-text.js';
import { copyCall, type ToolCall } from './observation.js';

/** Tool calls kept for loop detection (newest last). @defaultValue 20 */
export const RECENT_CALLS_MAX = 20;
/** Open calls tracked at once; the oldest is dropped beyond this. @defaultValue 32 */
export const OPEN_CALLS_MAX = 32;
/** Characters of the last assistant text kept (head and tail). @defaultValue 600 */
export const OUTPUT_MAX_CHARS = 600;
/** Characters of a tool error kept. @defaultValue 200 */
export const ERROR_MAX_CHARS = 200;

/** Long text as its head and tail, so both the opening and the last words survive; secrets redacted first (never cut in half). */
export function excerpt(text: string, max = OUTPUT_MAX_CHARS): string {
  text = redactSecrets(text);
  if (text.length <= max) return text;
  const half = Math.floor((max - 3) / 2);
  return `${text.slice(0, half)} … ${text.slice(text.length - half)}`;
}

/** The calls part of a parser state (transcript or hook activity). */
export interface CallTable {
  recent: ToolCall[];
  open: ToolCall[];
}

/** Remember a new call (open until its result arrives); false when it was already known. */
export function openCall(s: CallTable, call: ToolCall): boolean {
  if (call.toolUseId !== undefined && s.recent.some((c) => c.toolUseId === call.toolUseId)) return false;
  s.recent.push(call);
  if (s.recent.length > RECENT_CALLS_MAX) s.recent.splice(0, s.recent.length - RECENT_CALLS_MAX);
  if (!call.isOpen) return true;
  s.open.push({ ...call });
  if (s.open.length > OPEN_CALLS_MAX) s.open.splice(0, s.open.length - OPEN_CALLS_MAX);
  return true;
}

/**
 * A call of `recent` as changed by `change`, in a new object that takes its place: a call in
 * `recent` is never changed in place, so an observation shares its calls with the state it was
 * summarized from (no copy of each agent's recent calls per observation) and keeps them as they
 * were when it was made.
 */
export function replaceCall(s: CallTable, i: number, change: Partial<ToolCall>): ToolCall {
  const next = copyCall(s.recent[i]!);
  Object.assign(next, change);
  s.recent[i] = next;
  return next;
}

/** Close the call `toolUseId` (a result arrived); false when the call is not known. */
export function closeCall(s: CallTable, toolUseId: string, error?: string): boolean {
  let known = false;
  for (let i = 0; i < s.recent.length; i++) {
    if (s.recent[i]!.toolUseId !== toolUseId) continue;
    replaceCall(s, i, error !== undefined ? { isOpen: false, error } : { isOpen: false });
    known = true;
  }
  const i = s.open.findIndex((c) => c.toolUseId === toolUseId);
  if (i >= 0) {
    s.open.splice(i, 1);
    known = true;
  }
  return known;
}

/**
 * The call to report as "last": the newest open foreground call when one is open (a parallel
 * call that returned later must not hide a long Bash still running), else the newest call.
 */
export function pickLastTool(s: CallTable): ToolCall | undefined {
  const open = s.open.filter((c) => !c.isBackground);
  return open.at(-1) ?? s.recent.at(-1);
}
