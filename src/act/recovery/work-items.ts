// Work items for a checkpoint, from whatever an orchestrator wrote in a row (a list of strings or
// objects, or a bulleted string) and from the file edits the transcript shows. Pure.
import type { ToolCall } from '../../observe/parse/observation.js';
import type { AgentHarness } from '../../agents/harness.js';

const MAX_ITEMS = 50;
const MAX_ITEM_CHARS = 300;

/** One item as text: a string, or an object's title/description/name/subject/summary. */
function itemText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of ['title', 'description', 'name', 'subject', 'summary', 'task']) if (typeof o[k] === 'string') return o[k] as string;
  }
  return undefined;
}

/** A leading bullet, number or checkbox (`- `, `* `, `• `, `1. `, `2) `, `[x] `, `- [ ] `), however many. */
const MARKER = /^\s*(?:[-*•+]|\d+[.)]|\[[ xX✓✔]?\])(?:\s+|(?=\[))/;

function stripMarkers(text: string): string {
  let s = text;
  for (let prev = ''; prev !== s; ) [prev, s] = [s, s.replace(MARKER, '')];
  return s.trim();
}

/**
 * How a person compares two work items: letter case, spacing, punctuation and a leading bullet or
 * checkbox do not count ("- [x] Add the retry test." is "add the retry test").
 */
export function workItemKey(text: string): string {
  return stripMarkers(text)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Items from several sources, trimmed of bullets, de-duplicated in order (as workItemKey compares them), capped. */
export function workItems(sources: readonly unknown[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const src of sources) {
    const list = Array.isArray(src) ? src : typeof src === 'string' ? src.split('\n') : [];
    for (const raw of list) {
      const item = itemText(raw);
      const text = item === undefined ? undefined : stripMarkers(item);
      const key = text && workItemKey(text);
      if (!text || !key || seen.has(key)) continue;
      seen.add(key);
      out.push(text.length > MAX_ITEM_CHARS ? text.slice(0, MAX_ITEM_CHARS - 1) + '…' : text);
      if (out.length >= MAX_ITEMS) return out;
    }
  }
  return out;
}

/** `remaining` without the items `completed` already has (compared as a person would, workItemKey). */
export function withoutDone(remaining: readonly string[], completed: readonly string[]): string[] {
  const done = new Set(completed.map(workItemKey));
  return remaining.filter((w) => !done.has(workItemKey(w)));
}

/** Finished file edits and commits seen in the tool calls, e.g. "Edit: src/a.ts". Reads and tests are not work done. */
export function completedFromCalls(calls: readonly ToolCall[], harness: Pick<AgentHarness, 'classifyTool' | 'editTools'> | undefined): string[] {
  const out: string[] = [];
  // The merge classifies only the newest call: the row's harness says what the older ones are.
  const kindOf = (c: ToolCall) => c.kind ?? harness?.classifyTool(c).kind;
  for (const c of calls) {
    if (c.isOpen || c.error) continue;
    // The summary also carries the edit text (a loop-detection key); the work item is the file.
    if (harness?.editTools.has(c.name) && c.inputSummary) out.push(`${c.name}: ${c.inputSummary.split(/ [{#]/)[0]}`);
    // A shell call of any CLI (its harness set the kind when the evidence was merged).
    else if (c.command && kindOf(c) === 'shell' && /^\s*git\s+(commit|push)\b/.test(c.command)) out.push(`${c.name}: ${c.command.split('\n')[0]}`);
  }
  return out;
}
