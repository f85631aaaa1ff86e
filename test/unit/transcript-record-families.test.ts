// The record-family table (src/agents/claude-code/parse/records/table.ts): one family per record type,
// who each record shows at work, and record or tool names that are Object.prototype members.
import { describe, expect, it } from 'vitest';
import { applyTranscriptRecord, recordActor } from '../../src/agents/claude-code/parse/parse-transcript-record.js';
import { parseTranscriptText } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { familyOf, RECORD_FAMILIES, RECORD_TYPES } from '../../src/agents/claude-code/parse/records/table.js';
import { emptyTranscriptState } from '../../src/agents/claude-code/parse/transcript-state.js';
import { assistant, jsonl, ms, progress, system, text, toolResult, toolUse, user } from '../helpers/claude-lines.js';

const rec = (line: string): unknown => JSON.parse(line);

describe('record families', () => {
  it('gives every listed record type its own row, and every other type the unknown family', () => {
    expect(Object.keys(RECORD_FAMILIES).sort()).toEqual([...RECORD_TYPES].sort());
    const unknown = familyOf('file-history-snapshot');
    for (const type of RECORD_TYPES) expect(familyOf(type)).not.toBe(unknown);
    for (const type of ['summary', 'constructor', 'toString', '__proto__', 7, undefined]) expect(familyOf(type)).toBe(unknown);
  });

  it.each([
    { name: 'an assistant message', line: assistant(0, [text('hi')]), actor: 'agent' },
    { name: 'a prompt', line: user(0, 'fix it'), actor: 'human' },
    { name: 'a tool result', line: user(0, [toolResult('t1')]), actor: 'agent' },
    { name: 'the interruption marker', line: user(0, [text('[Request interrupted by user]')]), actor: 'interrupt' },
    { name: 'a meta user line', line: user(0, 'caveat', { isMeta: true }), actor: 'harness' },
    { name: 'a task notification', line: user(0, '<task-notification><task-id>b1</task-id><status>completed</status></task-notification>'), actor: 'harness' },
    { name: 'a bash progress line', line: progress(0, { type: 'bash_progress' }, 't1'), actor: 'agent' },
    { name: 'a hook progress line', line: progress(0, { type: 'hook_progress' }, 't1'), actor: 'harness' },
    { name: 'an API retry', line: system(0, 'api_error'), actor: 'agent' },
    { name: 'a compaction', line: system(0, 'compact_boundary'), actor: 'agent' },
    { name: 'a turn end', line: system(0, 'turn_duration'), actor: 'harness' },
    { name: 'a system subtype named like a prototype member', line: system(0, 'constructor'), actor: 'harness' },
    { name: 'a result', line: JSON.stringify({ type: 'result', subtype: 'success' }), actor: 'harness' },
    { name: 'an unknown type', line: JSON.stringify({ type: 'summary' }), actor: 'harness' },
  ])('$name is the $actor at work', ({ line, actor }) => {
    expect(recordActor(rec(line))).toBe(actor);
  });

  it('counts and otherwise ignores a record whose type is an Object.prototype member', () => {
    const s = emptyTranscriptState();
    applyTranscriptRecord(s, { type: 'constructor', timestamp: new Date(ms(5)).toISOString() }, 'line 1');
    applyTranscriptRecord(s, { type: 'toString', subtype: 'constructor' }, 'line 2');
    expect(s).toEqual({ ...emptyTranscriptState(), records: 2 });
  });

  it('opens a call to a tool named like an Object.prototype member', () => {
    const { state, diagnostics } = parseTranscriptText(
      jsonl(assistant(0, [toolUse('t1', 'constructor')]), system(1, 'constructor'), progress(2, { type: 'toString' }, 't1')),
      'a.jsonl',
    );
    expect(diagnostics).toEqual([]);
    expect(state.open.map((c) => c.name)).toEqual(['constructor']);
    expect(state.records).toBe(3);
  });
});
