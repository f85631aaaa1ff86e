// Parse YAML text against a zod schema, turning every failure into an InputError that names
// file, line, column and field path. Pure: the caller reads the file.
import * as z from 'zod';
import { isMap, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { InputError } from './errors.js';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: InputError };

/** `['current_wave', 'tasks', 2, 'status']` → `current_wave.tasks[2].status`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let s = '';
  for (const part of path) {
    if (typeof part === 'number') s += `[${part}]`;
    else s += (s ? '.' : '') + String(part);
  }
  return s || '(top level)';
}

/** A short, safe rendering of a value found in a file, for messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    const cut = value.length > 60 ? value.slice(0, 57) + '...' : value;
    return JSON.stringify(cut);
  }
  return `${typeof value} ${String(value)}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const part of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[part];
  }
  return cur;
}

/** The deepest YAML node on `path` (falls back to the nearest existing parent). */
function nodeOffset(doc: ReturnType<typeof parseDocument>, path: readonly PropertyKey[], isKeyWanted = false): number | undefined {
  let node: unknown = doc.contents;
  let offset = (node as YamlNode | null)?.range?.[0];
  for (const [i, part] of path.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === part);
      if (!pair) break;
      node = pair.value;
      const keyAt = (pair.key as YamlNode | null)?.range?.[0];
      offset = isKeyWanted && i === path.length - 1 ? (keyAt ?? offset) : ((pair.value as YamlNode | null)?.range?.[0] ?? keyAt ?? offset);
    } else if (isSeq(node) && typeof part === 'number') {
      node = node.items[part];
      offset = (node as YamlNode | null)?.range?.[0] ?? offset;
    } else break;
  }
  return offset;
}

/** Turn one zod issue into the message recipe of STYLE §7: what is wrong, expected, got. */
function issueMessage(issue: z.core.$ZodIssue, found: unknown): string {
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_type':
      return `expected ${issue.expected}, got ${describeValue(found)}`;
    default:
      return `${issue.message.replace(/^Invalid (input|option): /, '')}, got ${describeValue(found)}`;
  }
}

export interface ParseYamlOptions {
  /** File name used in messages. */
  file: string;
  /** Appended to a type error: what to do about it. */
  typeHint?: string;
}

/** Parse `text` as one YAML document and validate it with `schema`. */
export function parseYaml<S extends z.ZodType>(text: string, schema: S, opts: ParseYamlOptions): ParseResult<z.output<S>> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax) {
    const pos = syntax.linePos?.[0] ?? lineCounter.linePos(syntax.pos[0]);
    const what = syntax.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    return {
      ok: false,
      error: new InputError('yaml_syntax', `invalid YAML: ${what}.`, {
        location: { file: opts.file, line: pos.line, column: pos.col },
        hint: 'Fix the YAML syntax at that position; if an orchestrator is writing the file right now, the next check reads it again.',
      }),
    };
  }
  let data: unknown;
  try {
    // Aliases are never needed in these files, and disabling them rules out alias bombs.
    data = doc.toJS({ maxAliasCount: 0 });
  } catch (e) {
    return {
      ok: false,
      error: new InputError('yaml_alias', 'YAML aliases (*name) are not allowed.', {
        location: { file: opts.file },
        hint: 'Write the values out in full instead of using anchors and aliases.',
        cause: e,
      }),
    };
  }
  const result = schema.safeParse(data ?? {});
  if (result.success) return { ok: true, value: result.data };
  const issue = pickIssue(result.error.issues);
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const offset = nodeOffset(doc, path, issue.code === 'unrecognized_keys');
  const pos = offset === undefined ? undefined : lineCounter.linePos(offset);
  const found = valueAt(data, issue.path);
  return {
    ok: false,
    error: new InputError(issue.code === 'unrecognized_keys' ? 'unknown_config_key' : 'wrong_type', `${issueMessage(issue, found)}.`, {
      location: { file: opts.file, line: pos?.line, column: pos?.col, path: formatPath(path) },
      hint: issue.code === 'unrecognized_keys' ? 'Remove that key or fix its spelling (docs/state-files.md lists every key).' : opts.typeHint,
    }),
  };
}

/** The most specific issue: union errors are unwrapped to the branch that got furthest. */
function pickIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  const first = issues[0]!;
  if (first.code === 'invalid_union' && first.errors.length > 0) {
    const branches = first.errors.map((b) => b.map((i) => ({ ...i, path: [...first.path, ...i.path] })));
    branches.sort((a, b) => Math.max(...b.map((i) => i.path.length)) - Math.max(...a.map((i) => i.path.length)));
    const best = branches[0];
    if (best && best.length > 0) return pickIssue(best as z.core.$ZodIssue[]);
  }
  return first;
}
