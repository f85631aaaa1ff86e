// Issue 19's measurement on our own real transcripts (test/fixtures/real/ and real-2.1.197/, the
// stand-in for the 26 sessions): today's figures pinned, so a change to the check code that
// adds a false stall, calls a finished turn stalled, misses a crash or keeps a give-up after a
// resume fails here. `npm run bench` prints the same figures, with the shared excerpts beside them.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStandIn, STAND_IN } from '../../bench/false-stalls.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { renderScore } from '../../src/core/render-score.js';
import { scoreReplays } from '../../src/agents/claude-code/parse/replay-score.js';
import { assistant, jsonl, text, toolResult, toolUse, user } from '../helpers/claude-lines.js';
import { tempDir } from '../helpers/temp-dir.js';

const inputs = await readStandIn(STAND_IN.own);
const at = (seconds: number) => scoreReplays(inputs, { ...DEFAULT_POLICY, baseTimeoutMs: seconds * 1000 });

describe('false stalls on our own real transcripts', () => {
  it('reads every session of the stand-in set', () => {
    expect(inputs.map((i) => i.transcript.file.replace(/^test\/fixtures\//, ''))).toMatchInlineSnapshot(`
      [
        "real/agentping-2.1.37-interrupted-twice.jsonl",
        "real/agentping-2.1.37-task-agent-progress.jsonl",
        "real/agentping-2.1.37-team-lead.jsonl",
        "real/attio-mcp-server-1.0.70-local-commands.jsonl",
        "real/loopkit-2.1.96-clear-then-fetch.jsonl",
        "real/templar-1.0.57-interrupted-prompt.jsonl",
        "real-2.1.197/give-up-resumed/fe27fd1f-8a46-4a69-bfc3-1dbe76c92ac5.jsonl",
        "real-2.1.197/give-up-resumed/stream-1-gave-up.jsonl",
        "real-2.1.197/give-up-resumed/stream-2-resumed.jsonl",
        "real-2.1.197/permission-wait/83ab4222-a07c-4718-b60c-42017dd469ef.jsonl",
        "real-2.1.197/slow-stream/3370afcc-db45-4d7a-bd3c-d0debdf7f77e.jsonl",
        "real-2.1.197/unobservable-child/83ab4222-a07c-4718-b60c-42017dd469ef.jsonl",
      ]
    `);
  });

  it('at 120 s: one false stall, the 150 s model turn no record shows; no finished turn called stalled; every crash flagged but a 1.0.x crash after text; give-ups flagged and cleared', () => {
    const s = at(120);
    const why = renderScore(s).join('\n');
    expect(
      s.falseStalls.map((f) => [f.file.split('/').slice(-2).join('/'), f.isHumanWait, Math.round((f.resumedAtMs - f.atMs) / 1000)]),
      why,
    ).toEqual([['slow-stream/3370afcc-db45-4d7a-bd3c-d0debdf7f77e.jsonl', false, 31]]);
    expect(s.finishedCalledStalled, why).toEqual([]);
    expect(s.finishedTurns, why).toBe(6);
    expect(
      s.crashes.missed.map((m) => m.file.split('/').at(-1)),
      why,
    ).toEqual(['templar-1.0.57-interrupted-prompt.jsonl', 'templar-1.0.57-interrupted-prompt.jsonl']);
    expect(
      s.crashes.missed.every((m) => m.reason.includes('this Claude Code writes no turn-end record')),
      why,
    ).toBe(true);
    expect(s.crashes, why).toMatchObject({ reportedUnobservable: 1 });
    expect(s.crashes.flagged, why).toBe(s.crashes.simulated - 3);
    expect(s.crashes.simulated, why).toBeGreaterThan(40);
    expect(s.giveUps, why).toEqual({ seen: 2, flaggedAtOnce: 2, resumed: 1, cleared: 1, notCleared: [] });
  });

  it('at 300 s: no false stall', () => {
    const s = at(300);
    expect(s.falseStalls, renderScore(s).join('\n')).toEqual([]);
    expect(s.finishedCalledStalled).toEqual([]);
  });
});

describe('the stand-in set', () => {
  it("a subagent's transcript kept as a file of its own is read with the session it names: alone, its final answer would read as a pause", async () => {
    const dir = tempDir();
    const sub = { isSidechain: true, agentId: 'a93ccab' };
    writeFileSync(
      path.join(dir, 'parent.jsonl'),
      jsonl(user(0, 'go'), assistant(1, [toolUse('t1', 'Task', { prompt: 'look' })]), user(100, [toolResult('t1', 'found')]), assistant(101, [text('Done.')])),
    );
    writeFileSync(path.join(dir, 'child-excerpt.jsonl'), jsonl(user(2, 'look', sub), assistant(3, [text('Found it.')], sub)));
    const read = await readStandIn([dir]);
    expect(read.map((i) => [path.basename(i.transcript.file), i.children?.map((c) => path.basename(c.file))])).toEqual([
      ['parent.jsonl', ['agent-a93ccab.jsonl']],
    ]);
  });
});
