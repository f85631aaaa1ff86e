// `dispatch-watchdog replay` as a user runs it: the built CLI over transcripts in a temp dir.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReplayLineSchema } from '../../src/contracts/replay.js';
import { assistant, jsonl, text, toolResult, toolUse, user } from '../helpers/claude-lines.js';
import { runMain } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const session = jsonl(
  user(0, 'go'),
  assistant(1, [toolUse('t1', 'Task', { subagent_type: 'Explore', description: 'look', prompt: 'p' })]),
  user(300, [toolResult('t1', [text('found it')])], { toolUseResult: { status: 'completed', agentId: 'a1' } }),
  assistant(301, [text('done')]),
);
// The subagent works through the parent's silence (no progress records in the parent).
const child = jsonl(
  user(2, 'p', { agentId: 'a1', isSidechain: true }),
  ...[60, 120, 180, 240, 299].map((s, i) => assistant(s, [toolUse(`c${i}`, 'Read', { file_path: `/f${i}` })], { agentId: 'a1', isSidechain: true })),
);

describe('dispatch-watchdog replay', () => {
  it('reads the subagents of a session with it, and prints one pass per --timeout and a comparison', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'sess-1.jsonl');
    writeFileSync(file, session);
    mkdirSync(path.join(dir, 'sess-1', 'subagents'), { recursive: true });
    writeFileSync(path.join(dir, 'sess-1', 'subagents', 'agent-a1.jsonl'), child);
    writeFileSync(path.join(dir, 'sess-1', 'subagents', 'agent-acompact-ff.jsonl'), 'not json\n');
    const r = await runMain(['replay', file, '--timeout', '120', '--timeout', '30', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => ReplayLineSchema.parse(JSON.parse(l)));
    const summaries = lines.filter((l) => l.type === 'summary');
    expect(summaries.map((s) => [s.timeout_seconds, s.stalls, s.false_alarms, s.children.map((c) => path.basename(c))])).toEqual([
      [120, 1, 0, ['agent-a1.jsonl']],
      [30, 6, 5, ['agent-a1.jsonl']],
    ]);
    const text = await runMain(['replay', file, '--timeout', '120', '30']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('waiting on subagent a1');
    expect(text.stdout).toMatch(/WINDOW {2}STALLS {2}FALSE ALARMS {2}HUMAN STEPPED IN {2}AT END\n120s +1 +0 +0 +1\n30s +6 +5 +0 +1\n/);
    // --score: issue 19's figures over the files, one block per window, instead of the timelines.
    const score = await runMain(['replay', file, '--score', '--stall-window', '120', '30']);
    expect(score.code).toBe(0);
    expect(score.stdout).not.toContain('TIME ');
    expect(score.stdout).toMatch(/^at 120 s: 1 transcript\(s\).*\n.*human waits excluded +0 /m);
    expect(score.stdout).toMatch(/^at 30 s: .*\n.*human waits excluded +5 /m);
    // This session ends on a final answer with no turn-end record (an interactive 2.x session writes
    // system/turn_duration): read as a pause, it stalls, and the score says so by name.
    expect(score.stdout).toContain('finished turns called stalled                                            1 of 1');
    expect(score.stdout).toContain('finished turn called stalled: sess-1.jsonl at 2026-02-12T10:07:01.001Z');
  });

  it('--score --every-record: a crash after every record of a real 2.1.197 session, each flagged within the window + 1 s (the campaign a user runs on their own transcripts)', async () => {
    const file = path.resolve('test/fixtures/real-2.1.197/give-up-resumed/fe27fd1f-8a46-4a69-bfc3-1dbe76c92ac5.jsonl');
    const seeded = await runMain(['replay', file, '--score']);
    const every = await runMain(['replay', file, '--score', '--every-record']);
    expect(every.code, every.stderr).toBe(0);
    const crashes = (out: string) => /simulated crashes flagged within window \+ 1 s +(\d+) of (\d+)/.exec(out)!.slice(1).map(Number);
    const [flagged, simulated] = crashes(every.stdout);
    // One cut per record time at work, more than the seeded moments give on this short file.
    expect(simulated).toBeGreaterThan(crashes(seeded.stdout)[1]!);
    expect(flagged).toBe(simulated);
    expect(every.stdout).toContain('turn over');
    expect(every.stdout).not.toContain('crash missed');
  });

  it('a missing transcript is an input error naming the file (exit 2)', async () => {
    const missing = path.join(tempDir(), 'nope.jsonl');
    const r = await runMain(['replay', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${missing}: transcript not found.`);
  });

  it('reads a Codex rollout with the Codex harness (by its first record, whatever the file is called), beside a Claude Code transcript', async () => {
    const dir = tempDir();
    const rec = (iso: string, type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: iso, type, payload });
    const rollout = [
      rec('2026-12-05T12:00:00.000Z', 'session_meta', { id: 'th-1', cwd: '/w' }),
      rec('2026-12-05T12:00:00.100Z', 'event_msg', { type: 'task_started', turn_id: 't' }),
      rec('2026-12-05T12:00:00.500Z', 'response_item', { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"make"}', call_id: 'c1' }),
      rec('2026-12-05T12:03:00.000Z', 'response_item', { type: 'function_call_output', call_id: 'c1', output: 'Process exited with code 0' }),
    ].join('\n');
    writeFileSync(path.join(dir, 'copied.jsonl'), rollout);
    writeFileSync(path.join(dir, 'sess-1.jsonl'), session);
    const r = await runMain(['replay', path.join(dir, 'copied.jsonl'), path.join(dir, 'sess-1.jsonl'), '--timeout', '60', '--json']);
    expect(r.stderr).toBe('');
    const summaries = r.stdout
      .trim()
      .split('\n')
      .map((l) => ReplayLineSchema.parse(JSON.parse(l)))
      .filter((l) => l.type === 'summary');
    // Read as a Claude Code transcript, the rollout would have no record at all (exit 2, "no … record").
    expect(summaries.map((s) => [path.basename(s.file), s.records])).toEqual([
      ['copied.jsonl', 4],
      ['sess-1.jsonl', 4],
    ]);
    const score = await runMain(['replay', path.join(dir, 'copied.jsonl'), path.join(dir, 'sess-1.jsonl'), '--timeout', '60', '--score']);
    expect(score.stdout).toMatch(/^Codex:$/m);
    expect(score.stdout).toMatch(/^Claude Code:$/m);
  });
});
