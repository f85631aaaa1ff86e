// Editing a JSON document as text (src/commands/json-text.ts, used by `hook install`): the parse
// accepts exactly strict JSON, and an edit changes only the bytes of the member it adds or removes.
import { describe, expect, it } from 'vitest';
import { appendMember, detectIndent, JsonTextError, parseJsonText, propOf, removeMember } from '../../src/commands/json-text.js';

const valueOf = (text: string, node: ReturnType<typeof parseJsonText>) => JSON.parse(text.slice(node.start, node.end));

describe('parseJsonText', () => {
  it('gives offsets that slice back to what JSON.parse reads', () => {
    const text = '{ "a": [1, -2.5e3, "x\\"y\\u00e9"], "b": { "c": null, "d": true } }\n';
    const root = parseJsonText(text);
    expect(valueOf(text, root)).toEqual(JSON.parse(text));
    expect(valueOf(text, propOf(root, 'a')!)).toEqual([1, -2500, 'x"yé']);
    expect(valueOf(text, propOf(propOf(root, 'b')!, 'd')!)).toBe(true);
    expect(propOf(root, 'zz')).toBeUndefined();
  });

  it.each([
    ['{"a": "\\x"}', 6],
    ['{"a": "two\nlines"}', 6],
    ['{"a\tb": 1}', 1],
    ['{"a": 012}', 7],
    ['{"a": 1,}', 8],
    ['[1 2]', 3],
    ['{"a": 1} x', 9],
    ['{"a": "open', 11],
  ])('refuses what is not JSON, at its offset: %j', (text, offset) => {
    expect(() => JSON.parse(text)).toThrow();
    let err: unknown;
    try {
      parseJsonText(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JsonTextError);
    expect((err as JsonTextError).offset).toBe(offset);
  });
});

describe('edits', () => {
  const doc = '{\n    "hooks": {\n        "Stop": [1]\n    },\n    "model": "x"\n}\n';

  it("appends in the document's own indentation and keeps every other byte", () => {
    expect(detectIndent(doc)).toBe('    ');
    const root = parseJsonText(doc);
    const added = appendMember(doc, propOf(root, 'hooks')!, { key: 'PreToolUse', value: [{ a: 1 }] });
    expect(added).toBe(
      '{\n    "hooks": {\n        "Stop": [1],\n        "PreToolUse": [\n            {\n                "a": 1\n            }\n        ]\n    },\n    "model": "x"\n}\n',
    );
    expect(JSON.parse(added).hooks.PreToolUse).toEqual([{ a: 1 }]);
    expect(appendMember('{}', parseJsonText('{}'), { key: 'k', value: 1 })).toBe('{"k":1}');
    expect(appendMember('[1, 2]', parseJsonText('[1, 2]'), { value: 3 })).toBe('[1, 2, 3]');
  });

  it('removes a member with its comma, first, last or only', () => {
    const root = parseJsonText(doc);
    expect(JSON.parse(removeMember(doc, root, 0))).toEqual({ model: 'x' });
    expect(removeMember(doc, root, 1)).toBe('{\n    "hooks": {\n        "Stop": [1]\n    }\n}\n');
    expect(removeMember('[7]', parseJsonText('[7]'), 0)).toBe('[]');
    expect(() => removeMember('[7]', parseJsonText('[7]'), 3)).toThrow('no member 3');
  });
});
