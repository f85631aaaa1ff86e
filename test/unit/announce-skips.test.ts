// A run without the real Claude Code samples says so in one line (test/helpers/announce-skips.ts).
import { describe, expect, it } from 'vitest';
import { sharedFixturesNote } from '../helpers/announce-skips.js';

describe('the skip note', () => {
  it('names where the samples were looked for and what skips, once; nothing when they are there', () => {
    const note = sharedFixturesNote('/nowhere/claude-code', () => false);
    expect(note).toMatch(
      /^note: the real Claude Code samples are absent \(\/nowhere\/claude-code; set DW_SHARED_FIXTURES .*observe-fixtures\.test\.ts and replay-fixtures\.test\.ts are skipped\n$/,
    );
    expect(note!.split('\n')).toHaveLength(2);
    expect(sharedFixturesNote('/here', () => true)).toBeUndefined();
  });
});
