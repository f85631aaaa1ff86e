// Real Claude Code 2.1.197 sessions (test/fixtures/real-2.1.197/README.md) through `replay`, which
// reads transcripts only: what the transcript alone can and cannot tell of a permission wait in a
// subagent and of a child nothing can be seen of (issue 19 items 2, 3, 5).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { replayTranscript } from '../../src/core/replay-transcript.js';
import { replayInputOf } from '../helpers/replay-agreement.js';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/real-2.1.197');
const SESSION = '83ab4222-a07c-4718-b60c-42017dd469ef.jsonl';
const replay = async (dir: string) => replayTranscript(await replayInputOf(path.join(DIR, dir), SESSION), DEFAULT_POLICY);

describe('replay over real 2.1.197 sessions', () => {
  it("a subagent's Bash waiting on the permission dialog holds its lead for the call's own window, then ends the file as a stall: the transcript cannot see the dialog (the PermissionRequest hook can)", async () => {
    const r = await replay('permission-wait');
    expect(r.badLines).toEqual([]);
    const last = r.changes.at(-1)!;
    expect(last).toMatchObject({ outcome: 'end_of_transcript', verdict: { kind: 'stalled', stallReason: 'open_tool_overrun', lastTool: 'Bash', effectiveTimeoutMs: 180_000, exemptions: ['open_tool_call'] } });
    expect(r.summary.falseAlarms).toBe(0);
  });

  it('a lead waiting on a child nothing can be seen of is unknown past its window, never stalled', async () => {
    const r = await replay('unobservable-child');
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'unknown']);
    expect(r.changes.at(-1)!.verdict.reason).toContain('no transcript found for (the subagent of Agent call toolu_a1), so its silence cannot be judged; not acted on');
    expect(r.summary.stalls).toBe(0);
  });
});
