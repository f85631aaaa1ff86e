// Records without timestamps (`claude -p --output-format stream-json`) make the file's mtime the
// only clock. A live check stats the file after it took its time, so a busy writer's mtime is
// often a few ms past the judged moment: that is activity now. Only an mtime far past it (a
// `--now` in the past) is ignored. (A healthy stream-json agent used to flip to stalled.)
import { describe, expect, it } from 'vitest';
import { parseTranscriptText, summarizeTranscript } from '../../src/agents/claude-code/parse/parse-transcript.js';

const streamJson =
  [
    { type: 'system', subtype: 'init', session_id: 's' },
    {
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/a.ts' } }] },
      session_id: 's',
    },
    { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] }, session_id: 's' },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n';

const NOW = Date.parse('2026-04-02T10:00:00Z');

describe('the mtime of a transcript without timestamps', () => {
  const { state } = parseTranscriptText(streamJson);
  it.each([
    { name: 'before the judged moment: output grew then', mtimeMs: NOW - 3_000, grew: NOW - 3_000 },
    { name: 'a few ms after it (written while the check ran): output grows now', mtimeMs: NOW + 40, grew: NOW },
    { name: 'seconds after it (a slow check): output grows now', mtimeMs: NOW + 2_500, grew: NOW },
    { name: 'long after it (--now in the past): says nothing about that moment', mtimeMs: NOW + 3_600_000, grew: undefined },
  ])('$name', ({ mtimeMs, grew }) => {
    expect(summarizeTranscript(state, { mtimeMs, nowMs: NOW }).outputGrewAtMs).toBe(grew);
  });
});
