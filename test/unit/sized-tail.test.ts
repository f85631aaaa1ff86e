// A lazy cold tail that is only too short in messages is read again sized in records (issue 37,
// tail-context.ts sizedTailBytes); one that fails for another reason is not (the wide tail or the
// read-back is next). test/integration/cold-lazy.test.ts shows the sized tail judges as the loop.
import { describe, expect, it } from 'vitest';
import { parseTranscriptLine } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { SIZED_TAIL_MESSAGES, sizedTailBytes, tailSuffices } from '../../src/agents/claude-code/parse/tail-context.js';
import { emptyTranscriptState, type TranscriptState } from '../../src/agents/claude-code/parse/transcript-state.js';

const T0 = Date.parse('2026-12-05T10:00:00.000Z');
const BASE_MS = 120_000;
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const who = { isSidechain: true, agentId: 'a1', sessionId: 's1', version: '2.1.332' };
const call = (s: number, id: string, file: string, blocks = 1) =>
  Array.from({ length: blocks }, () =>
    JSON.stringify({
      ...who,
      type: 'assistant',
      timestamp: at(s),
      message: { id: `msg_${id}`, role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: file } }] },
    }),
  );
const result = (s: number, id: string) =>
  JSON.stringify({ ...who, type: 'user', timestamp: at(s), message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: 'ok' }] } });

/** The state a lazy tail of these lines leaves (the tracker's beginTail, then each line folded). */
function tailOf(lines: string[]): TranscriptState {
  const s = emptyTranscriptState();
  s.tail = { from: 1_000_000, callsSinceFresh: 0 };
  s.isLazyTail = true;
  lines.forEach((l, i) => parseTranscriptLine(s, l, 'f.jsonl', { offset: 1_000_000 + i * 100 }));
  return s;
}

const TAIL = 16 * 1024;
const nowMs = T0 + 60_000;

describe('sizedTailBytes: a lazy tail sized in records', () => {
  it('one message (its blocks count once), not fresh: a tail holding SIZED_TAIL_MESSAGES of its size, with slack', () => {
    const s = tailOf([...call(1, 'u1', '/a', 3), result(2, 'u1')]);
    expect(s.tail?.messages).toBe(1);
    expect(tailSuffices(s, nowMs, BASE_MS)).toBe(false);
    expect(sizedTailBytes(s, TAIL, nowMs, BASE_MS)).toBe(Math.ceil(TAIL * SIZED_TAIL_MESSAGES * 1.25));
  });

  it('fresh with one call after it: sized by the bytes per message of the two it read', () => {
    const s = tailOf([...call(1, 'u1', '/a'), result(2, 'u1'), ...call(3, 'u2', '/b'), result(4, 'u2')]);
    expect(s.tail).toMatchObject({ isFresh: true, callsSinceFresh: 1, messages: 2 });
    expect(tailSuffices(s, nowMs, BASE_MS)).toBe(false);
    expect(sizedTailBytes(s, TAIL, nowMs, BASE_MS)).toBe(Math.ceil((TAIL / 2) * SIZED_TAIL_MESSAGES * 1.25));
  });

  it('no message at all (one long record): sized as if the tail held one', () => {
    const s = tailOf([result(2, 'u0')]);
    expect(sizedTailBytes(s, TAIL, nowMs, BASE_MS)).toBe(Math.ceil(TAIL * SIZED_TAIL_MESSAGES * 1.25));
  });

  it('fresh with calls enough, failing on a run of the same call: none (a wide tail may end the run)', () => {
    const s = tailOf([...call(1, 'u1', '/a'), result(2, 'u1'), ...call(3, 'u2', '/a'), result(4, 'u2'), ...call(5, 'u3', '/a'), result(6, 'u3')]);
    expect(s.tail).toMatchObject({ isFresh: true, callsSinceFresh: 2 });
    expect(tailSuffices(s, nowMs, BASE_MS)).toBe(false);
    expect(sizedTailBytes(s, TAIL, nowMs, BASE_MS)).toBeUndefined();
  });

  it('a spoiled premise (a result for a call the tail never saw after a fresh message): none', () => {
    const s = tailOf([...call(1, 'u1', '/a'), result(2, 'u1'), ...call(3, 'u2', '/b'), result(4, 'u0')]);
    expect(s.tail?.isSpoiled).toBe(true);
    expect(sizedTailBytes(s, TAIL, nowMs, BASE_MS)).toBeUndefined();
  });

  it('a newest record past the base window: none (the read-back judges it)', () => {
    const s = tailOf([...call(1, 'u1', '/a'), result(2, 'u1')]);
    expect(sizedTailBytes(s, TAIL, T0 + 2_000 + BASE_MS + 1, BASE_MS)).toBeUndefined();
    expect(sizedTailBytes(s, TAIL, T0 + 2_000 + BASE_MS, BASE_MS)).toBeDefined();
  });

  it('a state that read a turn boundary (no tail left): none', () => {
    const s = tailOf([
      JSON.stringify({ ...who, isSidechain: false, agentId: undefined, type: 'user', timestamp: at(0), message: { role: 'user', content: 'go' } }),
    ]);
    expect(s.tail).toBeUndefined();
    expect(sizedTailBytes(s, TAIL, nowMs, BASE_MS)).toBeUndefined();
  });
});
