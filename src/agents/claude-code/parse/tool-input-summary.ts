// A short, stable description of a tool call's input, shared by the transcript parser and the
// hook writer so both sources describe the same call the same way, secrets redacted before it is
// cut (a token in a command never reaches a hook line, a cache, a reason or a prompt). Pure; it
// imports only present/safe-text (which imports nothing), so the hook entry stays small.
import { redactSecrets } from '../../../present/safe-text.js';

/** What a tool call's input says that the watchdog uses. */
export interface ToolInputFacts {
  /** Stable summary: same input, same string (used for display and loop detection). */
  inputSummary: string;
  /** Bash `command`, shortened. */
  command?: string;
  /** `timeout` in ms (Bash, TaskOutput) when the input names one. */
  timeoutMs?: number;
  /** Bash or Agent `run_in_background: true`. */
  isBackground?: boolean;
}

/** Longest inputSummary, in characters. @defaultValue 160 */
export const SUMMARY_MAX_CHARS = 160;
/** Longest Bash command kept, in characters. @defaultValue 1000 */
export const COMMAND_MAX_CHARS = 1000;

/** Cut `text` to `max` characters, marking the cut. */
export function shorten(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, Math.max(0, max - 1)) + '…';
}

// FNV-1a, 32 bit: a cut summary ends with a hash of the whole input, so two long inputs that
// share a prefix never look like the same call to the loop detector.
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** JSON with sorted keys, so `{a,b}` and `{b,a}` give the same text. */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(obj[k])}`).join(',')}}`;
}

function capped(full: string): string {
  if (full.length <= SUMMARY_MAX_CHARS) return full;
  return `${full.slice(0, SUMMARY_MAX_CHARS - 11)}… #${fnv1a(full)}`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/** Keys a file tool's summary names already (or, for Write, hashes). */
const FILE_KEYS = new Set(['file_path', 'notebook_path', 'content']);

/**
 * A file tool's input fields other than the file and its content, or undefined when there are
 * none (a plain Read): looked at key by key, since a cold start summarizes every call of 10,000
 * tails and a spread copy of each input with three keys overridden cost ~6 µs a call.
 */
function inputBeyondFile(input: Record<string, unknown>): Record<string, unknown> | undefined {
  let rest: Record<string, unknown> | undefined;
  for (const key of Object.keys(input)) {
    if (FILE_KEYS.has(key) || input[key] === undefined) continue;
    // No prototype: a key named __proto__ stays a plain field, as in a spread copy.
    (rest ??= Object.create(null) as Record<string, unknown>)[key] = input[key];
  }
  return rest;
}

/** The key fields of well-known tools, most telling first; anything else is stable JSON. */
function headline(name: string, input: Record<string, unknown>): string | undefined {
  switch (name) {
    case 'Bash':
      return str(input.command);
    case 'Read':
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit': {
      const file = str(input.file_path) ?? str(input.notebook_path);
      if (file === undefined) return undefined;
      if (name === 'Write') return `${file} #${fnv1a(str(input.content) ?? '')}`;
      // Edits of one file with different text are different calls.
      const rest = inputBeyondFile(input);
      return rest ? `${file} ${stableJson(rest)}` : file;
    }
    case 'Task':
    case 'Agent':
      return `${str(input.subagent_type) ?? 'agent'}: ${str(input.description) ?? ''}`.trim();
    default:
      return undefined;
  }
}

/** Describe `input` of a call to tool `name`. Never throws, whatever the input is. */
export function summarizeToolInput(name: string, input: unknown): ToolInputFacts {
  const obj = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const head = headline(name, obj);
  const facts: ToolInputFacts = { inputSummary: capped(redactSecrets(head ?? stableJson(input ?? {}))) };
  if (name === 'Bash' && typeof obj.command === 'string') facts.command = shorten(redactSecrets(obj.command), COMMAND_MAX_CHARS);
  const timeoutMs = num(obj.timeout);
  if (timeoutMs !== undefined) facts.timeoutMs = timeoutMs;
  if (obj.run_in_background === true) facts.isBackground = true;
  return facts;
}
