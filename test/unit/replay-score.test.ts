// Issue 19's measurement (core/replay-score): each figure of the issue's table on a transcript made
// to show it, and the crash cuts' seed.
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { renderScore } from '../../src/core/render-score.js';
import { scoreReplays } from '../../src/agents/claude-code/parse/replay-score.js';
import { assistant, jsonl, ms, system, text, toolResult, toolUse, user } from '../helpers/claude-lines.js';

const policy = (seconds = 120) => ({ ...DEFAULT_POLICY, baseTimeoutMs: seconds * 1000 });
const score = (body: string, seconds = 120, opts = {}) => scoreReplays([{ transcript: { file: 'sess.jsonl', text: body } }], policy(seconds), opts);
const work = (from: number, n: number, step = 5) =>
  Array.from({ length: n }, (_, i) => [
    assistant(from + i * step, [toolUse(`r${from + i}`, 'Read', { file_path: `/f${i}` })]),
    user(from + i * step + 1, [toolResult(`r${from + i}`, 'x')]),
  ]).flat();

describe('scoreReplays', () => {
  it('a silence the agent ended by itself is a false stall at 120 s, not at 300 s; its active time counts', () => {
    const body = jsonl(
      user(0, 'go'),
      ...work(1, 3),
      assistant(200, [toolUse('r9', 'Read', { file_path: '/g' })]),
      user(201, [toolResult('r9', 'y')]),
      assistant(202, [text('Done.')]),
      system(203, 'turn_duration'),
    );
    const s = score(body);
    expect(s.falseStalls).toMatchObject([{ atMs: ms(12) + 120_001, resumedAtMs: ms(200), isHumanWait: false }]);
    expect(s.activeHours * 3600).toBeCloseTo(202, 0);
    expect(score(body, 300).falseStalls).toEqual([]);
    expect(renderScore(s)[1]).toMatch(/human waits excluded +1 \(/);
  });

  it('a false stall on an Edit held open (a permission dialog), a Bash open past its own timeout, or a call whose result says the human refused, is a human wait', () => {
    const held = (result: string, name: string) =>
      jsonl(
        user(0, 'go'),
        assistant(1, [toolUse('e1', name, { file_path: '/a', command: 'x' })]),
        user(400, [toolResult('e1', result)]),
        assistant(401, [text('Done.')]),
        system(402, 'turn_duration'),
      );
    expect(score(held('edited', 'Edit')).falseStalls.map((f) => f.isHumanWait)).toEqual([true]);
    expect(score(held("The user doesn't want to proceed with this tool use.", 'WebFetch')).falseStalls.map((f) => f.isHumanWait)).toEqual([true]);
    // A Bash call open past its own timeout + grace (Claude Code's 120 s default + 60 s) cannot be running: only a dialog holds it.
    // (It stalls at its own limit + 5 s, the seed's rule for a Bash call with no long timeout.)
    expect(score(held('done', 'Bash')).falseStalls.map((f) => [f.isHumanWait, f.atMs - ms(1)])).toEqual([[true, 125_001]]);
    // A call with no timeout of its own held as long looks like any slow call.
    expect(score(held('fetched', 'WebFetch')).falseStalls.map((f) => f.isHumanWait)).toEqual([false]);
  });

  it('a finished turn the human answers 10 minutes later is counted and not called stalled; a stall after a mid-turn thinking block is not a finished turn', () => {
    const finished = score(
      jsonl(
        user(0, 'go'),
        ...work(1, 2),
        assistant(20, [text('All done.')]),
        system(21, 'turn_duration'),
        user(620, 'thanks, now the docs'),
        ...work(621, 2),
        assistant(640, [text('Docs done.')]),
        system(641, 'turn_duration'),
      ),
    );
    expect(finished).toMatchObject({ finishedTurns: 2, finishedCalledStalled: [], falseStalls: [], humanSteppedIn: 0 });
    const thinking = score(jsonl(user(0, 'go'), assistant(1, [{ type: 'thinking', thinking: 'hm' }]), user(300, 'hello?')));
    expect(thinking).toMatchObject({ finishedTurns: 0, finishedCalledStalled: [], humanSteppedIn: 1 });
  });

  it('a stall after a final answer without a turn end record is a finished turn called stalled (2.x, read alone)', () => {
    const s = score(jsonl(user(0, 'go'), ...work(1, 2), assistant(20, [text('All done.')])));
    expect(s.finishedTurns).toBe(1);
    expect(s.finishedCalledStalled).toEqual([{ file: 'sess.jsonl', atMs: ms(20) + 120_001 }]);
  });

  it('crashes: every cut while the agent works is flagged within its window + 1 s; a long open Bash holds it; the seed decides the cuts', () => {
    const body = jsonl(
      user(0, 'go'),
      ...work(1, 10),
      assistant(60, [toolUse('b1', 'Bash', { command: 'make', timeout: 600_000 })]),
      user(500, [toolResult('b1', 'built')]),
      ...work(501, 10),
    );
    const s = score(body, 120, { seed: 7, cutsPerFile: 30 });
    expect(s.crashes.simulated).toBeGreaterThanOrEqual(4); // most cuts fall in the long Bash call: one crash moment
    expect(s.crashes).toMatchObject({ flagged: s.crashes.simulated, missed: [] });
    expect(score(body, 120, { seed: 7, cutsPerFile: 30 }).crashes).toEqual(s.crashes);
    // A cut after a final answer is no crash to flag: the turn is over.
    const ended = score(jsonl(user(0, 'go'), ...work(1, 2), assistant(20, [text('All done.')]), system(21, 'turn_duration'), user(2000, 'next')), 120, {
      cutsPerFile: 40,
    });
    expect(ended.crashes.notAtWork.inconsistent).toBeGreaterThan(0);
  });

  it('an API give-up is flagged at once and cleared when the human resumes the agent', () => {
    const body = jsonl(
      user(0, 'go'),
      ...work(1, 2),
      assistant(20, [text('API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')], {
        isApiErrorMessage: true,
        error: 'server_error',
      }),
      system(20.1, 'turn_duration'),
      user(80, 'try again'),
      ...work(81, 3),
      assistant(100, [text('Done.')]),
      system(101, 'turn_duration'),
    );
    const s = score(body);
    expect(s.giveUps).toEqual({ seen: 1, flaggedAtOnce: 1, resumed: 1, cleared: 1, notCleared: [] });
    expect(s.falseStalls).toEqual([]);
  });

  it.each([
    ['usage_limit', "You've hit your session limit · resets 1:43am (UTC)", 'rate_limit'],
    ['auth_failed', 'Failed to authenticate. API Error: 401 invalid x-api-key', 'authentication_failed'],
  ])('a %s give-up is a give-up too, not a false stall, when the human resumes the agent later', (_reason, words, error) => {
    const body = jsonl(
      user(0, 'go'),
      ...work(1, 2),
      assistant(20, [text(words)], { isApiErrorMessage: true, error }),
      user(7200, 'try again'),
      ...work(7201, 2),
      assistant(7220, [text('Done.')]),
      system(7221, 'turn_duration'),
    );
    const s = score(body);
    expect(s.giveUps).toMatchObject({ seen: 1, flaggedAtOnce: 1, resumed: 1, cleared: 1 });
    expect(s.falseStalls).toEqual([]);
  });
});
