// The transcript fold's fast path (issue 37, skim-record.ts) changes nothing it folds: real
// Claude Code 2.1.332 and 2.1.337 transcripts recorded by the suite (test/fixtures/real-2.1.33x/), the bench's
// generated 2.1.332 turns and the shared real transcripts of older versions are folded line by line
// with and without it, from byte 0 and from a tail start, and every state must be the same.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseTranscriptBytes, parseTranscriptLine, summarizeTranscript } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { SKIM_MIN_BYTES, skimTranscriptLine } from '../../src/agents/claude-code/parse/skim-record.js';
import { emptyTranscriptState } from '../../src/agents/claude-code/parse/transcript-state.js';
import { turn2332Lines } from '../../bench/turn-2332.js';
import { CLAUDE_FIXTURES } from '../helpers/shared-fixtures.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const REAL = ['2.1.332', '2.1.337'].map((v) => [v, path.resolve(here, `../fixtures/real-${v}`)] as const);

function jsonlFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? jsonlFiles(p) : n.endsWith('.jsonl') && !n.startsWith('stream') ? [p] : [];
  });
}

/** Fold `text` both ways, line by line, comparing the states after every line; returns how many lines the fast path took. */
function foldBothWays(text: string, file: string, tailStart = false): number {
  const slow = emptyTranscriptState();
  const fast = emptyTranscriptState();
  let skimmed = 0;
  let offset = 0;
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, i) => {
    const ref = tailStart ? { offset } : { offset, lineNo: i + 1 };
    const bytes = Buffer.from(line, 'utf8');
    if (skimTranscriptLine(bytes) !== undefined) skimmed++;
    const a = parseTranscriptLine(slow, line, file, ref);
    const b = parseTranscriptBytes(fast, bytes, file, ref);
    expect(b, `${file}:${i + 1} diagnostic`).toEqual(a);
    expect(fast, `${file}:${i + 1} state`).toEqual(slow);
    offset += bytes.length + 1;
  });
  expect(summarizeTranscript(fast, { nowMs: Date.parse('2026-12-05T12:00:00Z') })).toEqual(
    summarizeTranscript(slow, { nowMs: Date.parse('2026-12-05T12:00:00Z') }),
  );
  return skimmed;
}

describe('the fast path folds exactly what the full parse folds', () => {
  for (const [version, dir] of REAL) {
    const real = jsonlFiles(dir);
    it.skipIf(real.length === 0)(`real ${version} transcripts recorded by the suite (${real.length} files), from byte 0 and from a tail start`, () => {
      let skimmed = 0;
      for (const f of real) {
        const text = readFileSync(f, 'utf8');
        skimmed += foldBothWays(text, f);
        foldBothWays(text, f, true);
      }
      // The test means something only if the fast path took lines.
      expect(skimmed).toBeGreaterThan(real.length);
    });
  }

  it("generated 2.1.332 turns (the bench's record mix), with every shape of line the skim must decline", () => {
    const turns = Array.from({ length: 24 }, (_, i) => turn2332Lines('a1', 'sess-0', i, Date.parse('2026-12-05T10:00:00Z') + i * 5000)).join('');
    const big = 'x'.repeat(SKIM_MIN_BYTES);
    const odd = [
      // an unknown record that carries the one other field the fold reads of it
      JSON.stringify({ type: 'api-request-shape', isCompactSummary: true, shape: big }),
      // a compaction summary after a manual /compact, then bulk: the bulk ends the manual compaction either way
      JSON.stringify({
        type: 'system',
        subtype: 'compact_boundary',
        compactMetadata: { trigger: 'manual' },
        timestamp: '2026-12-05T10:10:00.000Z',
        sessionId: 'sess-0',
      }),
      JSON.stringify({ type: 'api-request-blob', message: big }),
      // attachments: a skimmed one whose body holds quotes, backslashes and braces; one the fold may read; one whose type field is escaped
      JSON.stringify({
        parentUuid: 'p',
        isSidechain: true,
        agentId: 'a1',
        attachment: { type: 'prompt_snapshot', system: `${big} "quoted" \\ {[}]` },
        type: 'attachment',
        uuid: 'u1',
        timestamp: '2026-12-05T10:11:00.000Z',
        sessionId: 'sess-0',
        cwd: '/w',
      }),
      JSON.stringify({
        parentUuid: 'p',
        isSidechain: true,
        attachment: { type: 'queued_command', prompt: big },
        type: 'attachment',
        uuid: 'u2',
        timestamp: '2026-12-05T10:12:00.000Z',
      }),
      `{"parentUuid":"p","attachment":{"type":"prompt\\u005fsnapshot","x":"${big}"},"type":"attachment","timestamp":"2026-12-05T10:13:00.000Z"}`,
      // not one whole JSON object: the full parse reports it
      `{"type":"api-request-shape","shape":"${big}"} trailing`,
      `{"type":"api-request-shape","shape":"${big}`,
      `{"type":"api-request-shape","shape":"${big}"}}`.slice(0, -1) + ',}',
      `  {"type":"api-request-blob","message":"${big}"}`,
      // a type name with an escape, and a type the fold reads
      `{"type":"api\\u002drequest","x":"${big}"}`,
      JSON.stringify({
        type: 'assistant',
        timestamp: '2026-12-05T10:14:00.000Z',
        sessionId: 'sess-0',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: big }] },
      }),
    ];
    const text = turns + odd.join('\n') + '\n' + turns;
    expect(foldBothWays(text, 'generated.jsonl')).toBeGreaterThan(24);
    foldBothWays(text, 'generated.jsonl', true);
  });

  const shared = jsonlFiles(CLAUDE_FIXTURES);
  it.skipIf(shared.length === 0)(`the shared real transcripts of older versions (${shared.length} files; skipped without ../shared)`, () => {
    for (const f of shared) foldBothWays(readFileSync(f, 'utf8'), f);
  });
});
