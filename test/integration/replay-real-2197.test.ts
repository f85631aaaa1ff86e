// Real Claude Code 2.1.197 sessions (test/fixtures/real-2.1.197/README.md) through `replay`, which
// reads transcripts only: what the transcript alone can and cannot tell of a permission wait in a
// subagent and of a child nothing can be seen of (issue 19 items 2, 3, 5).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { replayTranscript } from '../../src/agents/claude-code/parse/replay-transcript.js';
import { replayInputOf } from '../helpers/replay-agreement.js';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/real-2.1.197');
const SESSION = '83ab4222-a07c-4718-b60c-42017dd469ef.jsonl';
const replay = async (dir: string) => replayTranscript(await replayInputOf(path.join(DIR, dir), SESSION), DEFAULT_POLICY);

describe('replay over real 2.1.197 sessions', () => {
  // A Bash call with Claude Code's default timeout gets its 120 s + 5 s (the onex skill's rule,
  // issue 33 item 7): it held its lead for 120 s + 60 s before, and a cut session was flagged late.
  it("a subagent's Bash waiting on the permission dialog holds its lead for Claude Code's own limit + 5 s (no process known), then ends the file as a stall: the transcript cannot see the dialog (the PermissionRequest hook can)", async () => {
    const r = await replay('permission-wait');
    expect(r.badLines).toEqual([]);
    const last = r.changes.at(-1)!;
    expect(last).toMatchObject({
      outcome: 'end_of_transcript',
      verdict: { kind: 'stalled', stallReason: 'inactivity', lastTool: 'Bash', effectiveTimeoutMs: 125_000, exemptions: ['bash_long_timeout'] },
    });
    expect(r.summary.falseAlarms).toBe(0);
  });

  it('a give-up is stalled (api_gave_up) at its own record, and the resumed run 21 s later clears it; the stamped stream-json shows the retries before it as backoff', async () => {
    const r = replayTranscript(await replayInputOf(path.join(DIR, 'give-up-resumed'), 'fe27fd1f-8a46-4a69-bfc3-1dbe76c92ac5.jsonl'), DEFAULT_POLICY);
    expect(r.changes.map((c) => [c.verdict.kind, c.verdict.stallReason ?? null, c.line ?? null])).toEqual([
      ['healthy', null, 1],
      ['stalled', 'api_gave_up', 7],
      ['healthy', null, 11],
      ['inconsistent', null, null],
    ]);
    const stream = await replayInputOf(path.join(DIR, 'give-up-resumed'), 'stream-1-gave-up.jsonl');
    expect(replayTranscript(stream, DEFAULT_POLICY).changes.map((c) => [c.verdict.kind, c.verdict.stallReason ?? null, c.line ?? null])).toEqual([
      ['healthy', null, 1],
      ['stalled', 'api_gave_up', 5],
    ]);
    // Cut after the third retry line: backing off, its window doubled.
    const retrying = { transcript: { ...stream.transcript, text: stream.transcript.text.split('\n').slice(0, 4).join('\n') + '\n' } };
    expect(replayTranscript(retrying, DEFAULT_POLICY).atLastRecord).toMatchObject({ kind: 'healthy', exemptions: ['rate_limit'], effectiveTimeoutMs: 240_000 });
  });

  it('a 150 s model turn streamed slowly is a silence no record covers: a false stall at 120 s, none at 300 s (only the process sample tells it from a frozen stream)', async () => {
    const input = await replayInputOf(path.join(DIR, 'slow-stream'), '3370afcc-db45-4d7a-bd3c-d0debdf7f77e.jsonl');
    expect(replayTranscript(input, DEFAULT_POLICY).changes.filter((c) => c.outcome === 'false_alarm')).toHaveLength(1);
    expect(replayTranscript(input, { ...DEFAULT_POLICY, baseTimeoutMs: 300_000 }).summary.stalls).toBe(0);
  });

  it('a lead waiting on a child nothing can be seen of is unknown past its window, never stalled', async () => {
    const r = await replay('unobservable-child');
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'unknown']);
    expect(r.changes.at(-1)!.verdict.reason).toContain(
      'no transcript found for (the subagent of Agent call toolu_a1), so its silence cannot be judged; not acted on',
    );
    expect(r.summary.stalls).toBe(0);
  });
});
