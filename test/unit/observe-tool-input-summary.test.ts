import { describe, expect, it } from 'vitest';
import { SUMMARY_MAX_CHARS, stableJson, summarizeToolInput } from '../../src/agents/claude-code/parse/tool-input-summary.js';

describe('summarizeToolInput', () => {
  it.each([
    {
      name: 'Bash',
      input: { command: 'npm test', timeout: 300000, description: 'x' },
      expected: { inputSummary: 'npm test', command: 'npm test', timeoutMs: 300000 },
    },
    {
      name: 'Bash',
      input: { command: 'mix phx.server', run_in_background: true },
      expected: { inputSummary: 'mix phx.server', command: 'mix phx.server', isBackground: true },
    },
    { name: 'Read', input: { file_path: '/a.ts' }, expected: { inputSummary: '/a.ts' } },
    { name: 'Read', input: { file_path: '/a.ts', offset: 120, limit: 140 }, expected: { inputSummary: '/a.ts {"limit":140,"offset":120}' } },
    { name: 'Task', input: { subagent_type: 'Explore', description: 'Explore code', prompt: 'long' }, expected: { inputSummary: 'Explore: Explore code' } },
    { name: 'Agent', input: { description: 'Fix', prompt: 'p' }, expected: { inputSummary: 'agent: Fix' } },
    {
      name: 'TaskOutput',
      input: { task_id: 'b1', block: true, timeout: 180000 },
      expected: { inputSummary: '{"block":true,"task_id":"b1","timeout":180000}', timeoutMs: 180000 },
    },
    { name: 'Grep', input: null, expected: { inputSummary: '{}' } },
    { name: 'Grep', input: 'weird', expected: { inputSummary: '"weird"' } },
    { name: 'Bash', input: [1, 2], expected: { inputSummary: '[1,2]' } },
  ])('$name $input', ({ name, input, expected }) => {
    expect(summarizeToolInput(name, input)).toEqual(expected);
  });

  it('is stable under key order', () => {
    expect(summarizeToolInput('Grep', { pattern: 'x', path: '/p' })).toEqual(summarizeToolInput('Grep', { path: '/p', pattern: 'x' }));
    expect(stableJson({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
  });

  it('cuts a long input but keeps inputs that differ only at the end apart', () => {
    const a = summarizeToolInput('Bash', { command: 'x'.repeat(500) + 'a' });
    const b = summarizeToolInput('Bash', { command: 'x'.repeat(500) + 'b' });
    expect(a.inputSummary.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    expect(a.inputSummary).not.toBe(b.inputSummary);
  });

  it('tells two Writes of one file with different content apart', () => {
    const a = summarizeToolInput('Write', { file_path: '/f', content: 'one' });
    expect(a.inputSummary).toMatch(/^\/f #[0-9a-f]{8}$/);
    expect(a.inputSummary).not.toBe(summarizeToolInput('Write', { file_path: '/f', content: 'two' }).inputSummary);
  });

  it('names a file tool by its file and every other field of its input, whatever the keys', () => {
    // What the summary was when it was built from a spread copy with the file keys taken out.
    const spreadSummary = (input: Record<string, unknown>) => {
      const rest = { ...input, file_path: undefined, notebook_path: undefined, content: undefined };
      const file = (input.file_path ?? input.notebook_path) as string;
      return Object.values(rest).some((v) => v !== undefined) ? `${file} ${stableJson(rest)}` : file;
    };
    const inputs: Record<string, unknown>[] = [
      { file_path: '/a.ts' },
      { file_path: '/a.ts', offset: undefined },
      { file_path: '/a.ts', old_string: 'x', new_string: 'y', replace_all: true },
      { notebook_path: '/n.ipynb', cell_id: 'c1', new_source: 's' },
      { content: 'c', file_path: '/a.ts', edits: [{ old_string: 'a', new_string: 'b' }] },
      JSON.parse('{"file_path":"/a.ts","__proto__":{"polluted":true},"constructor":1}') as Record<string, unknown>,
    ];
    for (const name of ['Read', 'Edit', 'MultiEdit', 'NotebookEdit']) {
      for (const input of inputs) expect(summarizeToolInput(name, input).inputSummary, `${name} ${JSON.stringify(input)}`).toBe(spreadSummary(input));
    }
    expect(summarizeToolInput('Edit', inputs[5]).inputSummary).toBe('/a.ts {"__proto__":{"polluted":true},"constructor":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
