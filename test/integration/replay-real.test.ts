// Issue 10 item 3 on real data: excerpts of real Claude Code sessions from public repositories
// whose licence allows copying (test/fixtures/real/README.md gives each source, licence and what
// was cut). Each timeline is pinned as a `replay` snapshot; none may show a false alarm at the
// default window, and a cold start must judge like the loop at every sampled moment.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { renderReplayText } from '../../src/core/render-replay.js';
import { replayTranscript } from '../../src/agents/claude-code/parse/replay-transcript.js';
import { parseTranscriptText } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { expectColdAgreesWithLoop, lineTimes, replayInputOf } from '../helpers/replay-agreement.js';
import { tempDir } from '../helpers/temp-dir.js';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/real');
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
const replayAt = async (name: string, seconds = 120) => replayTranscript(await replayInputOf(DIR, name), { ...DEFAULT_POLICY, baseTimeoutMs: seconds * 1000 });
const times = (name: string) => lineTimes(readFileSync(path.join(DIR, name), 'utf8')).map((r) => r.atMs);
const ATTIO = 'attio-mcp-server-1.0.70-local-commands.jsonl';
const TEMPLAR = 'templar-1.0.57-interrupted-prompt.jsonl';
const AGENTPING = 'agentping-2.1.37-task-agent-progress.jsonl';
const AGENTPING_END = 'agentping-2.1.37-interrupted-twice.jsonl';
const TEAM = 'agentping-2.1.37-team-lead.jsonl';
const LOOPKIT = 'loopkit-2.1.96-clear-then-fetch.jsonl';
const stateAfter = (name: string, lines: number) =>
  parseTranscriptText(readFileSync(path.join(DIR, name), 'utf8').split('\n').slice(0, lines).join('\n') + '\n').state;

describe('replay over the real excerpts in test/fixtures/real', () => {
  it('holds the six licensed excerpts the README lists', () => {
    expect(FILES).toEqual([AGENTPING_END, AGENTPING, TEAM, ATTIO, LOOPKIT, TEMPLAR]);
  });

  it.each(FILES)('%s: no false alarm at the default window; the timeline is its snapshot', async (name) => {
    const r = await replayAt(name);
    expect(r.badLines).toEqual([]);
    expect(r.summary.falseAlarms, renderReplayText(r)).toBe(0);
    await expect(renderReplayText(r)).toMatchFileSnapshot(path.join(DIR, '__snapshots__', name.replace(/\.jsonl$/, '.txt')));
  });

  it.each(FILES)('%s: no false alarm at 600 s; at 30 s only where no record can show the agent at work', async (name) => {
    expect((await replayAt(name, 600)).summary.falseAlarms).toBe(0);
    const short = await replayAt(name, 30);
    const t = times(name);
    // The one silence no record covers: the model spent 34 s writing the 4th teammate's prompt
    // (lines 19 -> 20, one API call; Claude Code writes the tool_use only when it is complete).
    const allowed = name === TEAM ? [t[19]] : [];
    expect(short.changes.filter((c) => c.outcome === 'false_alarm').map((c) => c.resumedAtMs)).toEqual(allowed);
  });

  it.each(FILES)('%s: a cold --once (1 KB tail) judges like the loop at every sampled moment', async (name) => {
    expect(await expectColdAgreesWithLoop(DIR, name)).toBeGreaterThan(0);
  });
});

describe('what each real excerpt shows', () => {
  it("1.0.70: the 1.0.x local-command caveat line, /mcp and /model before the first prompt are the human's, not progress", async () => {
    const r = await replayAt(ATTIO);
    const t = times(ATTIO);
    // The session sat open 81 minutes before the human typed; that idle stall is the human's, not a false alarm.
    expect(r.changes[1]).toMatchObject({ atMs: t[0]! + 120_001, outcome: 'human_resumed' });
    // Healthy again only at the prompt (line 8), not at the caveat and /mcp lines 28 s before it.
    expect(r.changes[2]).toMatchObject({ atMs: t[7]!, line: 8 });
    expect(r.changes[2]!.verdict.kind).toBe('healthy');
    expect(stateAfter(ATTIO, 7).lastEventMs).toBe(t[0]);
  });

  it('1.0.57: a prompt interrupted at once, a second prompt, then work; the mid-turn text that ends the excerpt is read as a final answer only after a whole silent window', async () => {
    const r = await replayAt(TEMPLAR);
    const t = times(TEMPLAR);
    expect(r.summary.stalls).toBe(0);
    // The interruption 1 ms after the first prompt leaves the agent waiting for the human, who typed 20 s later.
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['waiting_human', 'healthy', 'inconsistent']);
    expect(r.changes[1]).toMatchObject({ atMs: t[6], line: 7 });
    expect(r.changes[2]!.atMs).toBe(t.at(-1)! + 120_001);
    expect(r.changes[2]!.verdict.reason).toContain('this Claude Code writes no turn-end record');
  });

  it("2.1.37: agent_progress lines of an Explore subagent keep its parent's open Task call alive; the excerpt ends mid-Task", async () => {
    const r = await replayAt(AGENTPING);
    const t = times(AGENTPING);
    const state = parseTranscriptText(readFileSync(path.join(DIR, AGENTPING), 'utf8')).state;
    expect(state.open.find((c) => c.name === 'Task')).toMatchObject({ childAgentId: 'aff51cf', isOpen: true });
    expect(state.lastEventMs).toBe(t.at(-1));
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'stalled']);
    expect(r.changes[1]).toMatchObject({ atMs: t.at(-1)! + 120_001, outcome: 'end_of_transcript' });
  });

  it('2.1.37: two interruptions and whitespace-only text ("\\n\\n") before each: neither is progress nor a final answer', async () => {
    const t = times(AGENTPING_END);
    expect(stateAfter(AGENTPING_END, 5).lastEventMs).toBe(t[3]); // the interruption (line 5) is not the agent at work
    const afterBlank = stateAfter(AGENTPING_END, 8);
    expect(afterBlank.finalTextMs).toBeUndefined();
    expect(afterBlank.lastOutput).toBeUndefined();
    expect(stateAfter(AGENTPING_END, 9).lastEventMs).toBe(t[7]);
    const r = await replayAt(AGENTPING_END);
    // Each interruption waits for the human (no stall while they read and type); each prompt starts a normal turn.
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'waiting_human', 'healthy', 'waiting_human', 'healthy', 'stalled']);
    expect(
      r.changes
        .filter((c) => c.verdict.kind === 'healthy')
        .slice(1)
        .map((c) => c.atMs),
    ).toEqual([t[6], t[10]]);
    expect(r.changes.at(-1)).toMatchObject({ atMs: t.at(-1)! + 120_001, outcome: 'end_of_transcript' });
  });

  it('2.1.37: after [Request interrupted by user] the agent waits for the human however long they take; never a stall to act on', async () => {
    // The real records up to the first interruption and its snapshot line, as if the human walked away.
    const dir = tempDir();
    writeFileSync(path.join(dir, 'cut.jsonl'), readFileSync(path.join(DIR, AGENTPING_END), 'utf8').split('\n').slice(0, 6).join('\n') + '\n');
    const r = await replayTranscript(await replayInputOf(dir, 'cut.jsonl'), DEFAULT_POLICY);
    const t = times(AGENTPING_END);
    expect(r.summary.stalls).toBe(0);
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'waiting_human']);
    expect(r.changes[1]!.atMs).toBe(t[4]);
    expect(r.changes[1]!.verdict.reason).toContain('interrupted');
    expect(await expectColdAgreesWithLoop(dir, 'cut.jsonl')).toBeGreaterThan(0);
  });

  it('2.1.37 team lead: TeamCreate, four background teammates (teammate_spawned), TaskList polled 4 times in 6 s while they work, then shutdown requests: healthy throughout, never looping', async () => {
    const r = await replayAt(TEAM);
    const t = times(TEAM);
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'stalled']);
    expect(r.changes[1]).toMatchObject({ atMs: t.at(-1)! + 120_001, outcome: 'end_of_transcript' });
    const state = stateAfter(TEAM, 31); // after the 4th TaskList result in a row
    expect(state.recent.slice(-4).map((c) => c.name)).toEqual(['TaskList', 'TaskList', 'TaskList', 'TaskList']);
    expect(state.open).toEqual([]); // every spawn returned at once: the teammates run in the background
  });

  it("2.1.96: /clear before the prompt (caveat, command and its system/local_command output) is the human's, not progress; attachments, ToolSearch and two different tool errors in a row are work, not a loop", async () => {
    const t = times(LOOPKIT);
    expect(stateAfter(LOOPKIT, 5).lastEventMs).toBeUndefined(); // the caveat, /clear and its system/local_command output
    expect(stateAfter(LOOPKIT, 6).lastEventMs).toBe(t[5]); // the prompt
    const r = await replayAt(LOOPKIT);
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'stalled']);
    expect(r.changes[1]).toMatchObject({ atMs: t.at(-1)! + 120_001, outcome: 'end_of_transcript' });
  });
});
