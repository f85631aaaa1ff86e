// Work items for a checkpoint, from whatever an orchestrator wrote in a row (a list of strings or
// objects, or a bulleted string) and from the file edits the transcript shows. Pure.
import type { ToolCall } from '../../observe/parse/observation.js';

const MAX_ITEMS = 50;
const MAX_ITEM_CHARS = 300;
const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

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

/** Items from several sources, trimmed of bullets, de-duplicated in order, capped. */
export function workItems(sources: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const src of sources) {
    const list = Array.isArray(src) ? src : typeof src === 'string' ? src.split('\n') : [];
    for (const raw of list) {
      const text = itemText(raw)?.replace(/^\s*(?:[-*•]|\d+[.)]|\[[ xX]\])\s+/, '').trim();
      if (!text || out.includes(text)) continue;
      out.push(text.length > MAX_ITEM_CHARS ? text.slice(0, MAX_ITEM_CHARS - 1) + '…' : text);
      if (out.length >= MAX_ITEMS) return out;
    }
  }
  return out;
}

/** Finished file edits and commits seen in the tool calls, e.g. "Edit: src/a.ts". Reads and tests are not work done. */
export function completedFromCalls(calls: readonly ToolCall[]): string[] {
  const out: string[] = [];
  for (const c of calls) {
    if (c.isOpen || c.error) continue;
    // The summary also carries the edit text (a loop-detection key); the work item is the file.
    if (EDIT_TOOLS.has(c.name) && c.inputSummary) out.push(`${c.name}: ${c.inputSummary.split(/ [{#]/)[0]}`);
    else if (c.name === 'Bash' && c.command && /^\s*git\s+(commit|push)\b/.test(c.command)) out.push(`Bash: ${c.command.split('\n')[0]}`);
  }
  return out;
}
