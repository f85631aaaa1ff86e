// Child activity seen through the parent's progress records, on lines recorded from a real session
// (issue 33 item 7): a 2.1.39 lead whose foreground `Task` subagent's `agent_progress` records flow
// into its own transcript (../shared/fixtures/claude-code/, read in place), its subagent's own
// transcript not read. Cut after the last progress record (the subagent died, or its session did),
// the lead is stalled at its window + 1 s: the child was observed, and its records stopping is
// evidence. Cut after the `Task` call, before any record of the child, the lead waits on a child
// nothing was ever seen of: `unknown`, never acted on ("missing evidence never kills"). The same on
// this repo's own 2.1.37 excerpt (test/fixtures/real/), which runs without ../shared.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayTranscript } from '../../src/agents/claude-code/parse/replay-transcript.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { CLAUDE_FIXTURES, hasClaudeFixtures } from '../helpers/shared-fixtures.js';

const FILE = 'transcript-v2.1.39-parent-task-subagent.jsonl';
const lines = hasClaudeFixtures ? readFileSync(path.join(CLAUDE_FIXTURES, FILE), 'utf8').split('\n').filter(Boolean) : [];
const recs = lines.map((l) => JSON.parse(l) as { type: string; timestamp: string; data?: { type?: string; agentId?: string } });
/** The lead's transcript as it was when its session ended after record `n` (1-based). */
const cutAfter = (n: number) => ({ transcript: { file: FILE, text: `${lines.slice(0, n).join('\n')}\n` } });

describe.skipIf(!hasClaudeFixtures)(
  `a real lead's subagent seen only through its progress records (${CLAUDE_FIXTURES}; skipped when ../shared is absent)`,
  () => {
    const lastProgress = recs.findLastIndex((r) => r.type === 'progress' && r.data?.type === 'agent_progress') + 1;
    const taskCall = recs.findIndex((r) => r.type === 'assistant' && JSON.stringify(r).includes('"name":"Task"')) + 1;

    it('the excerpt is what the test needs: a Task call, then the subagent a93ccab mirrored by agent_progress records, then its result', () => {
      expect(taskCall).toBe(2);
      expect(lastProgress).toBe(8);
      expect(recs.slice(taskCall, lastProgress).every((r) => r.type === 'progress' && r.data?.agentId === 'a93ccab')).toBe(true);
      expect(recs.at(-1)).toMatchObject({ type: 'user' });
    });

    it.each([30, 120, 600])('cut after the last progress record, at a %i s window: stalled at the window + 1 ms after it, naming no missing evidence', (w) => {
      const policy = { ...DEFAULT_POLICY, baseTimeoutMs: w * 1000 };
      const r = replayTranscript(cutAfter(lastProgress), policy);
      const lastMs = Date.parse(recs[lastProgress - 1]!.timestamp);
      // Healthy while the subagent's records flowed; then one stall, at its deadline.
      expect(r.changes.at(-1)!.verdict.kind).toBe('stalled');
      const stall = r.changes.find((c) => c.verdict.kind === 'stalled')!;
      expect(stall.atMs - lastMs, stall.verdict.reason).toBeLessThanOrEqual(w * 1000 + 1000);
      expect(stall.atMs - lastMs).toBeGreaterThan(w * 1000);
      expect(stall.verdict).toMatchObject({ stallReason: 'inactivity', effectiveTimeoutMs: w * 1000 });
      expect(stall.verdict.unobservedChildren).toBeUndefined();
      expect(r.changes.filter((c) => c.verdict.kind === 'unknown')).toEqual([]);
    });

    it('cut right after the Task call, before any record of the subagent: unknown past the window, never stalled (missing evidence never kills)', () => {
      const r = replayTranscript(cutAfter(taskCall), DEFAULT_POLICY);
      expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'unknown']);
      expect(r.changes.at(-1)!.verdict).toMatchObject({ kind: 'unknown', unobservedChildren: [expect.stringContaining('toolu_01Y64XEaRvUYinzv9rW9qZXd')] });
    });

    it('the whole excerpt: the subagent working keeps the lead healthy until its result', () => {
      const r = replayTranscript(cutAfter(lines.length - 1), DEFAULT_POLICY);
      expect(r.changes.filter((c) => c.atMs <= Date.parse(recs[lastProgress - 1]!.timestamp)).map((c) => c.verdict.kind)).toEqual(['healthy']);
    });
  },
);

describe("the same on this repo's own real excerpt (always here): a 2.1.37 lead cut mid-Task after nine agent_progress records of subagent aff51cf", () => {
  const file = path.resolve('test/fixtures/real/agentping-2.1.37-task-agent-progress.jsonl');
  const own = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const ownRecs = own.map((l) => JSON.parse(l) as { type: string; timestamp?: string; data?: { type?: string } });
  const cut = (n: number) => ({ transcript: { file, text: `${own.slice(0, n).join('\n')}\n` } });
  const last = ownRecs.findLastIndex((r) => r.data?.type === 'agent_progress') + 1;
  const taskCall = ownRecs.findIndex((r) => r.type === 'assistant' && JSON.stringify(r).includes('"name":"Task"')) + 1;

  it('the file ends on its last progress record: stalled at the window + 1 ms after it', () => {
    expect(last).toBe(own.length);
    const r = replayTranscript(cut(last), DEFAULT_POLICY);
    const stall = r.changes.find((c) => c.verdict.kind === 'stalled')!;
    const lastMs = Date.parse(ownRecs[last - 1]!.timestamp!);
    expect(stall.atMs - lastMs, stall.verdict.reason).toBeGreaterThan(120_000);
    expect(stall.atMs - lastMs).toBeLessThanOrEqual(121_000);
    expect(r.changes.filter((c) => c.verdict.kind === 'unknown')).toEqual([]);
  });

  it('cut right after its Task call, nothing of the subagent seen: unknown, never stalled', () => {
    const r = replayTranscript(cut(taskCall), DEFAULT_POLICY);
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'unknown']);
  });
});
