// Parse YAML text against a zod schema, turning every failure into an InputError that names
// file, line, column and field path. Pure: the caller reads the file.
import type * as z from 'zod';
import { isMap, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { combineProblems, InputError, type ErrorLocation } from './errors.js';
import { fastYaml } from './fast-yaml.js';
import { checkNesting } from './input-limits.js';
import { escapeControls, redactSecrets } from '../present/safe-text.js';

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
    // What a file holds may be a secret (a config pointed at an environment) or a terminal escape: never quoted as is.
    const shown = redactSecrets(value);
    const cut = shown.length > 60 ? shown.slice(0, 57) + '...' : shown;
    return escapeControls(JSON.stringify(cut));
  }
  return `${typeof value} ${String(value)}`;
}

/** The value at a field path of parsed data (undefined when absent). */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
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

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** What a bound says, in our words: `a number > 0`, `at least 1 item`, `a non-empty string`. */
function boundText(origin: string, isMin: boolean, limit: number | bigint, isInclusive: boolean): string {
  const n = Number(limit);
  if (origin === 'array' || origin === 'set') return `${isMin ? 'at least' : 'at most'} ${plural(n, 'item')}`;
  if (origin === 'string') return isMin && n === 1 ? 'a non-empty string' : `${isMin ? 'at least' : 'at most'} ${plural(n, 'character')}`;
  return `a number ${isMin ? (isInclusive ? '>=' : '>') : isInclusive ? '<=' : '<'} ${n}`;
}

const TYPE_NAMES: Record<string, string> = { int: 'a whole number' };

/** Turn one zod issue into the message recipe of STYLE §7 (what is wrong, expected, got), never zod's own text. */
export function issueMessage(issue: z.core.$ZodIssue, found: unknown): string {
  const got = `, got ${describeValue(found)}`;
  // Our schemas give some checks their own message (ids, timestamps): it already says what is expected.
  if (issue.code !== 'unrecognized_keys' && issue.code !== 'invalid_type' && /^expected /.test(issue.message)) return issue.message + got;
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_type':
      return `expected ${TYPE_NAMES[issue.expected] ?? issue.expected}${got}`;
    case 'too_small':
      return `expected ${boundText(issue.origin, true, issue.minimum, issue.inclusive ?? true)}${got}`;
    case 'too_big':
      return `expected ${boundText(issue.origin, false, issue.maximum, issue.inclusive ?? true)}${got}`;
    case 'invalid_value':
      return `expected ${issue.values.length === 1 ? '' : 'one of '}${issue.values.map((v) => JSON.stringify(v)).join('|')}${got}`;
    case 'invalid_format':
      return `expected ${issue.format === 'url' ? 'a URL' : issue.format === 'datetime' ? 'an ISO-8601 timestamp' : `a ${issue.format}`}${got}`;
    case 'not_multiple_of':
      return `expected a multiple of ${Number(issue.divisor)}${got}`;
    default:
      return `not an accepted value${got}`;
  }
}

export interface ParseYamlOptions {
  /** File name used in messages. */
  file: string;
  /** Appended to a type error: what to do about it. */
  typeHint?: string;
  /** The caller already ran checkNesting on this text. */
  isNestingChecked?: boolean;
}

/** Parse `text` as one YAML document and validate it with `schema`. */
export function parseYaml<S extends z.ZodType>(text: string, schema: S, opts: ParseYamlOptions): ParseResult<z.output<S>> {
  // Bounded before any parser runs: a parser's recursion is no place to find out (issue 24 item 4).
  const deep = opts.isNestingChecked ? undefined : checkNesting(text, opts.file);
  if (deep) return { ok: false, error: deep };
  // Plain block YAML that validates takes the fast reader (same value, no positions); anything
  // else, and every failure, takes the full parser, whose positions the messages need.
  const fast = fastYaml(text);
  if (fast !== undefined) {
    const result = schema.safeParse(fast);
    if (result.success) return { ok: true, value: result.data };
  }
  return parseYamlPositioned(text, schema, opts);
}

/** `parseYaml` by the full parser alone: a document with positions, so every problem names its line and column. */
export function parseYamlPositioned<S extends z.ZodType>(text: string, schema: S, opts: ParseYamlOptions): ParseResult<z.output<S>> {
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
  const locate = (path: readonly PropertyKey[], isKeyWanted = false) => {
    const offset = nodeOffset(doc, path, isKeyWanted);
    const pos = offset === undefined ? undefined : lineCounter.linePos(offset);
    return { file: opts.file, line: pos?.line, column: pos?.col, path: formatPath(path) };
  };
  // Every problem, each at its own line: an unknown key is one problem per key.
  const problems = result.error.issues.map(pickIssue).flatMap((issue): InputError[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map(
        (key) =>
          new InputError('unknown_config_key', `unknown key ${JSON.stringify(key)}.`, {
            location: locate([...issue.path, key], true),
            hint: 'Remove that key or fix its spelling (docs/state-files.md lists every key).',
          }),
      );
    }
    return [new InputError('wrong_type', `${issueMessage(issue, valueAt(data, issue.path))}.`, { location: locate(issue.path), hint: opts.typeHint })];
  });
  problems.sort((a, b) => (a.location?.line ?? 0) - (b.location?.line ?? 0)); // in file order
  return { ok: false, error: combineProblems(problems)! };
}

/** Where a field of a file is: file, line, column and path, for messages about it. */
export type Locate = (path: readonly PropertyKey[]) => ErrorLocation;

/** `file:line:col` of a field path in YAML text (the nearest existing parent when the field is absent). */
export function yamlLocator(text: string, file: string): Locate {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  return (path) => {
    const offset = nodeOffset(doc, path);
    const pos = offset === undefined ? undefined : lineCounter.linePos(offset);
    return { file, line: pos?.line, column: pos?.col, path: formatPath(path) };
  };
}

/** The most specific form of an issue: union errors are unwrapped to the branch that got furthest. */
function pickIssue(first: z.core.$ZodIssue): z.core.$ZodIssue {
  if (first.code === 'invalid_union' && first.errors.length > 0) {
    const branches = first.errors.map((b) => b.map((i) => ({ ...i, path: [...first.path, ...i.path] })));
    branches.sort((a, b) => Math.max(...b.map((i) => i.path.length)) - Math.max(...a.map((i) => i.path.length)));
    const best = branches[0];
    if (best && best.length > 0) return pickIssue(best[0] as z.core.$ZodIssue);
  }
  return first;
}
