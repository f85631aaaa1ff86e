// Merge our hook block into a Claude Code settings.json, or take it out again, as a text edit:
// other settings and other hooks keep their bytes. Pure: text in, text out.
import { isDeepStrictEqual } from 'node:util';
import { InputError } from '../contracts/errors.js';
import { appendMember, JsonTextError, parseJsonText, propOf, removeMember, type JsonNode } from './json-text.js';

export interface SettingsEdit {
  /** The new text (the old one when nothing changed). */
  text: string;
  isChanged: boolean;
  /** How many of our handlers were taken out (an older install, or by uninstall). */
  removed: number;
  /** Events our handler was added to. */
  added: string[];
}

/** A hook command this package installed: its fast entry (the bundle, or an older build), or the `dispatch-watchdog hook` bin. */
export function isOurHookCommand(command: unknown): boolean {
  if (typeof command !== 'string') return false;
  return (
    /(?:dist[/\\](?:src|hook)[/\\]hook-entry\.js|bundle[/\\]hook\.cjs)(?=['"\s]|$)/.test(command) ||
    /(^|[\s'"/\\])dispatch-watchdog(\.js)?['"]?\s+hook(\s|$)/.test(command)
  );
}

const valueOf = (text: string, node: JsonNode): unknown => JSON.parse(text.slice(node.start, node.end));

function isOurHandler(handler: unknown): boolean {
  return typeof handler === 'object' && handler !== null && isOurHookCommand((handler as { command?: unknown }).command);
}

/** Parse the settings text; a syntax error or a root that is not an object names the file and line. */
function parseSettings(text: string, file: string): JsonNode {
  let root: JsonNode;
  try {
    root = parseJsonText(text);
  } catch (e) {
    if (!(e instanceof JsonTextError)) throw e;
    const before = text.slice(0, e.offset);
    const line = before.split('\n').length;
    const column = e.offset - before.lastIndexOf('\n');
    throw new InputError('json_syntax', `not valid JSON: ${e.message}.`, {
      location: { file, line, column },
      hint: 'Fix the file (or move it away) and run the command again; nothing was written.',
    });
  }
  if (root.kind !== 'object')
    throw new InputError('wrong_type', 'expected a JSON object at the top of the settings file.', { location: { file }, hint: 'Nothing was written.' });
  const hooks = propOf(root, 'hooks');
  if (hooks && hooks.kind !== 'object') {
    throw new InputError('wrong_type', `expected an object of events, got ${text.slice(hooks.start, Math.min(hooks.end, hooks.start + 40))}.`, {
      location: { file, path: 'hooks' },
      hint: 'Claude Code expects "hooks": { "<Event>": [ … ] }; fix it and run the command again; nothing was written.',
    });
  }
  for (const p of hooks?.kind === 'object' ? hooks.props : []) {
    if (p.value.kind !== 'array') {
      throw new InputError('wrong_type', 'expected an array of matcher entries.', {
        location: { file, path: `hooks.${p.key}` },
        hint: 'Fix it and run the command again; nothing was written.',
      });
    }
  }
  return root;
}

/** Take out one of our handlers (the first found); undefined when there is none left. */
function removeOneOfOurs(text: string, file: string): string | undefined {
  const root = parseSettings(text, file);
  const hooks = propOf(root, 'hooks');
  if (hooks?.kind !== 'object') return undefined;
  for (const [e, event] of hooks.props.entries()) {
    if (event.value.kind !== 'array') continue;
    for (const [j, entry] of event.value.items.entries()) {
      const handlers = propOf(entry, 'hooks');
      if (handlers?.kind !== 'array') continue;
      const k = handlers.items.findIndex((h) => isOurHandler(valueOf(text, h)));
      if (k < 0) continue;
      if (handlers.items.some((h) => !isOurHandler(valueOf(text, h)))) return removeMember(text, handlers, k);
      // The entry holds only our handlers: take the entry, and the event and "hooks" if we emptied them.
      if (event.value.items.length > 1) return removeMember(text, event.value, j);
      if (hooks.props.length > 1) return removeMember(text, hooks, e);
      return removeMember(text, root, root.kind === 'object' ? root.props.findIndex((p) => p.key === 'hooks') : -1);
    }
  }
  return undefined;
}

function removeAllOfOurs(text: string, file: string): { text: string; removed: number } {
  let removed = 0;
  for (let next = removeOneOfOurs(text, file); next !== undefined; next = removeOneOfOurs(text, file)) {
    text = next;
    removed++;
  }
  return { text, removed };
}

/** True when the settings already hold exactly `block`'s entries for our handler, and no other of ours. */
function holdsExactly(settings: unknown, block: { hooks: Record<string, unknown[]> }): boolean {
  const hooks = (settings as { hooks?: Record<string, unknown> }).hooks ?? {};
  for (const [event, entries] of Object.entries(hooks)) {
    const ours = (Array.isArray(entries) ? entries : []).filter((en) => {
      const hs = (en as { hooks?: unknown })?.hooks;
      return Array.isArray(hs) && hs.some(isOurHandler);
    });
    const wanted = block.hooks[event] ?? [];
    if (!isDeepStrictEqual(ours, wanted)) return false;
  }
  return Object.keys(block.hooks).every((event) => event in hooks);
}

/** Install `block` (from hookSettingsBlock) into the settings text; `undefined` text = no file yet. */
export function planHookInstall(text: string | undefined, block: { hooks: Record<string, unknown[]> }, file: string): SettingsEdit {
  const events = Object.keys(block.hooks);
  if (text === undefined || text.trim() === '') return { text: JSON.stringify(block, null, 2) + '\n', isChanged: true, removed: 0, added: events };
  parseSettings(text, file);
  if (holdsExactly(JSON.parse(text), block)) return { text, isChanged: false, removed: 0, added: [] };
  const cleared = removeAllOfOurs(text, file);
  let out = cleared.text;
  const root = parseSettings(out, file);
  if (!propOf(root, 'hooks')) {
    out = appendMember(out, root, { key: 'hooks', value: block.hooks });
  } else {
    for (const event of events) {
      const hooks = propOf(parseSettings(out, file), 'hooks')!;
      const existing = propOf(hooks, event);
      out = existing ? appendMember(out, existing, { value: block.hooks[event]![0] }) : appendMember(out, hooks, { key: event, value: block.hooks[event] });
    }
  }
  return { text: out, isChanged: true, removed: cleared.removed, added: events };
}

/** Take every handler of ours out of the settings text. */
export function planHookUninstall(text: string | undefined, file: string): SettingsEdit {
  if (text === undefined || text.trim() === '') return { text: text ?? '', isChanged: false, removed: 0, added: [] };
  parseSettings(text, file);
  const cleared = removeAllOfOurs(text, file);
  return { text: cleared.text, isChanged: cleared.removed > 0, removed: cleared.removed, added: [] };
}
