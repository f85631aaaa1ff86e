// Real Claude Code 2.1.332 and 2.1.337 sessions (test/fixtures/real-2.1.33x/README.md) through `replay`, which
// reads transcripts only (issue 38): Claude Code's own stall kill is a failure at its record, and
// the session with API retries is backoff while `system/api_error` records announce the wait.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { replayTranscript } from '../../src/agents/claude-code/parse/replay-transcript.js';
import { replayInputOf } from '../helpers/replay-agreement.js';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/real-2.1.332');

/** The session's own transcript in a recorded scenario's dir (its one `<session>.jsonl`). */
const sessionOf = (dir: string) => readdirSync(dir).find((n) => /^[0-9a-f-]{36}\.jsonl$/.test(n))!;
/** The dir and name of the scenario's one subagent transcript. */
function subagentOf(dir: string): [string, string] {
  const sub = path.join(dir, sessionOf(dir).replace(/\.jsonl$/, ''), 'subagents');
  return [sub, readdirSync(sub).find((n) => n.startsWith('agent-') && n.endsWith('.jsonl'))!];
}

describe.each(['2.1.332', '2.1.337'])('replay over real %s sessions', (version) => {
  const root = path.resolve(DIR, '..', `real-${version}`);
  it("the subagent Claude Code's stall watchdog killed is stalled (runtime_killed) at the harness's interruption record, never waiting_human", async () => {
    const r = replayTranscript(await replayInputOf(...subagentOf(path.join(root, 'bg-agent-stall-kill'))), DEFAULT_POLICY);
    expect(r.badLines).toEqual([]);
    const kinds = r.changes.map((c) => c.verdict.kind);
    expect(kinds).not.toContain('waiting_human');
    const last = r.changes.at(-1)!;
    expect(last.verdict).toMatchObject({ kind: 'stalled', stallReason: 'runtime_killed' });
    expect(last.verdict.reason).toMatch(/killed by Claude Code's own stall watchdog/);
  });

  it('the main session retrying 429s is never stalled', async () => {
    const dir = path.join(root, 'main-retry-bash');
    const r = replayTranscript(await replayInputOf(dir, sessionOf(dir)), DEFAULT_POLICY);
    expect(r.badLines).toEqual([]);
    expect(r.changes.filter((c) => c.verdict.kind === 'stalled')).toEqual([]);
  });

  it('a subagent parked on the command Claude Code moved to the background is waiting on it (open, bounded by the 10 min background limit), never finished', async () => {
    const r = replayTranscript(await replayInputOf(...subagentOf(path.join(root, 'parked-on-background-command'))), DEFAULT_POLICY);
    expect(r.badLines).toEqual([]);
    expect(r.changes.map((c) => c.verdict.kind)).not.toContain('inconsistent');
    // Healthy throughout the wait; the file's end judged as never continuing is the command's
    // background limit (10 min) + 60 s grace overrun, not a finish nor the 2-minute window.
    expect(r.changes.map((c) => [c.verdict.kind, c.verdict.stallReason ?? null, c.verdict.effectiveTimeoutMs, c.outcome ?? null])).toEqual([
      ['healthy', null, 120_000, null],
      ['stalled', 'open_tool_overrun', 660_000, 'end_of_transcript'],
    ]);
  });
});

describe('a wake that never landed (issue 38: a queue-operation enqueue with no dequeue)', () => {
  const dir = path.join(DIR, 'bg-agent-stall-kill');
  const LEAD = 'c516172b-9491-41c2-b86a-ede8c4aa912b.jsonl';
  /** The real lead, up to and including the enqueue of its subagent's `failed` notification (line 32), without the dequeue and all after. */
  const cut = async () => {
    const input = await replayInputOf(dir, LEAD);
    const lines = input.transcript.text.split('\n');
    const at = lines.findIndex((l) => l.includes('"operation":"enqueue"') && l.includes('<task-notification>'));
    expect(lines[at + 1]).toContain('"operation":"dequeue"');
    return { ...input, transcript: { ...input.transcript, text: `${lines.slice(0, at + 1).join('\n')}\n` } };
  };

  it('is stalled (queue_unconsumed) one window after the lead went idle, naming the queued notification, never called finished', async () => {
    const r = replayTranscript(await cut(), DEFAULT_POLICY);
    expect(r.badLines).toEqual([]);
    expect(r.changes.map((c) => c.verdict.kind)).not.toContain('inconsistent');
    const last = r.changes.at(-1)!;
    expect(last.verdict).toMatchObject({ kind: 'stalled', stallReason: 'queue_unconsumed' });
    expect(last.verdict.reason).toMatch(/a task notification \(abaa977f42daf9802\) queued for it .* was never consumed/);
    expect(last.verdict.effectiveTimeoutMs).toBe(120_000);
  });

  it('the same lead with its dequeue (the healthy twin) is never stalled', async () => {
    const r = replayTranscript(await replayInputOf(dir, LEAD), DEFAULT_POLICY);
    expect(r.changes.map((c) => c.verdict.stallReason ?? null)).not.toContain('queue_unconsumed');
  });
});

describe('a frozen stream that Claude Code resent (a second api-request with no response, no retry record)', () => {
  const dir = path.join(DIR, 'bg-agent-stall-kill', 'c516172b-9491-41c2-b86a-ede8c4aa912b', 'subagents');
  const NAME = 'agent-abaa977f42daf9802.jsonl';

  it('is stalled one window after the resend, as the stream (frozen_stream), the window not widened nor called a rate limit', async () => {
    const input = await replayInputOf(dir, NAME);
    // The real subagent up to its request whose reply never started (14:24:51.353), without the
    // kill; then the same request sent again 30 s later, as Claude Code's idle watchdog resends it.
    const lines = input.transcript.text.trim().split('\n');
    const at = lines.findLastIndex((l) => l.includes('"type":"api-request"'));
    const resend = JSON.parse(lines[at]!) as Record<string, unknown>;
    const sentMs = Date.parse(String(resend.timestamp));
    const again = { ...resend, id: 'resend-1', timestamp: new Date(sentMs + 30_000).toISOString() };
    const text = `${lines.slice(0, at + 1).join('\n')}\n${JSON.stringify(again)}\n`;
    const r = replayTranscript({ ...input, transcript: { ...input.transcript, text } }, DEFAULT_POLICY);
    expect(r.badLines).toEqual([]);
    const last = r.changes.at(-1)!;
    expect(last.verdict).toMatchObject({ kind: 'stalled', stallReason: 'inactivity', transportCause: 'frozen_stream', effectiveTimeoutMs: 120_000 });
    expect(last.verdict.exemptions).not.toContain('rate_limit');
    // Within the window + 1 s of the resend.
    expect(last.atMs - (sentMs + 30_000)).toBeLessThanOrEqual(120_000 + 1000);
  });
});
