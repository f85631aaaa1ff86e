// Every cause of issue 10 pinned on transcripts: the synthetic sessions under
// test/fixtures/transcripts (README there says how each was made) and the real excerpts in
// shared/fixtures/claude-code. Each timeline is a file snapshot of `replay`; a cold start
// (a fresh observer, tail read) must judge like the loop (one observer) at every sampled moment.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findChildTranscripts } from '../../src/agents/claude-code/read/replay-files.js';
import type { Task } from '../../src/contracts/state-file.js';
import { assess } from '../../src/core/assess.js';
import { planCheck } from '../../src/core/plan.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { renderReplayText } from '../../src/core/render-replay.js';
import { replayTranscript, type ReplayInput } from '../../src/agents/claude-code/parse/replay-transcript.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { observeTranscript } from '../../src/agents/claude-code/parse/observe-transcript.js';
import { parseTranscriptText, runningTasks } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { emptyHistory } from '../../src/core/history.js';
import { CLAUDE_FIXTURES, hasClaudeFixtures } from '../helpers/shared-fixtures.js';
import { expectColdAgreesWithLoop, replayInputOf } from '../helpers/replay-agreement.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/transcripts');
// Session transcripts; `agent-*.jsonl` beside them are subagents in the old flat layout (2.0.x).
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl') && !f.startsWith('agent-'))
  .sort();
const read = (name: string) => readFileSync(path.join(DIR, name), 'utf8');

const inputOf = (name: string): Promise<ReplayInput> => replayInputOf(DIR, name);
const replayAt = async (name: string, seconds = 120) => replayTranscript(await inputOf(name), { ...DEFAULT_POLICY, baseTimeoutMs: seconds * 1000 });
const timeOf = (line: string) => Date.parse((JSON.parse(line) as { timestamp: string }).timestamp);
const lastTime = (name: string) => Math.max(...read(name).trim().split('\n').map(timeOf));

/** The verdict at `nowMs` for a parent and its children, each given as the lines read so far. */
function judgeAt(parent: readonly string[], children: readonly { agentId: string; lines: readonly string[] }[], nowMs: number) {
  const task: Task = { taskId: 't', ticketId: 'T-1', status: 'in_progress', statusClass: 'in_flight', dispatchedAtMs: timeOf(parent[0]!) };
  const kids = children.map((c) => ({ agentId: c.agentId, state: parseTranscriptText(c.lines.join('\n') + '\n').state }));
  const obs = mergeObservations([observeRow(task), observeTranscript(parseTranscriptText(parent.join('\n') + '\n').state, { nowMs }, kids)]);
  return assess(task, obs, DEFAULT_POLICY, nowMs);
}

describe('replay over test/fixtures/transcripts at the default window', () => {
  it.each(FILES)('%s: no false alarm; the timeline is its snapshot', async (name) => {
    const r = await replayAt(name);
    expect(r.summary.falseAlarms, renderReplayText(r)).toBe(0);
    await expect(renderReplayText(r)).toMatchFileSnapshot(path.join(DIR, '__snapshots__', name.replace(/\.jsonl$/, '.txt')));
  });
});

describe('each cause, on its transcript', () => {
  it('1a. a crash right after a long Bash call returned is flagged at base window + 1 ms (the exemption ended with the call)', async () => {
    const r = await replayAt('long-bash-then-crash.jsonl');
    const stall = r.changes.find((c) => c.verdict.kind === 'stalled')!;
    expect(stall.atMs).toBe(lastTime('long-bash-then-crash.jsonl') + 120_001);
    expect(stall.verdict.exemptions).toEqual([]);
    // ... while the call ran silently for 390 s it held its own window.
    const during = r.changes.filter((c) => c.atMs < stall.atMs).map((c) => c.verdict.kind);
    expect(during).toEqual(['healthy']);
  });

  it('1b. "retry" in an earlier turn\'s text does not double the window: the crash is flagged at base + 1 ms', async () => {
    const r = await replayAt('retry-text-earlier-turn.jsonl');
    const stall = r.changes.find((c) => c.verdict.kind === 'stalled')!;
    expect(stall.atMs).toBe(lastTime('retry-text-earlier-turn.jsonl') + 120_001);
    expect(stall.verdict.exemptions).not.toContain('rate_limit');
  });

  it('2. a parent waiting on a synchronous subagent takes its progress (child transcript, no progress records)', async () => {
    const name = '11111111-0000-4000-8000-000000000003.jsonl';
    const r = await replayAt(name);
    expect(r.children).toEqual(['11111111-0000-4000-8000-000000000003/subagents/agent-a7f3e2c1b0d9e8f70.jsonl']);
    expect(r.summary.stalls).toBe(0);
    // Without the child the same parent waits on a child nothing can be seen of: past its window
    // it is unknown, naming the call (issue 19 item 3), never a stall to act on.
    const alone = replayTranscript({ transcript: { file: name, text: read(name) } }, DEFAULT_POLICY);
    expect(alone.summary.stalls).toBe(0);
    const unknown = alone.changes.find((c) => c.verdict.kind === 'unknown')!;
    expect(unknown.verdict.reason).toMatch(
      /no transcript found for \(the subagent of (Task|Agent) call toolu_\w+\), so its silence cannot be judged; not acted on/,
    );
    expect(unknown.verdict.unobservedChildren).toHaveLength(1);
  });

  it("2. ...and stalls when its child stalls, naming the child; the child's open Bash holds the window meanwhile", async () => {
    const r = await replayAt('11111111-0000-4000-8000-000000000004.jsonl');
    const stalls = r.changes.filter((c) => c.verdict.kind === 'stalled');
    expect(stalls).toHaveLength(1);
    expect(stalls[0]!.verdict.reason).toContain('waiting on subagent ab12cd34ef56ab78c');
    expect(stalls[0]!.outcome).toBe('end_of_transcript');
  });

  it('2b. a turn that ended while a background subagent runs is not finished: the parent waits on it, named, and takes its progress', async () => {
    const name = '11111111-0000-4000-8000-000000000005.jsonl';
    const child = '11111111-0000-4000-8000-000000000005/subagents/agent-ac0ffee12d34e5f67.jsonl';
    const r = await replayAt(name);
    expect(r.children).toEqual([child]);
    // Finished only once the notification woke the parent and it answered (the last record), not at its first turn end.
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'inconsistent']);
    expect(r.changes[1]!.atMs).toBe(lastTime(name));
    // Mid-way (turn ended at 09:00:18, the child at work for 6 minutes), the reason names the child.
    const parent = read(name).trim().split('\n');
    const turnEnd = parent.findIndex((l) => l.includes('"turn_duration"'));
    const kid = read(child).trim().split('\n');
    const nowMs = timeOf(kid[8]!) + 100_000;
    const judged = judgeAt(parent.slice(0, turnEnd + 1), [{ agentId: 'ac0ffee12d34e5f67', lines: kid.slice(0, 9) }], nowMs);
    expect(judged).toMatchObject({ kind: 'healthy', reason: expect.stringContaining('waiting on background subagent ac0ffee12d34e5f67') });
    // The notification wakes the parent: it must answer within its window, or it stalled.
    const notified = parent.findIndex((l) => l.includes('"type":"user"') && l.includes('<task-notification>'));
    const woken = judgeAt(parent.slice(0, notified + 1), [{ agentId: 'ac0ffee12d34e5f67', lines: kid }], timeOf(parent[notified]!) + 120_001);
    expect(woken).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
    expect(woken.reason).not.toContain('subagent');
  });

  it('2b. ...and stalls when its background subagent stalls, naming it', async () => {
    const name = '11111111-0000-4000-8000-000000000006.jsonl';
    const r = await replayAt(name);
    const stall = r.changes.find((c) => c.verdict.kind === 'stalled')!;
    expect(stall.verdict.reason).toContain('waiting on background subagent ad15ea5e0b0e4c1a2, which stalled');
    const kid = read('11111111-0000-4000-8000-000000000006/subagents/agent-ad15ea5e0b0e4c1a2.jsonl').trim().split('\n');
    expect(stall.atMs).toBe(timeOf(kid.at(-1)!) + 120_001);
    // Without its transcript the parent still waits on it (not finished), says it could not see
    // it, and is never acted on: unknown, not stalled (missing evidence never kills).
    const alone = replayTranscript({ transcript: { file: name, text: read(name) } }, DEFAULT_POLICY);
    expect(alone.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'unknown']);
    expect(alone.changes[1]!.verdict.reason).toContain(
      'waiting on background subagent ad15ea5e0b0e4c1a2, idle 120s: no transcript found for ad15ea5e0b0e4c1a2',
    );
    expect(alone.changes[1]!.verdict.unobservedChildren).toEqual(['ad15ea5e0b0e4c1a2']);
  });

  it('2d. progress lines of a background subagent after more than 20 calls since its launch do not reopen the launch as a foreground call', async () => {
    const name = '11111111-0000-4000-8000-000000000008.jsonl';
    const r = await replayAt(name);
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'inconsistent']);
    const parent = read(name).trim().split('\n');
    const kid = read('11111111-0000-4000-8000-000000000008/subagents/agent-ab0a7d5e1f2c3d4e5.jsonl').trim().split('\n');
    // Its turn ended after 21 edits; the subagent's progress lines go on (the last five after the launch left the 20 recent calls, the first of them before the turn end).
    const turnEnd = parent.findIndex((l) => l.includes('"turn_duration"'));
    const progress = parent.findLastIndex((l) => l.includes('"agent_progress"'));
    expect(turnEnd).toBeLessThan(progress);
    const state = parseTranscriptText(parent.slice(0, progress + 1).join('\n') + '\n').state;
    expect(state.open).toEqual([]);
    expect(state.recent.some((c) => c.toolUseId === 'toolu_b1')).toBe(false);
    const nowMs = timeOf(parent[progress]!) + 100_000;
    const judged = judgeAt(parent.slice(0, progress + 1), [{ agentId: 'ab0a7d5e1f2c3d4e5', lines: kid.slice(0, -1) }], nowMs);
    // Not a foreground wait (which never ends: no result will close a call rebuilt this way).
    expect(judged.kind).toBe('healthy');
    expect(judged.reason).not.toContain('waiting on subagent');
  });

  it('2c. the old flat layout (2.0.x): the child agent-<id>.jsonl beside the session file is its subagent', async () => {
    const name = '11111111-0000-4000-8000-000000000007.jsonl';
    const r = await replayAt(name);
    expect(r.children).toEqual(['agent-a4c1e9f.jsonl']);
    expect(r.summary.stalls).toBe(0);
    // Without it: a child nothing can be seen of, never a false alarm.
    const alone = replayTranscript({ transcript: { file: name, text: read(name) } }, DEFAULT_POLICY);
    expect(alone.summary.falseAlarms).toBe(0);
    expect(alone.changes.map((c) => c.verdict.kind)).toContain('unknown');
    // Another session's flat child is not taken for this one's.
    expect(await findChildTranscripts(path.join(DIR, '11111111-0000-4000-8000-000000000005.jsonl'))).toEqual([
      path.join(DIR, '11111111-0000-4000-8000-000000000005/subagents/agent-ac0ffee12d34e5f67.jsonl'),
    ]);
  });

  it('3. a turn that ended while background shells run is finished; <bash-notification> and KillShell end them', async () => {
    const name = 'background-shells-2.0.jsonl';
    const lines = read(name).trim().split('\n');
    const after = (n: number) => parseTranscriptText(lines.slice(0, n).join('\n') + '\n').state;
    expect(runningTasks(after(9))).toEqual(['bash_1']);
    expect(runningTasks(after(14))).toEqual(['bash_1', 'bash_2']);
    expect(runningTasks(after(15))).toEqual(['bash_1']); // the bash-notification
    expect(runningTasks(after(17))).toEqual([]); // the KillShell result
    const r = await replayAt(name);
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'inconsistent', 'healthy', 'inconsistent', 'healthy', 'inconsistent']);
    expect(r.changes[1]!.verdict.reason).toContain('turn ended, 1 background task still running');
  });

  it('4. 1.0.x writes no turn-end record: its final answer ends the turn', async () => {
    const r = await replayAt('final-answer-1.0.jsonl');
    expect(r.summary.stalls).toBe(0);
    expect(r.changes.at(-1)!.verdict.reason).toContain('final answer (this Claude Code writes no turn-end record)');
  });

  it('5. an open ExitPlanMode waits on a human (plan approval)', async () => {
    const r = await replayAt('plan-approval.jsonl');
    expect(r.changes[1]!.verdict).toMatchObject({ kind: 'waiting_human', reason: 'waiting for a human: plan approval (ExitPlanMode open)' });
  });

  it('5. an open call far past its own timeout: a live pid is a prompt (waiting_human), a dead one a stall', () => {
    const text = read('long-bash-then-crash.jsonl').split('\n').slice(0, 3).join('\n') + '\n';
    const task: Task = {
      taskId: 't',
      ticketId: 'T-1',
      status: 'in_progress',
      statusClass: 'in_flight',
      dispatchedAtMs: lastTime('long-bash-then-crash.jsonl') - 400_000,
    };
    const nowMs = timeOf(text.split('\n')[2]!) + 600_000 + 60_001 + 1;
    const judge = (isProcessAlive?: boolean) =>
      assess(
        task,
        mergeObservations([
          observeRow(task),
          observeTranscript(parseTranscriptText(text).state, { nowMs }),
          ...(isProcessAlive === undefined ? [] : [{ source: 'row' as const, isProcessAlive }]),
        ]),
        DEFAULT_POLICY,
        nowMs,
      );
    expect(judge(true)).toMatchObject({ kind: 'waiting_human' });
    expect(judge(true).reason).toContain('most likely a permission prompt');
    expect(judge(false)).toMatchObject({ kind: 'stalled', stallReason: 'open_tool_overrun' });
    expect(judge(false).reason).toContain('the agent process is gone');
    expect(judge()).toMatchObject({ kind: 'stalled', stallReason: 'open_tool_overrun' });
  });

  it('6. an API give-up (529) is a stall at once, acted on like one; "Prompt is too long" is named context exhaustion', async () => {
    const overloaded = await replayAt('api-error-overloaded.jsonl');
    const failed = overloaded.changes.find((c) => c.verdict.kind === 'stalled')!;
    expect(failed.verdict).toMatchObject({ stallReason: 'api_gave_up' });
    expect(failed.atMs).toBe(timeOf(read('api-error-overloaded.jsonl').split('\n')[13]!));
    // The API retry records before it kept it alive with the rate-limit window.
    expect(overloaded.changes.filter((c) => c.atMs < failed.atMs).map((c) => c.verdict.kind)).toEqual(['healthy']);
    const ctx = (await replayAt('prompt-too-long.jsonl')).changes.find((c) => c.verdict.kind === 'stalled')!;
    expect(ctx.verdict).toMatchObject({ stallReason: 'context_exhausted' });
    const task: Task = { taskId: 't', ticketId: 'T-1', status: 'in_progress', statusClass: 'in_flight' };
    const plan = planCheck([{ ...ctx.verdict, taskId: 't', ticketId: 'T-1' }], new Map([['t', task]]), emptyHistory(), {
      epicId: 'E',
      strategy: 'redispatch',
      maxRedispatches: 2,
      shouldActOnLooping: false,
      circuitBreaker: { minStalled: 3, fraction: 0.5 },
      isLagged: false,
    });
    expect(plan.actions.map((a) => a.kind)).toEqual(['redispatch']);
    expect(plan.events[0]).toMatchObject({ event: 'stall_detected', stall_reason: 'context_exhausted' });
  });

  it('7. only consecutive errors are a loop; the agent moving on ends it', async () => {
    const r = await replayAt('error-loop-then-fixed.jsonl');
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'looping', 'healthy', 'inconsistent']);
  });

  it('9. /model and /login after a turn ended do not resume it', async () => {
    const r = await replayAt('local-commands-after-turn.jsonl');
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'inconsistent']);
  });

  it('8. records without timestamps and --now in the past: the file mtime is not "N s in the future"', () => {
    const state = parseTranscriptText('{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}\n').state;
    const nowMs = Date.parse('2026-03-02T09:00:00Z');
    const task: Task = { taskId: 't', ticketId: 'T-1', status: 'in_progress', statusClass: 'in_flight', dispatchedAtMs: nowMs - 60_000 };
    const obs = mergeObservations([observeRow(task), observeTranscript(state, { mtimeMs: nowMs + 27_138_011_000, nowMs })]);
    expect(assess(task, obs, DEFAULT_POLICY, nowMs)).toMatchObject({ kind: 'healthy' });
  });
});

describe('8. a cold --once (fresh observer, 1 KB tail) judges like the loop (one observer reading as the files grow), at every sampled moment', () => {
  it.each(FILES)('%s', async (name) => {
    await expectColdAgreesWithLoop(DIR, name);
  });
});

describe.skipIf(!hasClaudeFixtures)(`the real excerpts in ${CLAUDE_FIXTURES} (skipped when shared/ is absent)`, () => {
  it('2.1.39 parent + its subagent: healthy from the Task call to its result (agent_progress and the child file)', () => {
    const parent = readFileSync(path.join(CLAUDE_FIXTURES, 'transcript-v2.1.39-parent-task-subagent.jsonl'), 'utf8');
    const child = readFileSync(path.join(CLAUDE_FIXTURES, 'transcript-v2.1.39-subagent-agent-a93ccab.jsonl'), 'utf8');
    const r = replayTranscript(
      { transcript: { file: 'parent.jsonl', text: parent }, children: [{ file: 'x/agent-a93ccab.jsonl', text: child }] },
      DEFAULT_POLICY,
    );
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'stalled']);
    expect(r.changes[1]!.outcome).toBe('end_of_transcript'); // the excerpt ends there: nothing after the Task result
    expect(parseTranscriptText(parent).state.recent.find((c) => c.name === 'Task')).toMatchObject({ childAgentId: 'a93ccab', isOpen: false });
  });

  it('2.1.101: a turn that ended with a Stop hook summary is finished', () => {
    const text = readFileSync(path.join(CLAUDE_FIXTURES, 'transcript-v2.1.101-excerpt.jsonl'), 'utf8');
    const r = replayTranscript({ transcript: { file: 'x.jsonl', text } }, DEFAULT_POLICY);
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'inconsistent']);
  });
});
