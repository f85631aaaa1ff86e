// replay: a recorded transcript through the same parser and assess(), time from the records.
import { describe, expect, it } from 'vitest';
import { ReplayLineSchema } from '../../src/contracts/replay.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { renderReplayComparison, renderReplayText, replayJsonLines } from '../../src/core/render-replay.js';
import { replayTranscript } from '../../src/agents/claude-code/parse/replay-transcript.js';
import { assistant, jsonl, ms, system, text, toolResult, toolUse, user } from '../helpers/claude-lines.js';

const policy = (seconds = 120) => ({ ...DEFAULT_POLICY, baseTimeoutMs: seconds * 1000 });
const replay = (body: string, seconds = 120, children: { file: string; text: string }[] = []) =>
  replayTranscript({ transcript: { file: 'sess.jsonl', text: body }, children }, policy(seconds));
const timeline = (r: ReturnType<typeof replay>) => r.changes.map((c) => `${(c.atMs - ms(0)) / 1000}s ${c.verdict.kind}${c.outcome ? ` (${c.outcome})` : ''}`);

describe('replayTranscript', () => {
  it('a crash right after a long Bash call returned is flagged at base window + 1 ms, not at the Bash timeout', () => {
    const r = replay(
      jsonl(
        user(0, 'build it'),
        assistant(1, [toolUse('b1', 'Bash', { command: 'make all', timeout: 600000 })]),
        user(300, [toolResult('b1', 'built')], { toolUseResult: { stdout: 'built', stderr: '' } }),
      ),
    );
    expect(timeline(r)).toEqual(['0s healthy', '420.001s stalled (end_of_transcript)']);
    expect(r.changes[1]!.verdict.effectiveTimeoutMs).toBe(120_000);
  });

  it('while the long Bash call is open, its own timeout holds the window', () => {
    const r = replay(
      jsonl(user(0, 'build it'), assistant(1, [toolUse('b1', 'Bash', { command: 'make all', timeout: 600000 })]), user(590, [toolResult('b1', 'built')])),
    );
    expect(timeline(r)).toEqual(['0s healthy', '710.001s stalled (end_of_transcript)']);
  });

  it('a crash right after text mentioning "retry" is flagged at base window + 1 ms: model prose is not API backoff', () => {
    const r = replay(jsonl(user(0, 'fix the test'), assistant(1, [text('The fetch failed with a rate limit; I will retry the request.')])));
    expect(timeline(r)).toEqual(['0s healthy', '121.001s stalled (end_of_transcript)']);
    expect(r.changes[1]!.verdict.exemptions).toEqual([]);
  });

  it('scores a stall the agent recovered from by itself as a false alarm; a wider window has none', () => {
    const body = jsonl(
      user(0, 'go'),
      assistant(1, [toolUse('r1', 'Read', { file_path: '/a' })]),
      user(2, [toolResult('r1', 'x')]),
      assistant(160, [toolUse('r2', 'Read', { file_path: '/b' })]),
      user(161, [toolResult('r2', 'y')]),
      assistant(162, [text('done')]),
      system(163, 'turn_duration'),
    );
    const narrow = replay(body, 120);
    expect(timeline(narrow)).toEqual(['0s healthy', '122.001s stalled (false_alarm)', '160s healthy', '163s inconsistent']);
    expect(narrow.summary).toMatchObject({ stalls: 1, falseAlarms: 1, humanResumed: 0, atEnd: 0 });
    expect(replay(body, 200).summary).toMatchObject({ stalls: 0, falseAlarms: 0 });
    expect(renderReplayComparison([narrow, replay(body, 200)])).toMatchInlineSnapshot(`
      "WINDOW  STALLS  FALSE ALARMS  HUMAN STEPPED IN  AT END
      120s    1       1             0                 0
      200s    0       0             0                 0
      "
    `);
  });

  it('a stall a human prompt ends is not a false alarm', () => {
    const r = replay(
      jsonl(
        user(0, 'go'),
        assistant(1, [toolUse('r1', 'Read', { file_path: '/a' })]),
        user(2, [toolResult('r1', 'x')]),
        user(400, 'are you there?'),
        assistant(401, [text('yes')]),
      ),
    );
    expect(r.changes.find((c) => c.verdict.kind === 'stalled')?.outcome).toBe('human_resumed');
    expect(r.summary).toMatchObject({ stalls: 2, falseAlarms: 0, humanResumed: 1, atEnd: 1 });
  });

  it('prints the timeline and summary as text', () => {
    const r = replay(
      jsonl(user(0, 'go'), assistant(1, [toolUse('r1', 'Read', { file_path: '/a' })]), user(2, [toolResult('r1', 'x')]), assistant(160, [text('ok')])),
    );
    expect(renderReplayText(r)).toMatchInlineSnapshot(`
      "sess.jsonl  (4 records, 2026-02-12T10:00:00Z .. 2026-02-12T10:02:40Z)  base window 120s
        TIME      VERDICT  WINDOW  EXEMPTIONS  AT              REASON
        10:00:00  healthy  120s    -           line 1          active 0s ago (window 120s)
        10:02:02  STALLED  120s    -           window ran out  no progress for 120.001s (window 120s)  <- FALSE ALARM: the agent went on at 10:02:40
        10:02:40  healthy  120s    -           line 4          active 0s ago (window 120s)
        10:04:40  STALLED  120s    -           window ran out  no progress for 120.001s (window 120s)  <- nothing after it in the file
          stalls flagged: 2; false alarms (the agent went on): 1; a human stepped in: 0; at the end of the file: 1
      "
    `);
  });

  it('--json: one line per verdict change, then a summary, each valid against the schema', () => {
    const r = replay(jsonl(user(0, 'go'), assistant(1, [toolUse('r1', 'Read', { file_path: '/a' })]), user(2, [toolResult('r1', 'x')])));
    const lines = replayJsonLines(r);
    for (const l of lines) expect(ReplayLineSchema.parse(JSON.parse(JSON.stringify(l)))).toEqual(l);
    expect(lines.map((l) => l.type)).toEqual(['change', 'change', 'summary']);
    expect(lines[1]).toMatchObject({
      type: 'change',
      verdict: 'stalled',
      at: '2026-02-12T10:02:02.001Z',
      window_seconds: 120,
      line: null,
      outcome: 'end_of_transcript',
    });
  });

  it('records without a timestamp take the time of the record before them; lines that are not JSON are listed', () => {
    const r = replay(jsonl(user(0, 'go'), '{"type":"assistant","message":{"content":[{"type":"text","text":"hm"}]}}', 'not json', assistant(10, [text('ok')])));
    expect(r.summary.records).toBe(3);
    expect(r.badLines).toEqual(['sess.jsonl:3']);
  });
});
