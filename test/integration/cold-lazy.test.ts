// A lazy cold start (a short tail, read back only when the tail cannot vouch for the verdict)
// judges exactly as the loop (every byte read) at every cut and every sampled moment, on
// transcripts built so that the tail alone would judge wrongly: a long Bash, a Task call, an
// AskUserQuestion and an API give-up opened before the tail, an error loop straddling its start,
// a parent that reported the agent finished before its tail. Each case also shows that the tail
// alone gives another verdict (so the case has teeth), and the active case that the lazy read
// reads less than the file.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/contracts/state-file.js';
import { assess, type Verdict } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { StatePaths } from '../../src/files/paths.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { observeTranscript } from '../../src/agents/claude-code/parse/observe-transcript.js';
import { parseTranscriptText } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { taskIdsMentioned } from '../../src/agents/claude-code/parse/records/tasks.js';
import { createClaudeObserver } from '../../src/agents/claude-code/read/claude-observer.js';
import { PrefixIds } from '../../src/agents/claude-code/read/prefix-ids.js';
import { TailReader, type TailOptions } from '../../src/observe/read/tail-file.js';
import { createTranscriptTail } from '../../src/agents/claude-code/read/transcript-tail.js';
import { expectColdAgreesWithLoop } from '../helpers/replay-agreement.js';
import { tempDir } from '../helpers/temp-dir.js';
import { turn2332Lines } from '../../bench/turn-2332.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const T0 = Date.parse('2026-03-02T10:00:00.000Z');
const iso = (s: number) => new Date(T0 + s * 1000).toISOString();
type Obj = Record<string, unknown>;
const rec = (s: number, o: Obj, who: Obj = {}) => JSON.stringify({ isSidechain: false, sessionId: 's1', version: '2.1.39', ...who, timestamp: iso(s), ...o });
const PAD = 'x'.repeat(160);

/** Records of one transcript; `who` adds agentId/isSidechain for a subagent's. */
function writer(who: Obj = {}) {
  const lines: string[] = [];
  let n = 0;
  const w = {
    lines,
    prompt: (s: number, text: string) => lines.push(rec(s, { type: 'user', message: { role: 'user', content: text } }, who)),
    call: (s: number, name: string, input: Obj, id = `tu${++n}`) => {
      lines.push(
        rec(s, { type: 'assistant', message: { id: `msg_${id}`, role: 'assistant', type: 'message', content: [{ type: 'tool_use', id, name, input }] } }, who),
      );
      return id;
    },
    result: (s: number, id: string, content: string, isError = false, toolUseResult?: Obj) =>
      lines.push(
        rec(
          s,
          {
            type: 'user',
            message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, is_error: isError }] },
            ...(toolUseResult ? { toolUseResult } : {}),
          },
          who,
        ),
      ),
    /** `k` finished Read calls, one message each, from second `s`, every `every` seconds. */
    work: (s: number, k: number, every = 2) => {
      for (let i = 0; i < k; i++) {
        const id = w.call(s + i * every, 'Read', { file_path: `/src/f${n}.ts` });
        w.result(s + i * every + 1, id, `contents ${PAD}`);
      }
      return s + k * every;
    },
    /** Records that are not the agent's messages (hook progress), from `s`, one a second. */
    hooks: (s: number, k: number, every = 1) => {
      for (let i = 0; i < k; i++)
        lines.push(
          rec(
            s + i * every,
            { type: 'progress', data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: 'PostToolUse:Read', command: `echo ${PAD}` } },
            who,
          ),
        );
    },
    text: () => lines.join('\n') + '\n',
  };
  return w;
}

interface Case {
  files: Record<string, string>;
  task: Task;
  /** The file the task is judged by. */
  own: string;
}

const row = (extra: Partial<Task>): Task => ({ taskId: 't', ticketId: 'T-1', status: 'in_progress', statusClass: 'in_flight', dispatchedAtMs: T0, ...extra });

const CASES: Record<string, (dir: string) => Case> = {
  'an agent at work (the tail is enough)': (dir) => {
    const w = writer();
    w.prompt(0, 'Refactor the parser.');
    w.work(1, 40);
    return { files: { 's1.jsonl': w.text() }, task: row({ sessionId: 's1', transcriptPath: path.join(dir, 's1.jsonl') }), own: 's1.jsonl' };
  },
  'a 10-minute Bash opened before the tail, its progress lines since': (dir) => {
    const w = writer();
    w.prompt(0, 'Build it.');
    const s = w.work(1, 8);
    const id = w.call(s, 'Bash', { command: 'make release', timeout: 600_000 });
    for (let i = 1; i <= 40; i++)
      w.lines.push(rec(s + i, { type: 'progress', parentToolUseID: id, data: { type: 'bash_progress', output: `step ${i} ${PAD}`, elapsedTimeSeconds: i } }));
    return { files: { 's1.jsonl': w.text() }, task: row({ sessionId: 's1', transcriptPath: path.join(dir, 's1.jsonl') }), own: 's1.jsonl' };
  },
  'a Task call opened before the tail, its subagent still working': (dir) => {
    const w = writer();
    w.prompt(0, 'Explore the code.');
    const s = w.work(1, 6);
    w.call(s, 'Task', { description: 'explore', prompt: 'Explore the code base', subagent_type: 'Explore' });
    w.hooks(s + 1, 30);
    const child = writer({ agentId: 'c1', isSidechain: true });
    child.prompt(s + 1, 'Explore the code base');
    child.work(s + 2, 60, 5);
    return {
      files: { 's1.jsonl': w.text(), 's1/subagents/agent-c1.jsonl': child.text() },
      task: row({ sessionId: 's1', transcriptPath: path.join(dir, 's1.jsonl') }),
      own: 's1.jsonl',
    };
  },
  'an AskUserQuestion opened before the tail': (dir) => {
    const w = writer();
    w.prompt(0, 'Pick a name.');
    const s = w.work(1, 6);
    w.call(s, 'AskUserQuestion', { questions: [{ question: 'Which name?', options: [{ label: 'a' }, { label: 'b' }] }] });
    w.hooks(s + 1, 30);
    return { files: { 's1.jsonl': w.text() }, task: row({ sessionId: 's1', transcriptPath: path.join(dir, 's1.jsonl') }), own: 's1.jsonl' };
  },
  'an API give-up before the tail': (dir) => {
    const w = writer();
    w.prompt(0, 'Fix the bug.');
    const s = w.work(1, 6);
    w.lines.push(
      rec(s, {
        type: 'assistant',
        isApiErrorMessage: true,
        message: { id: 'msg_err', model: '<synthetic>', role: 'assistant', content: [{ type: 'text', text: 'API Error: 529 Overloaded' }] },
      }),
    );
    w.hooks(s + 1, 30);
    return { files: { 's1.jsonl': w.text() }, task: row({ sessionId: 's1', transcriptPath: path.join(dir, 's1.jsonl') }), own: 's1.jsonl' };
  },
  'two Task calls in one message, the first one before the tail': (dir) => {
    const w = writer();
    w.prompt(0, 'Explore both.');
    const s = w.work(1, 6);
    const block = (id: string, name: string, input: Obj) =>
      rec(s, { type: 'assistant', message: { id: 'msg_par', role: 'assistant', type: 'message', content: [{ type: 'tool_use', id, name, input }] } });
    const task = (d: string) => ({ description: d, prompt: d, subagent_type: 'Explore' });
    // Parallel calls: one message, one record per block, the same message id.
    w.lines.push(
      block('tA', 'Task', task('explore a')),
      block('tB', 'Task', task('explore b')),
      block('r1', 'Read', { file_path: '/a.ts' }),
      block('r2', 'Grep', { pattern: 'x' }),
    );
    w.result(s + 1, 'r1', `a ${PAD}`);
    w.result(s + 1, 'r2', `x ${PAD}`);
    w.hooks(s + 1, 12);
    w.result(s + 20, 'tB', 'B done', false, { status: 'completed', agentId: 'cB' });
    w.hooks(s + 21, 15, 20);
    const a = writer({ agentId: 'cA', isSidechain: true });
    a.prompt(s + 1, 'explore a');
    a.work(s + 2, 60, 5);
    const b = writer({ agentId: 'cB', isSidechain: true });
    b.prompt(s + 1, 'explore b');
    b.work(s + 2, 8, 2);
    return {
      files: { 's1.jsonl': w.text(), 's1/subagents/agent-cA.jsonl': a.text(), 's1/subagents/agent-cB.jsonl': b.text() },
      task: row({ sessionId: 's1', transcriptPath: path.join(dir, 's1.jsonl') }),
      own: 's1.jsonl',
    };
  },
  'a background agent whose progress lines follow messages begun in the tail': (dir) => {
    const w = writer();
    w.prompt(0, 'Run the audit in the background and go on.');
    const id = w.call(1, 'Task', { description: 'audit', prompt: 'Audit', subagent_type: 'general-purpose', run_in_background: true });
    w.result(2, id, 'Launched.', false, { status: 'async_launched', agentId: 'cbg' });
    // Fewer than 20 calls after it: the launch stays among the recent calls the loop remembers.
    for (let i = 0; i < 15; i++) {
      w.work(3 + i * 3, 1);
      if (i % 2 === 1)
        w.lines.push(
          rec(4 + i * 3, {
            type: 'progress',
            parentToolUseID: id,
            data: { type: 'agent_progress', agentId: 'cbg', prompt: 'Audit', message: { type: 'assistant', text: PAD } },
          }),
        );
    }
    const bg = writer({ agentId: 'cbg', isSidechain: true });
    bg.prompt(2, 'Audit');
    bg.work(3, 10, 4);
    return {
      files: { 's1.jsonl': w.text(), 's1/subagents/agent-cbg.jsonl': bg.text() },
      task: row({ sessionId: 's1', transcriptPath: path.join(dir, 's1.jsonl') }),
      own: 's1.jsonl',
    };
  },
  'a background agent whose progress lines come more than 20 calls after its launch': (dir) => {
    const w = writer();
    w.prompt(0, 'Run the audit in the background and go on.');
    const id = w.call(1, 'Task', { description: 'audit', prompt: 'Audit', subagent_type: 'general-purpose', run_in_background: true });
    w.result(2, id, 'Launched.', false, { status: 'async_launched', agentId: 'cbg' });
    // The launch leaves the 20 recent calls the loop remembers; its progress lines go on.
    for (let i = 0; i < 30; i++) {
      w.work(3 + i * 3, 1);
      if (i % 3 === 2)
        w.lines.push(
          rec(4 + i * 3, {
            type: 'progress',
            parentToolUseID: id,
            data: { type: 'agent_progress', agentId: 'cbg', prompt: 'Audit', message: { type: 'assistant', text: PAD } },
          }),
        );
    }
    const bg = writer({ agentId: 'cbg', isSidechain: true });
    bg.prompt(2, 'Audit');
    bg.work(3, 20, 4);
    return {
      files: { 's1.jsonl': w.text(), 's1/subagents/agent-cbg.jsonl': bg.text() },
      task: row({ sessionId: 's1', transcriptPath: path.join(dir, 's1.jsonl') }),
      own: 's1.jsonl',
    };
  },
  'a 1.0 session that names its version on its first record only, ending in a final answer': (dir) => {
    const w = writer({ version: undefined });
    w.lines.push(rec(0, { type: 'user', version: '1.0.77', message: { role: 'user', content: 'Explain the module.' } }, { version: undefined }));
    const s = w.work(1, 20);
    w.lines.push(
      rec(
        s,
        {
          type: 'assistant',
          message: { id: 'msg_final', role: 'assistant', type: 'message', content: [{ type: 'text', text: `The module parses input. ${PAD}` }] },
        },
        { version: undefined },
      ),
    );
    return { files: { 's1.jsonl': w.text() }, task: row({ sessionId: 's1', transcriptPath: path.join(dir, 's1.jsonl') }), own: 's1.jsonl' };
  },
  'the same error four times in a row, straddling the tail start': (dir) => {
    const w = writer();
    w.prompt(0, 'Make the tests pass.');
    let s = w.work(1, 10);
    for (let i = 0; i < 4; i++, s += 3)
      w.result(s + 1, w.call(s, 'Bash', { command: `npm test -- --shard=${i} ${PAD}` }), "Error: Cannot find module 'zod'", true);
    return { files: { 's1.jsonl': w.text() }, task: row({ sessionId: 's1', transcriptPath: path.join(dir, 's1.jsonl') }), own: 's1.jsonl' };
  },
  'a parent that reported the subagent finished before its tail': (dir) => {
    const parent = writer();
    parent.prompt(0, 'Delegate.');
    const tk = parent.call(1, 'Task', { description: 'fix', prompt: 'Fix it', subagent_type: 'general-purpose' });
    const child = writer({ agentId: 'c2', isSidechain: true });
    child.prompt(2, 'Fix it');
    const end = child.work(3, 10);
    parent.result(end + 1, tk, 'Done.', false, { status: 'completed', agentId: 'c2', totalDurationMs: 1000 });
    parent.work(end + 2, 30, 1);
    const file = path.join(dir, 's1/subagents/agent-c2.jsonl');
    return {
      files: { 's1.jsonl': parent.text(), 's1/subagents/agent-c2.jsonl': child.text() },
      task: row({ agentId: 'c2', sessionId: 's1', transcriptPath: file }),
      own: 's1/subagents/agent-c2.jsonl',
    };
  },
};

const show = (v: Verdict) => `${v.kind}/${v.stallReason ?? '-'}/${v.effectiveTimeoutMs}/${v.deadlineMs ?? '-'}/${v.lastTool ?? '-'}: ${v.reason}`;
const lastMs = (files: Record<string, string>) =>
  Math.max(
    ...Object.values(files).flatMap((t) =>
      t
        .trim()
        .split('\n')
        .map((l) => Date.parse((JSON.parse(l) as { timestamp: string }).timestamp)),
    ),
  );
const MOMENTS_S = [60, 121, 200, 700];

describe('a lazy cold start judges like the loop at every cut and moment', () => {
  it.each(Object.keys(CASES))('%s', async (name) => {
    const dir = tempDir();
    const c = CASES[name]!(dir);
    for (const [f, text] of Object.entries(c.files)) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      writeFileSync(path.join(dir, f), text);
    }
    const paths = new StatePaths(path.join(dir, 'state'));
    const observer = (tail: Partial<TailOptions>) =>
      createClaudeObserver({ paths, claudeConfigDir: path.join(dir, 'claude'), env: {}, isPersistent: false, tail });
    const judge = async (tail: Partial<TailOptions>, nowMs: number) => {
      const o = observer(tail);
      const v = assess(c.task, mergeObservations([observeRow(c.task), ...(await o.observe(c.task, nowMs))]), DEFAULT_POLICY, nowMs);
      return { v: show(v), bytes: o.stats().bytesRead };
    };
    const own = c.files[c.own]!;
    const size = Buffer.byteLength(own);
    const end = lastMs(c.files);
    let teeth = 0;
    let lazy = 0;
    for (const after of MOMENTS_S) {
      const nowMs = end + after * 1000;
      const loop = (await judge({ tailBytes: 1 << 30, lazyTailBytes: 1 << 30 }, nowMs)).v;
      // A tail starting at each of the last 45 lines (cut a few bytes into the line before it).
      const starts = [...own.matchAll(/\n/g)]
        .map((m) => m.index! + 1)
        .filter((at) => at < size)
        .slice(-45);
      for (const [i, cut] of starts.map((at) => size - at + 5).entries()) {
        // Every other cut reads back in two steps: `tailBytes` (4 × the lazy tail) first, then the bound.
        const cold = await judge({ tailBytes: i % 2 ? cut * 4 : cut, lazyTailBytes: cut }, nowMs);
        expect(cold.v, `${name}: tail of ${cut} bytes at +${after} s`).toBe(loop);
        if (cold.bytes < size) lazy++;
        // The tail alone: the records after the cut, nothing read back, no parent or subagent.
        const tail = own.slice(own.length - cut);
        const alone = parseTranscriptText(tail.slice(tail.indexOf('\n') + 1)).state;
        const v = assess(c.task, mergeObservations([observeRow(c.task), observeTranscript(alone, { nowMs })]), DEFAULT_POLICY, nowMs);
        if (show(v).split(':')[0] !== loop.split(':')[0]) teeth++;
      }
    }
    if (name.startsWith('an agent at work')) expect(lazy, 'the lazy tail was enough at some cuts').toBeGreaterThan(0);
    else expect(teeth, 'the tail alone judges otherwise at some cut and moment').toBeGreaterThan(0);
  });
});

describe('a stream-json run (claude -p) resumed into the file its finished run wrote', () => {
  it('is judged again from the resumed run (a hang stalls), by a cold start as by the loop', async () => {
    const dir = tempDir();
    const sj = (s: number, o: Obj) => JSON.stringify({ session_id: 'run-1', timestamp: iso(s), ...o });
    const init = (s: number) => sj(s, { type: 'system', subtype: 'init', cwd: '/w', tools: ['Read', 'Bash'], model: 'm' });
    const lines: string[] = [];
    let n = 0;
    const work = (s: number, k: number) => {
      for (let i = 0; i < k; i++, n++) {
        lines.push(
          sj(s + i * 4, {
            type: 'assistant',
            message: { id: `msg_${n}`, role: 'assistant', content: [{ type: 'tool_use', id: `tu${n}`, name: 'Read', input: { file_path: `/src/f${n}.ts` } }] },
          }),
        );
        lines.push(
          sj(s + i * 4 + 1, { type: 'user', message: { role: 'user', content: [{ tool_use_id: `tu${n}`, type: 'tool_result', content: `contents ${PAD}` }] } }),
        );
      }
      return s + k * 4;
    };
    lines.push(init(0));
    let s = work(1, 6);
    lines.push(sj(s, { type: 'assistant', message: { id: 'msg_done', role: 'assistant', content: [{ type: 'text', text: 'All done.' }] } }));
    lines.push(sj(s + 1, { type: 'result', subtype: 'success', is_error: false, result: `All done. ${PAD}` }));
    // Resumed an hour later (`claude -p --resume`, output appended): it works, then hangs.
    lines.push(init(s + 3600));
    s = work(s + 3601, 6);
    writeFileSync(path.join(dir, 'run.jsonl'), lines.join('\n') + '\n');
    const compared = await expectColdAgreesWithLoop(dir, 'run.jsonl');
    expect(compared).toBe(lines.length * 4);
    // The loop (one observer, the whole file) stalls on the hang instead of calling the run finished.
    const task = row({ transcriptPath: path.join(dir, 'run.jsonl') });
    const observer = createClaudeObserver({
      paths: new StatePaths(path.join(dir, 'state')),
      claudeConfigDir: path.join(dir, 'claude'),
      env: {},
      isPersistent: false,
    });
    const nowMs = T0 + (s - 3) * 1000 + 121_000;
    expect(assess(task, mergeObservations([observeRow(task), ...(await observer.observe(task, nowMs))]), DEFAULT_POLICY, nowMs)).toMatchObject({
      kind: 'stalled',
      stallReason: 'inactivity',
    });
  });
});

describe('a lazy tail sized in records (issue 37): a Claude Code 2.1.332 transcript', () => {
  // 2.1.332 writes an `api-request` and its blob per model request, a 20–40 KB request shape now
  // and then, and attachments: a 16 KB tail holds two or three messages (an older transcript's
  // holds a dozen), too few to vouch. The tail is read again sized to hold the messages it lacked,
  // not widened to 256 KB at once.
  const turns = (n: number, fromS: number) => Array.from({ length: n }, (_, i) => turn2332Lines('a1', 's1', i, T0 + (fromS + i * 5) * 1000)).join('');
  it.each([
    ['ends in the middle of ordinary turns', 100],
    ['ends a turn after a 36 KB request shape', 97],
    ['ends on a turn with a request shape', 97 + 8],
  ])('%s: judged as the loop judges it, from far fewer bytes than a wide tail', async (_name, n) => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-a1.jsonl');
    const text = turns(n, 0);
    writeFileSync(file, text);
    const task = row({ transcriptPath: file });
    const judge = async (tail: Partial<TailOptions>, nowMs: number) => {
      const o = createClaudeObserver({
        paths: new StatePaths(path.join(dir, 'state')),
        claudeConfigDir: path.join(dir, 'claude'),
        env: {},
        isPersistent: false,
        tail,
      });
      const v = assess(task, mergeObservations([observeRow(task), ...(await o.observe(task, nowMs))]), DEFAULT_POLICY, nowMs);
      return { v: show(v), bytes: o.stats().bytesRead };
    };
    const endMs = T0 + (n - 1) * 5000 + 1_100;
    for (const after of [30, 200]) {
      const nowMs = endMs + after * 1000;
      const loop = await judge({ tailBytes: 1 << 30, lazyTailBytes: 1 << 30 }, nowMs);
      const cold = await judge({}, nowMs);
      expect(cold.v, `+${after} s`).toBe(loop.v);
      // Within the window: the short tail and one sized in records (16 KB and ~40 KB), never the
      // wide 256 KB tail after them (272 KB before this rung).
      if (after === 30) {
        expect(loop.v).toMatch(/^healthy/);
        expect(cold.bytes, 'read more than the short tail').toBeGreaterThan(16 * 1024);
        expect(cold.bytes, 'read less than the short tail and the wide one').toBeLessThan(16 * 1024 + 128 * 1024);
      }
    }
    expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024);
  });

  it('a cold check of many: once most short tails needed a size in records, the next reads start there (one read each, not two), judged as each alone', async () => {
    const dir = tempDir();
    const agents = 24;
    const tasks = Array.from({ length: agents }, (_, k) => {
      const file = path.join(dir, `agent-a${k}.jsonl`);
      // 40 to 47 turns: some end on a turn with a request shape, some on ordinary ones.
      const n = 40 + (k % 8);
      writeFileSync(file, Array.from({ length: n }, (_, i) => turn2332Lines(`a${k}`, 's1', i, T0 + i * 5000)).join(''));
      return row({ taskId: `t${k}`, agentId: `a${k}`, transcriptPath: file });
    });
    const observer = () =>
      createClaudeObserver({ paths: new StatePaths(path.join(dir, 'state')), claudeConfigDir: path.join(dir, 'claude'), env: {}, isPersistent: false });
    const judge = async (o: ReturnType<typeof observer>, task: Task, nowMs: number) =>
      show(assess(task, mergeObservations([observeRow(task), ...(await o.observe(task, nowMs))]), DEFAULT_POLICY, nowMs));
    const [within, past] = [T0 + 47 * 5000 + 30_000, T0 + 47 * 5000 + 200_000];
    const shared = observer();
    const ones = tasks.map(() => observer());
    const alone = { opens: 0, bytes: 0 };
    for (const [k, task] of tasks.entries()) {
      // Each alone: its short tail, then one sized in records.
      expect(await judge(shared, task, within), task.taskId).toBe(await judge(ones[k]!, task, within));
      alone.opens += ones[k]!.stats().opens;
      alone.bytes += ones[k]!.stats().bytesRead;
    }
    expect(alone.opens).toBe(2 * agents);
    // Eight short tails first, then one read each but for one probe that starts short again.
    expect(shared.stats().opens).toBe(agents + 8 + 1);
    expect(shared.stats().bytesRead).toBeLessThan(alone.bytes * 0.95);
    // And past the window, where the tails are read back.
    for (const [k, task] of tasks.entries()) expect(await judge(shared, task, past), task.taskId).toBe(await judge(ones[k]!, task, past));
  });

  it('the size guessed for a cold read is only a start: ignored for a file read before, and outside the short and the wide sizes', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-a1.jsonl');
    writeFileSync(file, turns(60, 0));
    const size = Buffer.byteLength(turns(60, 0));
    const tracker = () => createTranscriptTail(dir, new TailReader(), { isPersistent: false });
    for (const [guess, bytes] of [
      [48 * 1024, 48 * 1024],
      [8 * 1024, 16 * 1024],
      [512 * 1024, 16 * 1024],
    ] as const) {
      const t = tracker();
      const r = await t.read(file, T0, { coldTailBytes: guess });
      if (!r.ok) throw new Error(r.reason);
      expect(r.handle.level, `${guess}`).toBe(guess === 48 * 1024 ? 1 : 0);
      // Read from `bytes` before the end, the cut line dropped.
      expect(t.reader.bytesRead - bytes, `${guess}`).toBeLessThanOrEqual(1);
      expect(t.reader.bytesRead, `${guess}`).toBeGreaterThanOrEqual(bytes);
      expect(r.state.tail?.from).toBeGreaterThanOrEqual(size - bytes - 1);
    }
    const t = tracker();
    await t.read(file, T0);
    appendFileSync(file, turns(1, 300));
    t.beginCheck();
    const before = t.reader.bytesRead;
    const r = await t.read(file, T0 + 301_000, { coldTailBytes: 48 * 1024 });
    expect(r.ok && r.handle.level).toBe(0);
    expect(t.reader.bytesRead - before).toBe(Buffer.byteLength(turns(1, 300)) + 1);
  });
});

describe('a read-back after a lazy tail', () => {
  it('reports a bad line of the tail once, though it parses it again', async () => {
    const dir = tempDir();
    const w = writer();
    // No message ids: the tail cannot vouch for anything, so the check reads back.
    for (let i = 0; i < 30; i++)
      w.lines.push(
        rec(i, {
          type: 'assistant',
          message: { role: 'assistant', content: [{ type: 'tool_use', id: `u${i}`, name: 'Read', input: { file_path: `/f${i}` } }] },
        }),
      );
    w.lines.push('{"type":"assistant", not json');
    w.lines.push(rec(31, { type: 'user', message: { role: 'user', content: [{ tool_use_id: 'u29', type: 'tool_result', content: 'ok' }] } }));
    writeFileSync(path.join(dir, 's1.jsonl'), w.text());
    const o = createClaudeObserver({
      paths: new StatePaths(path.join(dir, 'state')),
      claudeConfigDir: path.join(dir, 'claude'),
      env: {},
      isPersistent: false,
      tail: { tailBytes: 1024, lazyTailBytes: 1024, maxColdBytes: 64 * 1024 },
    });
    const task = row({ sessionId: 's1', transcriptPath: path.join(dir, 's1.jsonl') });
    await o.observe(task, T0 + 40_000);
    expect(o.stats().bytesRead, 'read back past the tail').toBeGreaterThan(1024 * 2);
    const diags = o.drainDiagnostics();
    expect(diags.map((d) => d.message)).toEqual([expect.stringMatching(/s1\.jsonl@\d+: not a JSON record/)]);
  });
});

describe('the raw scan of a parent prefix', () => {
  it('finds every id a record may set a task status for, without parsing', () => {
    const text =
      JSON.stringify({ toolUseResult: { status: 'completed', agentId: 'a93ccab' } }) +
      '\n' +
      JSON.stringify({ message: { content: '<task-notification>\n<task-id> b1x </task-id>\n<status>completed</status></task-notification>' } }) +
      '\n' +
      JSON.stringify({ toolUseResult: { retrieval_status: 'success', task: { task_id: 'c7', status: 'completed' } } }) +
      '\n' +
      JSON.stringify({ toolUseResult: { shellId: 'sh1', status: 'completed' } }) +
      '\n' +
      JSON.stringify({ message: { content: '<agent-notification><agent-id>ag5</agent-id><status>completed</status></agent-notification>' } }) +
      '\n' +
      JSON.stringify({ message: { content: [{ type: 'tool_result', content: 'Async agent launched successfully.\nagentId: a77 (use it to resume)' }] } });
    expect([...taskIdsMentioned(text)].sort()).toEqual(['a77', 'a93ccab', 'ag5', 'b1x', 'c7', 'sh1']);
  });

  it('reads the prefix in chunks: a mention across a chunk edge and the cut line count, the tail does not', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'parent.jsonl');
    const filler = (n: number) => `{"f":"${'x'.repeat(n)}"}\n`;
    // The mention straddles byte 256 KB (the chunk size).
    const head = filler(256 * 1024 - 40);
    const across = `{"toolUseResult":{"agentId":"zz9"}}\n`;
    const cut = `{"message":"<task-id>cut1</task-id>"}\n`;
    const text = head + across + filler(5000) + cut + `{"toolUseResult":{"agentId":"after"}}\n`;
    writeFileSync(file, text);
    const from = text.indexOf(cut) + 10;
    const scan = new PrefixIds(4 * 1024 * 1024);
    expect(await scan.mention(file, from, 'zz9')).toBe(true);
    expect(await scan.mention(file, from, 'cut1')).toBe(true);
    expect(await scan.mention(file, from, 'after')).toBe(false);
  });
});
