import { describe, expect, it } from 'vitest';
import { createLineSplitter, feedLines, type LineRef } from '../../src/observe/parse/line-splitter.js';

/** Feed `chunks` and collect what the splitter emits. */
function split(chunks: string[], opts: { max?: number; skipFirst?: boolean; offset?: number } = {}) {
  const s = createLineSplitter(opts.offset ?? 0, { skipFirst: opts.skipFirst });
  const lines: [string, LineRef][] = [];
  const oversize: [LineRef, number][] = [];
  for (const c of chunks) {
    feedLines(s, Buffer.from(c), opts.max ?? 1024, { line: (b, ref) => lines.push([b.toString(), ref]), oversize: (ref, n) => oversize.push([ref, n]) });
  }
  return { lines, oversize, pending: Buffer.concat(s.parts).toString(), lineStart: s.lineStart };
}

describe('feedLines', () => {
  it.each([
    { name: 'one chunk, two lines', chunks: ['a\nbb\n'], lines: ['a', 'bb'], pending: '' },
    { name: 'a line across chunks', chunks: ['{"a":', '1}\n'], lines: ['{"a":1}'], pending: '' },
    { name: 'a torn last line stays pending', chunks: ['a\nb'], lines: ['a'], pending: 'b' },
    { name: 'the newline alone in a chunk', chunks: ['abc', '\n', 'd'], lines: ['abc'], pending: 'd' },
    { name: 'empty lines are not emitted', chunks: ['\n\na\n'], lines: ['a'], pending: '' },
  ])('$name', ({ chunks, lines, pending }) => {
    const out = split(chunks);
    expect(out.lines.map(([l]) => l)).toEqual(lines);
    expect(out.pending).toBe(pending);
  });

  it('numbers lines from byte 0 and gives each line its offset', () => {
    const out = split(['ab\ncd\n', 'ef\n']);
    expect(out.lines.map(([, r]) => r)).toEqual([
      { offset: 0, lineNo: 1 },
      { offset: 3, lineNo: 2 },
      { offset: 6, lineNo: 3 },
    ]);
  });

  it('drops the cut first line of a tail start, without a report, and has no line numbers', () => {
    const out = split(['tail of a line\nwhole\n'], { skipFirst: true, offset: 1000 });
    expect(out.lines).toEqual([['whole', { offset: 1015, lineNo: undefined }]]);
    expect(out.oversize).toEqual([]);
  });

  it('skips a line over the cap across chunks, reports it once, and resyncs at the next newline', () => {
    const out = split(['ok\n', 'x'.repeat(10), 'y'.repeat(10), 'z\nnext\n'], { max: 15 });
    expect(out.lines.map(([l]) => l)).toEqual(['ok', 'next']);
    expect(out.oversize).toEqual([[{ offset: 3, lineNo: 2 }, 21]]);
    expect(out.lines[1]![1]).toEqual({ offset: 25, lineNo: 3 });
  });

  it('keeps the committed offset at the start of the pending line', () => {
    expect(split(['abc\nde']).lineStart).toBe(4);
  });
});
