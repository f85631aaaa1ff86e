// A subagent's `rowSource: "harness"` interruption is Claude Code's stall watchdog only when its
// lead was told the task failed ("Agent stalled"); a `killed` notification is a stop (a person, the
// app connected to the session, the lead's TaskStop): test/realagent/interrupt-hook.test.ts
// measured both on 2.1.337. The notification may still be queued (a queue-operation) when read.
import { describe, expect, it } from 'vitest';
import { childCompletion, childStopped, parseTranscriptText } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { jsonl, ms, user } from '../helpers/claude-lines.js';

const ID = 'ae802d54dc381844d';
const note = (status: string, summary: string) =>
  `<task-notification>\n<task-id>${ID}</task-id>\n<tool-use-id>toolu_1</tool-use-id>\n<status>${status}</status>\n<summary>${summary}</summary>\n</task-notification>`;
const queued = (s: number, content: string) =>
  JSON.stringify({ type: 'queue-operation', operation: 'enqueue', timestamp: new Date(ms(s)).toISOString(), sessionId: 'sess-1', content });
const lead = (...lines: string[]) => parseTranscriptText(jsonl(user(0, 'dispatch'), ...lines)).state;

describe("a subagent's end as its lead's transcript tells it", () => {
  it('killed (stopped by the user or the app), delivered or still queued: stopped, not completed', () => {
    const text = note('killed', 'Task "a subagent" was stopped by the user or by the app connected to this session');
    for (const state of [lead(queued(5, text)), lead(user(5, text))]) {
      expect(childStopped(state, ID)).toEqual({ atMs: ms(5) });
      expect(childCompletion(state, ID)).toBeUndefined();
    }
  });

  it('failed (Claude Code\'s stall watchdog: "Agent stalled") is not a stop', () => {
    const state = lead(queued(5, note('failed', 'Agent "a subagent" failed: Agent stalled: no progress for 20s (stream watchdog did not recover)')));
    expect(childStopped(state, ID)).toBeUndefined();
    expect(childStopped(lead(queued(5, note('killed', 'stopped'))), 'another')).toBeUndefined();
  });
});
