// A steady check reuses the observation of a task whose row and files did not change (issue 12):
// it stats them and judges again, without re-reading or re-summarizing. Reuse must never go
// stale: every check here is compared with a check by a fresh observer (no memory) at the same
// moment, and must give the same verdicts, while the observer's `observe` is asked only for the
// tasks whose inputs changed.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { newCheckMemory, runCheck, type CheckEnv } from '../../src/check.js';
import { rememberingCheck } from '../helpers/check-memory.js';
import { emptyHistory } from '../../src/core/history.js';
import { StatePaths } from '../../src/files/paths.js';
import { ChangeNotes, NOTE_LONG_TRUST_MS, NOTE_TRUST_MS } from '../../src/observe/read/change-notes.js';
import { createClaudeObserver } from '../../src/agents/claude-code/read/claude-observer.js';
import { claudeCodeHarness } from '../../src/agents/claude-code/harness.js';
import { TailReader } from '../../src/observe/read/tail-file.js';
import { TailTracker } from '../../src/observe/read/tail-tracker.js';
import { parseTranscriptLine } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { emptyTranscriptState, type TranscriptState } from '../../src/agents/claude-code/parse/transcript-state.js';
import { resolveOptions } from '../../src/options.js';
import { assistant, at, jsonl, ms, system, text, toolResult, toolUse, user } from '../helpers/claude-lines.js';
import { writeWave, type RowSpec } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const AGENTS = 4;
const TIMEOUT_S = 60;

async function setup(extraRows: RowSpec[] = [], opt: { hasObservers: boolean; notes?: ChangeNotes; healthyReadSeconds?: number } = { hasObservers: true }) {
  const root = tempDir();
  const stateDir = path.join(root, 'state');
  const claudeDir = path.join(root, 'claude');
  const project = path.join(claudeDir, 'projects', '-p');
  mkdirSync(path.join(project, 'sess-1', 'subagents'), { recursive: true });
  const parent = path.join(project, 'sess-1.jsonl');
  writeFileSync(parent, jsonl(assistant(0, [text('dispatching')])));
  const sub = (k: number) => path.join(project, 'sess-1', 'subagents', `agent-a${k}.jsonl`);
  // Agent k last worked at 10 + k seconds.
  for (let k = 0; k < AGENTS; k++)
    writeFileSync(
      sub(k),
      jsonl(
        assistant(10 + k, [toolUse(`u${k}`, 'Read', { file_path: '/x' })], { agentId: `a${k}`, isSidechain: true }),
        user(10 + k, [toolResult(`u${k}`)], { agentId: `a${k}`, isSidechain: true }),
      ),
    );
  for (let k = 0; k < AGENTS; k++) utimesSync(sub(k), new Date(ms(10 + k)), new Date(ms(10 + k)));
  utimesSync(parent, new Date(ms(0)), new Date(ms(0)));
  const rows: RowSpec[] = [
    ...Array.from({ length: AGENTS }, (_, k) => ({ task_id: `t${k}`, ticket_id: `P-${k}`, status: 'in_progress', agent_id: `a${k}`, session_id: 'sess-1' })),
    ...extraRows,
  ];
  const write = (rs: RowSpec[]) => {
    const file = writeWave(stateDir, 'E-1', at(0), rs);
    // An old file: stat can vouch that it did not change since it was parsed.
    utimesSync(file, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
  };
  write(rows);
  const paths = new StatePaths(stateDir);
  const opts = await resolveOptions({ epicId: 'E-1', stateDir, action: 'report', dryRun: true, timeout: TIMEOUT_S }, {}, root);
  const makeEnv = (): CheckEnv => ({
    paths,
    opts,
    observers: !opt.hasObservers
      ? []
      : opt.healthyReadSeconds !== undefined
        ? // As the CLI builds it: the harness, from the config.
          claudeCodeHarness.connect({
            paths,
            config: { claude: { config_dir: claudeDir }, healthy_read_seconds: opt.healthyReadSeconds },
            env: {},
            isPersistent: false,
            baseTimeoutMs: TIMEOUT_S * 1000,
          }).observers
        : [createClaudeObserver({ paths, claudeConfigDir: claudeDir, env: {}, isPersistent: false, ...(opt.notes ? { changeNotes: opt.notes } : {}) })],
    history: emptyHistory(),
    runId: 'r',
    version: 'v',
    pid: process.pid,
  });
  const env = makeEnv();
  const checkOf = rememberingCheck();
  const observe = vi.fn();
  if (opt.hasObservers) observe.mockImplementation(env.observers[0]!.observe.bind(env.observers[0]));
  if (opt.hasObservers) (env.observers[0] as { observe: unknown }).observe = observe;
  /** One check by the long-lived env, and the same moment judged by a fresh one: they must agree. */
  const check = async (nowMs: number, o: { isFreshSame: boolean } = { isFreshSame: true }) => {
    const r = await checkOf(env, nowMs);
    if (!r.ok) throw new Error('check failed');
    if (o.isFreshSame) {
      const fresh = await runCheck(makeEnv(), newCheckMemory(), nowMs);
      if (!fresh.ok) throw new Error('check failed');
      expect(r.verdicts).toEqual(fresh.verdicts);
      expect(r.report).toEqual(fresh.report);
    }
    const observed = observe.mock.calls.map(([t]) => (t as { taskId: string }).taskId);
    observe.mockClear();
    return { verdicts: r.verdicts, observed, tasks: r.tasks };
  };
  return { env, check, sub, parent, write, rows, paths, stateDir };
}

describe("reusing an unchanged task's observation", () => {
  it('still turns a task stalled exactly at its deadline, without observing it again', async () => {
    const s = await setup();
    const first = await s.check(ms(20));
    expect(first.observed).toHaveLength(AGENTS);
    expect(first.verdicts.map((v) => v.kind)).toEqual(Array(AGENTS).fill('healthy'));
    const deadline = first.verdicts[0]!.deadlineMs!;
    expect(deadline).toBe(ms(10 + TIMEOUT_S));

    // Nothing changed: nothing is observed again, and idle time still grows.
    const quiet = await s.check(ms(30));
    expect(quiet.observed).toEqual([]);
    // The wave judged is the very one judged last (each stage gave back what it was given).
    expect(quiet.tasks).toBe(first.tasks);
    expect(quiet.verdicts[0]!.idleMs).toBe(20_000);
    // At the deadline itself the window is not exceeded; one millisecond later it is.
    const atDeadline = await s.check(deadline);
    expect(atDeadline.observed).toEqual([]);
    expect(atDeadline.verdicts[0]!.kind).toBe('healthy');
    const after = await s.check(deadline + 1);
    expect(after.observed).toEqual([]);
    expect(after.verdicts.map((v) => v.kind)).toEqual(['stalled', 'healthy', 'healthy', 'healthy']);
    expect(after.verdicts[0]!.stallReason).toBe('inactivity');
  });

  it('observes again a task whose transcript grew, and only that task', async () => {
    const s = await setup();
    await s.check(ms(20));
    appendFileSync(
      s.sub(2),
      jsonl(assistant(25, [text('all done')], { agentId: 'a2', isSidechain: true }), user(25, 'more', { agentId: 'a2', isSidechain: true })),
    );
    const r = await s.check(ms(26));
    expect(r.observed).toEqual(['t2']);
    expect(r.verdicts[2]!.lastProgressMs).toBe(ms(25));
    // A file replaced by one of the same size and mtime (a new inode) is read again too.
    const copy = `${s.sub(1)}.new`;
    writeFileSync(
      copy,
      jsonl(
        assistant(11, [toolUse('u1', 'Grep', { file_path: '/x' })], { agentId: 'a1', isSidechain: true }),
        user(11, [toolResult('u1')], { agentId: 'a1', isSidechain: true }),
      ),
    );
    const old = statSync(s.sub(1));
    expect(statSync(copy).size).toBe(old.size);
    utimesSync(copy, old.atime, old.mtime);
    renameSync(copy, s.sub(1));
    const replaced = await s.check(ms(27));
    expect(replaced.observed).toEqual(['t1']);
    expect(replaced.verdicts[1]!.lastTool).toBe('Grep');
  });

  it('observes again every child when the parent they share reports one of them completed', async () => {
    const s = await setup();
    await s.check(ms(20));
    appendFileSync(
      s.parent,
      jsonl(
        assistant(21, [toolUse('p1', 'Agent', { description: 'd', prompt: 'p' })]),
        user(22, [toolResult('p1', [text('final report')])], { toolUseResult: { status: 'completed', agentId: 'a3' } }),
      ),
    );
    const r = await s.check(ms(23));
    expect(r.observed.sort()).toEqual(['t0', 't1', 't2', 't3']);
    expect(r.verdicts[3]!.kind).toBe('inconsistent');
    expect(r.verdicts[3]!.reason).toContain('parent transcript reports the agent completed');
    expect((await s.check(ms(24))).observed).toEqual([]);
  });

  it('observes again only the rows a rewrite of the state file changed, and reads a hook activity file that appears', async () => {
    const s = await setup();
    await s.check(ms(20));
    s.write(s.rows.map((r, k) => (k === 1 ? { ...r, status: 'completed' } : k === 0 ? { ...r, last_activity_ts: at(19) } : r)));
    const r = await s.check(ms(21));
    // The file was rewritten whole: only the changed rows are observed again (the in-flight one,
    // and the one that turned terminal: its agent is watched a while for still running).
    expect(r.observed).toEqual(['t0', 't1']);
    expect(r.verdicts[0]!.lastProgressMs).toBe(ms(19));
    expect(r.verdicts[1]!.kind).toBe('terminal');

    const activity = s.paths.activityFile('a2');
    mkdirSync(path.dirname(activity), { recursive: true });
    writeFileSync(
      activity,
      JSON.stringify({
        ts: at(22),
        event: 'PreToolUse',
        session_id: 'sess-1',
        agent_id: 'a2',
        tool_name: 'Bash',
        tool_use_id: 'b1',
        tool_input: { command: 'sleep 1' },
      }) + '\n',
    );
    const hooked = await s.check(ms(23));
    expect(hooked.observed).toEqual(['t2']);
    expect(hooked.verdicts[2]!.lastProgressMs).toBe(ms(22));
  });

  it('saves every position a check read once its verdicts are out, not only those read before the save fell due', async () => {
    const s = await setup();
    const env: CheckEnv = {
      ...s.env,
      observers: [createClaudeObserver({ paths: s.paths, claudeConfigDir: path.join(path.dirname(s.stateDir), 'claude'), env: {} })],
    };
    const r = await runCheck(env, newCheckMemory(), ms(20));
    expect(r.ok).toBe(true);
    // The cold check read all four subagents (and their parent): all are saved for a restart.
    const saved = readFileSync(path.join(s.stateDir, 'observe', 'transcripts.json'), 'utf8');
    for (let k = 0; k < AGENTS; k++) expect(saved).toContain(JSON.stringify(s.sub(k)));
    expect(saved).toContain(JSON.stringify(s.parent));
  });

  it('reuses a subagent whose parent transcript is missing, until the parent appears and reports it completed', async () => {
    // A flat layout (agent-<id>.jsonl beside where <session>.jsonl would be), its parent not written.
    const s = await setup();
    const project = path.dirname(s.parent);
    const flat = path.join(project, 'agent-f1.jsonl');
    const side = { agentId: 'f1', isSidechain: true, sessionId: 'sess-9' };
    writeFileSync(flat, jsonl(assistant(12, [toolUse('f', 'Read', { file_path: '/x' })], side), user(12, [toolResult('f')], side)));
    utimesSync(flat, new Date(ms(12)), new Date(ms(12)));
    s.write([...s.rows, { task_id: 'tf', ticket_id: 'P-f', status: 'in_progress', agent_id: 'f1', transcript_path: flat }]);
    const first = await s.check(ms(20));
    expect(first.observed).toContain('tf');
    // The parent's absence is what the observation was built from: unchanged, nothing is read again.
    expect((await s.check(ms(30))).observed).toEqual([]);
    expect((await s.check(ms(31))).observed).toEqual([]);
    writeFileSync(
      path.join(project, 'sess-9.jsonl'),
      jsonl(
        assistant(32, [toolUse('p9', 'Agent', { description: 'd', prompt: 'p' })], { sessionId: 'sess-9' }),
        user(33, [toolResult('p9', [text('final report')])], { sessionId: 'sess-9', toolUseResult: { status: 'completed', agentId: 'f1' } }),
      ),
    );
    const appeared = await s.check(ms(34));
    expect(appeared.observed).toEqual(['tf']);
    const tf = appeared.verdicts.find((v) => v.taskId === 'tf')!;
    expect(tf.kind).toBe('inconsistent');
    expect(tf.reason).toContain('parent transcript reports the agent completed');
  });

  it("observes every check a session that waits on a background subagent, whose progress is the child's", async () => {
    const s = await setup([{ task_id: 'ts', ticket_id: 'P-s', status: 'in_progress', session_id: 'sess-1' }]);
    const launch = [
      user(0, 'review it in the background'),
      assistant(1, [toolUse('p1', 'Agent', { description: 'review', prompt: 'p', run_in_background: true })]),
      user(2, [toolResult('p1', [text('Async agent launched successfully.\nagentId: b1 (internal ID)')])]),
      assistant(3, [text('launched it')]),
      system(4, 'turn_duration'),
    ];
    writeFileSync(s.parent, jsonl(...launch));
    const child = path.join(path.dirname(s.sub(0)), 'agent-b1.jsonl');
    const bg = { agentId: 'b1', isSidechain: true };
    writeFileSync(child, jsonl(user(2.1, 'p', bg), assistant(20, [toolUse('c1', 'Read', { file_path: '/x' })], bg), user(21, [toolResult('c1')], bg)));
    const first = await s.check(ms(30));
    const ts = first.verdicts.findIndex((v) => v.taskId === 'ts');
    expect(first.verdicts[ts]!.lastProgressMs).toBe(ms(21));
    appendFileSync(child, jsonl(assistant(40, [toolUse('c2', 'Read', { file_path: '/y' })], bg)));
    const later = await s.check(ms(41));
    expect(later.observed).toContain('ts');
    expect(later.verdicts[ts]!.lastProgressMs).toBe(ms(40));
  });

  it('reuses a task whose row output changed once, and still stalls it a window after that change', async () => {
    const s = await setup();
    const withOutput = (text: string) => s.rows.map((r, k) => (k === 0 ? { ...r, last_output: text } : r));
    s.write(withOutput('reading'));
    // A fresh watchdog has not seen the text change: these checks are compared with nothing.
    const keep = { isFreshSame: false };
    await s.check(ms(20), keep);
    s.write(withOutput('writing'));
    const changed = await s.check(ms(40), keep);
    expect(changed.verdicts[0]!.lastProgressMs).toBe(ms(40));
    // The next check carries that activity forward into a task of its own; from then on it is reused.
    await s.check(ms(41), keep);
    expect((await s.check(ms(42), keep)).observed).toEqual([]);
    const quiet = await s.check(ms(40 + TIMEOUT_S), keep);
    expect(quiet.observed).toEqual([]);
    expect(quiet.verdicts[0]!.kind).toBe('healthy');
    expect((await s.check(ms(40 + TIMEOUT_S) + 1, keep)).verdicts[0]!.kind).toBe('stalled');
  });

  it('judges a changed row from the new row when no observer reads files', async () => {
    const s = await setup([], { hasObservers: false });
    await s.check(ms(20));
    await s.check(ms(21));
    s.write(s.rows.map((r, k) => (k === 0 ? { ...r, last_activity_ts: at(19) } : r)));
    expect((await s.check(ms(22))).verdicts[0]!.lastProgressMs).toBe(ms(19));
  });

  it("does not reuse across a moment the file's mtime is just ahead of", async () => {
    const s = await setup();
    // The agent's file was touched at 40 s: judged at 35 s, the mtime stands for "now".
    utimesSync(s.sub(0), new Date(ms(40)), new Date(ms(40)));
    const r1 = await s.check(ms(35));
    const r2 = await s.check(ms(36));
    expect(r2.observed).toContain('t0');
    expect([r1.verdicts[0]!.kind, r2.verdicts[0]!.kind]).toEqual(['healthy', 'healthy']);
    // From the mtime on, it is the mtime again: reused.
    await s.check(ms(41));
    expect((await s.check(ms(42))).observed).toEqual([]);
  });

  it("asks again whether a row's pid is alive", async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      const s = await setup([{ task_id: 'tp', ticket_id: 'P-p', status: 'in_progress', agent_id: 'ap', session_id: 'sess-1', pid: child.pid }]);
      // An open Bash call (10 s timeout) long past it: a prompt while the process lives, a stall once it is gone.
      const file = path.join(path.dirname(s.sub(0)), 'agent-ap.jsonl');
      writeFileSync(file, jsonl(assistant(10, [toolUse('b1', 'Bash', { command: 'make', timeout: 10_000 })], { agentId: 'ap', isSidechain: true })));
      utimesSync(file, new Date(ms(10)), new Date(ms(10)));
      const alive = await s.check(ms(100));
      expect(alive.verdicts[AGENTS]!.kind).toBe('waiting_human');
      const stillAlive = await s.check(ms(101));
      expect(stillAlive.observed).toEqual([]);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      const gone = await s.check(ms(102));
      expect(gone.verdicts[AGENTS]!.kind).toBe('stalled');
      expect(gone.verdicts[AGENTS]!.stallReason).toBe('open_tool_overrun');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe("healthy_read_seconds: a healthy agent's files read at most that often (issue 37)", () => {
  const side = (k: number) => ({ agentId: `a${k}`, isSidechain: true });

  it('leaves what a healthy agent wrote unread until its last read is that old, then reads it', async () => {
    const s = await setup([], { hasObservers: true, healthyReadSeconds: 30 });
    expect((await s.check(ms(20))).observed).toHaveLength(AGENTS);
    appendFileSync(s.sub(2), jsonl(assistant(25, [toolUse('q2', 'AskUserQuestion', { questions: [{ question: 'Which name?' }] })], side(2))));
    // Read at 20, a2's last progress then 12: until 42 (half of the 60 s window after it; three
    // quarters of 30 s would be later), the check judges the parts of that read (a fresh observer
    // sees the question).
    const early = await s.check(ms(26), { isFreshSame: false });
    expect(early.observed).toEqual([]);
    expect(early.verdicts[2]).toMatchObject({ kind: 'healthy', lastProgressMs: ms(12) });
    expect((await s.check(ms(41.9), { isFreshSame: false })).observed).toEqual([]);
    // 30 s after the read at the latest: read again, and judged as a fresh observer judges it.
    const due = await s.check(ms(50));
    expect(due.observed).toEqual(['t2']);
    expect(due.verdicts[2]!.kind).toBe('waiting_human');
    // The other three were stat'ed, found unchanged and kept: from here on each waits 30 s from its own read.
    appendFileSync(s.sub(1), jsonl(assistant(51, [text('still at it')], side(1))));
    expect((await s.check(ms(52))).observed).toEqual(['t1']);
  });

  it('concludes nothing but healthy from parts read before the files changed: an agent judged otherwise is read at once', async () => {
    const s = await setup([], { hasObservers: true, healthyReadSeconds: 600 });
    // a0 asks a question at 19 s.
    appendFileSync(s.sub(0), jsonl(assistant(19, [toolUse('q0', 'AskUserQuestion', { questions: [{ question: 'Which name?' }] })], side(0))));
    const asking = await s.check(ms(20));
    expect(asking.observed).toHaveLength(AGENTS);
    expect(asking.verdicts[0]!.kind).toBe('waiting_human');
    // Answered at 21: the parts of the read at 20 still say waiting for a human, which is not
    // healthy, so its files are stat'ed, found changed, and read at the next check.
    appendFileSync(s.sub(0), jsonl(user(21, [toolResult('q0', 'name it b')], side(0))));
    const answered = await s.check(ms(22));
    expect(answered.observed).toEqual(['t0']);
    expect(answered.verdicts[0]).toMatchObject({ kind: 'healthy', lastProgressMs: ms(21) });
  });

  it('reads a healthy agent again half a base window after the last progress its read saw, whatever healthy_read_seconds says', async () => {
    const s = await setup([], { hasObservers: true, healthyReadSeconds: 600 });
    await s.check(ms(20));
    appendFileSync(s.sub(3), jsonl(assistant(30, [text('more')], side(3))));
    // a3's last progress as read at 20 was 13: its read waits until 43 (13 + 60 / 2), so the
    // deadline judged on it (73) is never what wakes the loop.
    expect((await s.check(ms(42.9), { isFreshSame: false })).observed).toEqual([]);
    const r = await s.check(ms(43));
    expect(r.observed).toEqual(['t3']);
    expect(r.verdicts[3]!.lastProgressMs).toBe(ms(30));
  });

  it('reads hook lines at once, and every file again before judging on them anything but healthy', async () => {
    const s = await setup([], { hasObservers: true, healthyReadSeconds: 30 });
    await s.check(ms(20));
    // The transcript gains a call; the hook file its PreToolUse, then the permission prompt for it.
    appendFileSync(s.sub(2), jsonl(assistant(21, [toolUse('b2', 'Bash', { command: 'rm -rf build' })], side(2))));
    const activity = s.paths.activityFile('a2');
    mkdirSync(path.dirname(activity), { recursive: true });
    const hookLine = (sec: number, event: string, extra: object) =>
      `${JSON.stringify({ ts: at(sec), event, session_id: 'sess-1', agent_id: 'a2', tool_name: 'Bash', tool_use_id: 'b2', ...extra })}\n`;
    writeFileSync(activity, hookLine(21, 'PreToolUse', { tool_input: { command: 'rm -rf build' } }));
    // The hook file changed: observed, its line read; the transcript read at 20 stands for what it gained.
    const pre = await s.check(ms(22), { isFreshSame: false });
    expect(pre.observed).toEqual(['t2']);
    expect(pre.verdicts[2]).toMatchObject({ kind: 'healthy', lastProgressMs: ms(21), lastTool: 'Bash' });
    appendFileSync(activity, hookLine(23, 'Notification', { notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' }));
    // Waiting for a human is no healthy: observed again with every file read, as a fresh observer sees it.
    const prompt = await s.check(ms(24));
    expect(prompt.observed).toEqual(['t2', 't2']);
    expect(prompt.verdicts[2]!.kind).toBe('waiting_human');
    // From that whole read on, unchanged: reused (stat'ed: not healthy).
    expect((await s.check(ms(25))).observed).toEqual([]);
  });

  it('flags a loop its hook lines show at the next check, its transcript still waiting', async () => {
    const s = await setup([], { hasObservers: true, healthyReadSeconds: 30 });
    await s.check(ms(20));
    const activity = s.paths.activityFile('a1');
    mkdirSync(path.dirname(activity), { recursive: true });
    const lines: string[] = [];
    for (let i = 0; i < 5; i++) {
      const call = { session_id: 'sess-1', agent_id: 'a1', tool_name: 'Bash', tool_use_id: `l${i}`, tool_input: { command: 'ls -a' } };
      lines.push(JSON.stringify({ ts: at(21 + i), event: 'PreToolUse', ...call }), JSON.stringify({ ts: at(21.5 + i), event: 'PostToolUse', ...call }));
      appendFileSync(
        s.sub(1),
        jsonl(assistant(21 + i, [toolUse(`l${i}`, 'Bash', { command: 'ls -a' })], side(1)), user(21.5 + i, [toolResult(`l${i}`)], side(1))),
      );
    }
    writeFileSync(activity, `${lines.join('\n')}\n`);
    const r = await s.check(ms(27));
    expect(r.observed).toEqual(['t1', 't1']);
    expect(r.verdicts[1]!.kind).toBe('looping');
  });

  it('reads at every check with 0', async () => {
    const s = await setup([], { hasObservers: true, healthyReadSeconds: 0 });
    await s.check(ms(20));
    appendFileSync(s.sub(3), jsonl(assistant(21, [text('more')], side(3))));
    const r = await s.check(ms(22));
    expect(r.observed).toEqual(['t3']);
    expect(r.verdicts[3]!.lastProgressMs).toBe(ms(21));
  });
});

describe('change notification', () => {
  /** A watch that never reports anything: notification that missed every change. */
  const deaf = () =>
    Object.assign(new EventEmitter(), {
      close() {},
      ref() {
        return this;
      },
      unref() {
        return this;
      },
    }) as unknown as FSWatcher;

  it("is never the only ground for a stall: a file it missed is stat'ed before the verdict", async () => {
    const s = await setup([], { hasObservers: true, notes: new ChangeNotes({ watch: deaf, trustMs: Infinity }) });
    const first = await s.check(ms(20), { isFreshSame: false });
    const deadline = first.verdicts[0]!.deadlineMs!;
    // The second check comes fast: from it on, the files are watched.
    await s.check(ms(21), { isFreshSame: false });
    // Agent 0 worked again; the deaf watch says nothing of it.
    appendFileSync(
      s.sub(0),
      jsonl(
        assistant(30, [toolUse('w1', 'Read', { file_path: '/y' })], { agentId: 'a0', isSidechain: true }),
        user(31, [toolResult('w1')], { agentId: 'a0', isSidechain: true }),
      ),
    );
    const missed = await s.check(ms(35), { isFreshSame: false });
    expect(missed.observed).toEqual([]);
    expect(missed.verdicts[0]!.lastProgressMs).toBe(ms(10));
    // Past the stale deadline: the stat before a stall finds the growth, and the agent is healthy.
    const r = await s.check(deadline + 1);
    expect(r.observed).toEqual(['t0']);
    expect(r.verdicts[0]).toMatchObject({ kind: 'healthy', lastProgressMs: ms(31) });
  });

  it('marks a file touched by a write, a rename in its directory, or an old stat; a failed watch vouches for nothing', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-a1.jsonl');
    writeFileSync(file, 'x\n');
    let now = 0;
    let watches = 0;
    const notes = new ChangeNotes({ now: () => now, trustMs: 1000, watch: (d, listener) => (watches++, watch(d, { persistent: false }, listener)) });
    // Checks 10 ms apart: worth watching.
    notes.beginCheck();
    now = 10;
    notes.beginCheck();
    const stat = () => {
      notes.beforeStat(file);
      notes.atEnd(file);
    };
    expect(notes.isUntouched(file)).toBe(false);
    stat();
    await notes.settle();
    expect(notes.isUntouched(file)).toBe(true);
    appendFileSync(file, 'y\n');
    await notes.settle();
    expect(notes.isUntouched(file)).toBe(false);
    stat();
    writeFileSync(path.join(dir, 'agent-a2.jsonl'), 'new agent\n');
    await notes.settle();
    expect(notes.isUntouched(file)).toBe(false);
    stat();
    await notes.settle();
    expect(notes.isUntouched(file)).toBe(true);
    now = 1010;
    expect(notes.isUntouched(file)).toBe(false);
    // A stat that did not find the file read to its end vouches for nothing.
    notes.beforeStat(file);
    expect(notes.isUntouched(file)).toBe(false);
    // Checks further apart than the trust window: nothing is watched, every file is stat'ed.
    now = 5000;
    notes.beginCheck();
    const before = watches;
    stat();
    expect(notes.isUntouched(file)).toBe(false);
    expect(watches).toBe(before);
    notes.close();

    // Each stat vouches for its own share of the window (at random in a real watchdog: re-stats spread over checks).
    const real = (d: string, listener: (event: string, name: string | Buffer | null) => void) => watch(d, { persistent: false }, listener);
    const statOf = (n: ChangeNotes) => (n.beforeStat(file), n.atEnd(file));
    /** Two checks `gapMs` apart (from 0), then a stat found the file read to its end. */
    const watchedAfter = (n: ChangeNotes, gapMs: number) => {
      now = 0;
      n.beginCheck();
      now = gapMs;
      n.beginCheck();
      statOf(n);
      return n;
    };
    let share = 0.5;
    const shared = watchedAfter(new ChangeNotes({ now: () => now, trustMs: 1000, share: () => share, watch: real }), 10);
    for (const [atMs, isUntouched] of [
      [509, true],
      [510, false],
    ] as const) {
      now = atMs;
      expect(shared.isUntouched(file)).toBe(isUntouched);
    }
    share = 1;
    statOf(shared);
    for (const [atMs, isUntouched] of [
      [1509, true],
      [1510, false],
    ] as const) {
      now = atMs;
      expect(shared.isUntouched(file)).toBe(isUntouched);
    }
    shared.close();
    // The default window (NOTE_LONG_TRUST_MS, 120 s, while nothing was missed) keeps a loop of --check-interval 1 (checks just over a second apart) watched.
    const everySecond = watchedAfter(new ChangeNotes({ now: () => now, watch: real }), 1040);
    now = 2080;
    everySecond.beginCheck();
    expect(everySecond.isUntouched(file)).toBe(true);
    now = 1040 + NOTE_LONG_TRUST_MS;
    expect(everySecond.isUntouched(file)).toBe(false);
    everySecond.close();

    const fast = (n: ChangeNotes) => (n.beginCheck(), n.beginCheck(), n);
    const broken = fast(
      new ChangeNotes({
        watch: () => {
          throw Object.assign(new Error('no watches left'), { code: 'ENOSPC' });
        },
      }),
    );
    broken.beforeStat(file);
    broken.atEnd(file);
    expect(broken.isUntouched(file)).toBe(false);
    const failing = deaf();
    const erring = fast(new ChangeNotes({ watch: () => failing }));
    erring.beforeStat(file);
    erring.atEnd(file);
    expect(erring.isUntouched(file)).toBe(true);
    failing.emit('error', new Error('watch failed'));
    expect(erring.isUntouched(file)).toBe(false);
  });
  it('trusts a stat for the long window until a stat finds a change no event named, then for the short one, for an hour', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-a1.jsonl');
    writeFileSync(file, 'x\n');
    let now = 0;
    // The wall clock a minute ahead of the file's mtimes: every change below is older than the check.
    const wallNow = () => Date.now() + 60_000;
    const notes = new ChangeNotes({ now: () => now, wallNow, share: () => 1, watch: deaf });
    const reader = new TailReader({}, notes);
    const none = { reset() {}, line() {}, oversize() {} };
    let checkedAt = 0;
    // Checks every 10 s up to `atMs`: the loop goes on, its directories stay watched.
    const check = (atMs: number) => {
      for (let t = Math.min(atMs, checkedAt + 10_000); ; t = Math.min(atMs, t + 10_000)) {
        now = t;
        notes.beginCheck();
        if (t === atMs) break;
      }
      checkedAt = atMs;
    };
    check(0);
    check(10);
    const first = await reader.read(file, undefined, none);
    if (!first.ok) throw new Error(first.reason);
    let pos = first.position;
    // Nothing missed yet: a stat vouches for the long window.
    check(10 + NOTE_LONG_TRUST_MS - 1);
    expect(reader.unchangedBy(file, pos)).toBe('notes');
    check(10 + NOTE_LONG_TRUST_MS);
    expect(reader.unchangedBy(file, pos)).toBe('stat');
    expect(notes.missedChanges).toBe(0);
    // The deaf watch misses a write: the stat after the trust ran out finds it.
    const t0 = now;
    appendFileSync(file, 'y\n');
    check(t0 + NOTE_LONG_TRUST_MS);
    expect(reader.unchangedBy(file, pos)).toBeUndefined();
    expect(notes.missedChanges).toBe(1);
    const again = await reader.read(file, pos, none);
    if (!again.ok) throw new Error(again.reason);
    pos = again.position;
    // From then on the short window.
    const t1 = now;
    check(t1 + NOTE_TRUST_MS - 1);
    expect(reader.unchangedBy(file, pos)).toBe('notes');
    check(t1 + NOTE_TRUST_MS);
    expect(reader.unchangedBy(file, pos)).toBe('stat');
    // An hour after the miss, the long one again.
    check(t1 + 3_600_000 + 1);
    expect(reader.unchangedBy(file, pos)).toBe('stat');
    check(t1 + 3_600_000 + NOTE_LONG_TRUST_MS);
    expect(reader.unchangedBy(file, pos)).toBe('notes');
    expect(notes.missedChanges).toBe(1);
    notes.close();

    // A change made during the check may still have its event queued: not a miss.
    const during = new ChangeNotes({ now: () => now, wallNow: Date.now, share: () => 1, watch: deaf });
    const reader2 = new TailReader({}, during);
    now = 0;
    during.beginCheck();
    now = 10;
    during.beginCheck();
    const r = await reader2.read(file, undefined, none);
    if (!r.ok) throw new Error(r.reason);
    appendFileSync(file, 'z\n');
    expect(reader2.unchangedBy(file, r.position, true)).toBeUndefined();
    expect(during.missedChanges).toBe(0);
    // The same change found at the next check, over a second later, was missed.
    now = 20;
    const later = await reader2.read(file, r.position, none);
    if (!later.ok) throw new Error(later.reason);
    during.beginCheck();
    appendFileSync(file, 'w\n');
    utimesSync(file, new Date(Date.now() - 5000), new Date(Date.now() - 5000));
    expect(reader2.unchangedBy(file, later.position, true)).toBeUndefined();
    expect(during.missedChanges).toBe(1);
    during.close();
  });
  it('vouches that a missing file is still missing until a file is created in its directory, and never that it is read to its end', async () => {
    const dir = tempDir();
    const missing = path.join(dir, 'sess-9.jsonl');
    let now = 0;
    const notes = new ChangeNotes({ now: () => now, trustMs: 1000, watch: (d, listener) => watch(d, { persistent: false }, listener) });
    notes.beginCheck();
    now = 10;
    notes.beginCheck();
    const reader = new TailReader({}, notes);
    // The first answer is a stat's; later ones are the notes' while nothing was created.
    expect(reader.isStillAbsent(missing)).toBe(true);
    await notes.settle();
    expect(notes.isStillAbsent(missing)).toBe(true);
    expect(notes.isUntouched(missing)).toBe(false);
    // A file created elsewhere in the directory is a rename event: the absence is stat'ed again.
    writeFileSync(path.join(dir, 'other.jsonl'), 'x\n');
    await notes.settle();
    expect(notes.isStillAbsent(missing)).toBe(false);
    expect(reader.isStillAbsent(missing)).toBe(true);
    await notes.settle();
    expect(notes.isStillAbsent(missing)).toBe(true);
    writeFileSync(missing, 'now here\n');
    await notes.settle();
    expect(notes.isStillAbsent(missing)).toBe(false);
    expect(reader.isStillAbsent(missing)).toBe(false);
    // A stat is required (the verdict would act): asked of the disk, not of the notes.
    rmSync(missing);
    expect(reader.isStillAbsent(missing)).toBe(true);
    writeFileSync(missing, 'back\n');
    expect(reader.isStillAbsent(missing, true)).toBe(false);
    // Past its trust window a missing file is stat'ed again.
    rmSync(missing);
    expect(reader.isStillAbsent(missing)).toBe(true);
    await notes.settle();
    now = 2000;
    expect(notes.isStillAbsent(missing)).toBe(false);
    notes.close();
  });
});

describe('TailTracker.peekVersion', () => {
  it('answers for an unchanged file with one stat and no open, and not for one that changed', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-a1.jsonl');
    writeFileSync(file, jsonl(assistant(0, [text('start')])));
    const reader = new TailReader();
    const t = new TailTracker<TranscriptState>(reader, { empty: emptyTranscriptState, line: parseTranscriptLine });
    expect(t.peekVersion(file, ms(1))).toBeUndefined();
    const r1 = await t.read(file, ms(1));
    expect(r1.ok).toBe(true);
    const v1 = r1.ok ? r1.version : NaN;
    // A read in flight has no version to peek: let this one finish settling.
    await new Promise((r) => setImmediate(r));
    const opens = reader.opens;
    t.beginCheck();
    expect(t.peekVersion(file, ms(2))).toBe(v1);
    expect(reader.opens).toBe(opens);
    appendFileSync(file, jsonl(assistant(3, [text('more')])));
    t.beginCheck();
    expect(t.peekVersion(file, ms(3))).toBeUndefined();
    const r2 = await t.read(file, ms(3));
    expect(r2.ok && r2.version).not.toBe(v1);
    await new Promise((r) => setImmediate(r));
    // Within one check, a file read once answers the same without another stat.
    expect(t.peekVersion(file, ms(3))).toBe(r2.ok ? r2.version : NaN);
  });
});
