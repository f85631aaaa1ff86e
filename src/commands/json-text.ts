// Edit a JSON document as text, so every byte outside the edited spot stays as the user wrote it
// (a settings.json that `hook install` merges into keeps its formatting, comments excluded: it is
// strict JSON). Pure: text in, text out; no I/O.
import { InternalError } from '../contracts/errors.js';

/** A parsed JSON value with the offsets of its text: `start` inclusive, `end` exclusive. */
export type JsonNode =
  | { kind: 'object'; start: number; end: number; props: JsonProp[] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'scalar'; start: number; end: number };

export interface JsonProp {
  key: string;
  /** Offset of the key's opening quote. */
  start: number;
  value: JsonNode;
}

/** Thrown by parseJsonText; `offset` locates the problem. */
export class JsonTextError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Parse `text` (strict JSON) into nodes with offsets. */
export function parseJsonText(text: string): JsonNode {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const fail = (what: string): never => {
    throw new JsonTextError(`expected ${what}, got ${i < text.length ? JSON.stringify(text[i]) : 'the end of the file'}`, i);
  };
  const string = (): string => {
    const start = i;
    if (text[i] !== '"') fail('a string');
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail('the end of a string');
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      // A bad escape or a raw control character: the file is not JSON, which the caller reports.
      i = start;
      return fail('a JSON string (no raw line breaks or tabs, escapes as in JSON)');
    }
  };
  const value = (): JsonNode => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const props: JsonProp[] = [];
      ws();
      if (text[i] === '}') return { kind: 'object', start, end: ++i, props };
      for (;;) {
        ws();
        const keyStart = i;
        const key = string();
        ws();
        if (text[i] !== ':') fail('":"');
        i++;
        props.push({ key, start: keyStart, value: value() });
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return { kind: 'object', start, end: ++i, props };
        else fail('"," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      ws();
      if (text[i] === ']') return { kind: 'array', start, end: ++i, items };
      for (;;) {
        items.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return { kind: 'array', start, end: ++i, items };
        else fail('"," or "]"');
      }
    }
    if (c === '"') {
      string();
      return { kind: 'scalar', start, end: i };
    }
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
    if (!m) fail('a JSON value');
    i += m![0].length;
    return { kind: 'scalar', start, end: i };
  };
  const root = value();
  ws();
  if (i < text.length) fail('the end of the file');
  return root;
}

/** The indentation unit the document uses ('' when it is all on one line). */
export function detectIndent(text: string): string {
  const m = /\n([ \t]+)\S/.exec(text);
  if (m) return m[1]!;
  return text.includes('\n') ? '  ' : '';
}

/** Whitespace at the start of the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** `value` serialized the way the document is written, for a spot indented by `indent`. */
function render(value: unknown, unit: string, indent: string): string {
  const json = unit ? JSON.stringify(value, null, unit) : JSON.stringify(value);
  return json.replace(/\n/g, '\n' + indent);
}

const splice = (text: string, start: number, end: number, insert: string) => text.slice(0, start) + insert + text.slice(end);

/** Append a member (`"key": value` for an object, or a value for an array) at the end of a container. */
export function appendMember(text: string, container: JsonNode, member: { key?: string; value: unknown }): string {
  if (container.kind === 'scalar') throw new InternalError('appendMember needs an object or an array');
  const unit = detectIndent(text);
  const members = container.kind === 'object' ? container.props.map((p) => ({ start: p.start, end: p.value.end })) : container.items;
  const last = members[members.length - 1];
  const head = member.key === undefined ? '' : JSON.stringify(member.key) + (unit ? ': ' : ':');
  if (last) {
    // Copy the whitespace that separates the last member from what precedes it ("\n    " or " ").
    const before = text.slice(0, last.start);
    const sep = /[ \t\r\n]*$/.exec(before)![0];
    const indent = sep.includes('\n') ? sep.slice(sep.lastIndexOf('\n') + 1) : lineIndent(text, last.start);
    return splice(text, last.end, last.end, ',' + sep + head + render(member.value, unit, indent));
  }
  const outer = lineIndent(text, container.start);
  if (!unit) return splice(text, container.start + 1, container.end - 1, head + render(member.value, unit, ''));
  const inner = outer + unit;
  return splice(text, container.start + 1, container.end - 1, '\n' + inner + head + render(member.value, unit, inner) + '\n' + outer);
}

/** Remove member `index` of a container with its comma, leaving the others' text untouched. */
export function removeMember(text: string, container: JsonNode, index: number): string {
  if (container.kind === 'scalar') throw new InternalError('removeMember needs an object or an array');
  const members = container.kind === 'object' ? container.props.map((p) => ({ start: p.start, end: p.value.end })) : container.items;
  const m = members[index];
  if (!m) throw new InternalError(`no member ${index}`);
  if (members.length === 1) return splice(text, container.start + 1, container.end - 1, '');
  const next = members[index + 1];
  // Not the last: cut from this member to the next one, which moves into its place and indentation.
  if (next) return splice(text, m.start, next.start, '');
  // The last: cut from the end of the previous member, taking the comma before this one.
  return splice(text, members[index - 1]!.end, m.end, '');
}

/** The value of `key` in an object node. */
export function propOf(node: JsonNode, key: string): JsonNode | undefined {
  return node.kind === 'object' ? node.props.find((p) => p.key === key)?.value : undefined;
}
