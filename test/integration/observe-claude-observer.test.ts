// createClaudeObserver over real files: a fake Claude config dir and a state dir in a temp dir.
import { appendFileSync, mkdirSync, utimesSync, writeFileSync as writeRaw } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assess } from '../../src/core/assess.js';
import type { Task } from '../../src/contracts/state-file.js';
import { runHook } from '../../src/commands/hook.js';
import { StatePaths } from '../../src/files/paths.js';
import { createClaudeObserver } from '../../src/agents/claude-code/read/claude-observer.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { apiError, assistant, jsonl, ms, payload, system, text, toolResult, toolUse, user } from '../helpers/claude-lines.js';
import { tempDir } from '../helpers/temp-dir.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const PROJECT = '-home-u-p';

/** Write a transcript whose mtime is its newest record's time (the records use T0-based times). */
function writeFileSync(file: string, data: string) {
  writeRaw(file, data);
  const times = [...data.matchAll(/"timestamp":"([^"]+)"/g)].map((m) => Date.parse(m[1]!));
  const mtime = new Date(Math.max(...times, 0));
  utimesSync(file, mtime, mtime);
}

function setup() {
  const root = tempDir();
  const claudeDir = path.join(root, 'claude');
  const stateDir = path.join(root, 'state');
  mkdirSync(path.join(claudeDir, 'projects', PROJECT, 'sess-1', 'subagents'), { recursive: true });
  mkdirSync(stateDir);
  const paths = new StatePaths(stateDir);
  const file = (rel: string) => path.join(claudeDir, 'projects', PROJECT, rel);
  const observer = (opts: { env?: NodeJS.ProcessEnv } = {}) =>
    createClaudeObserver({ paths, claudeConfigDir: opts.env ? undefined : claudeDir, env: opts.env ?? {}, homeDir: root });
  return { root, claudeDir, stateDir, paths, file, observer };
}

const task = (over: Partial<Task> = {}): Task => ({
  taskId: 't1',
  ticketId: 'PROJ-1',
  status: 'in_progress',
  statusClass: 'in_flight',
  dispatchedAtMs: ms(0),
  ...over,
});

async function verdict(observer: ReturnType<ReturnType<typeof setup>['observer']>, t: Task, nowMs: number) {
  const parts = await observer.observe(t, nowMs);
  return { parts, v: assess(t, mergeObservations([observeRow(t), ...parts]), DEFAULT_POLICY, nowMs) };
}

describe('createClaudeObserver', () => {
  it('finds a subagent transcript by session_id + agent_id, then costs no search and no read when nothing changed', async () => {
    const s = setup();
    writeFileSync(
      s.file('sess-1/subagents/agent-a1.jsonl'),
      jsonl(assistant(1, [toolUse('u1', 'Bash', { command: 'npm test', timeout: 600000 })], { agentId: 'a1', isSidechain: true })),
    );
    const obs = s.observer();
    const t = task({ agentId: 'a1', sessionId: 'sess-1' });
    const { v } = await verdict(obs, t, ms(300));
    expect(v).toMatchObject({ kind: 'healthy', sources: ['transcript'], lastTool: 'Bash', exemptions: ['bash_long_timeout', 'open_tool_call'] });
    const before = obs.stats();
    await obs.observe(t, ms(301));
    expect(obs.stats()).toEqual(before);
  });

  it('flags the agent that stopped mid-task once its window has passed', async () => {
    const s = setup();
    writeFileSync(s.file('sess-1/subagents/agent-a1.jsonl'), jsonl(assistant(1, [toolUse('u1', 'Read', { file_path: '/x' })]), user(2, [toolResult('u1')])));
    const obs = s.observer();
    const t = task({ agentId: 'a1', sessionId: 'sess-1' });
    const { v } = await verdict(obs, t, ms(2) + 120_001);
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
  });

  it('uses the file mtime for stream-json output, whose records carry no timestamps', async () => {
    const s = setup();
    const file = s.file('run-1.jsonl');
    writeRaw(
      file,
      jsonl(
        JSON.stringify({ type: 'system', subtype: 'init', session_id: 'run-1' }),
        JSON.stringify({ type: 'assistant', session_id: 'run-1', message: { content: [{ type: 'text', text: 'hi' }] } }),
      ),
    );
    utimesSync(file, new Date(ms(50)), new Date(ms(50)));
    const obs = s.observer();
    const t = task({ transcriptPath: file });
    expect((await verdict(obs, t, ms(50) + 120_000)).v.kind).toBe('healthy');
    expect((await verdict(obs, t, ms(50) + 120_001)).v).toMatchObject({ kind: 'stalled', lastProgressMs: ms(50) });
  });

  it('does not count queued input or an interruption as progress (an orchestrator pinging a wedged agent)', async () => {
    const s = setup();
    const file = s.file('sess-1/subagents/agent-a1.jsonl');
    const queued = JSON.stringify({
      type: 'queue-operation',
      operation: 'enqueue',
      timestamp: '2026-02-12T10:05:00.000Z',
      sessionId: 'sess-1',
      content: 'status?',
    });
    writeFileSync(file, jsonl(user(0, 'Implement it.', { agentId: 'a1' }), queued, user(400, [text('[Request interrupted by user]')], { agentId: 'a1' })));
    const { v } = await verdict(s.observer(), task({ agentId: 'a1', sessionId: 'sess-1' }), ms(401));
    expect(v).toMatchObject({ kind: 'stalled', lastProgressMs: ms(0) });
  });

  it('doubles the window while the transcript shows API retries', async () => {
    const s = setup();
    writeFileSync(s.file('sess-1.jsonl'), jsonl(assistant(0, [text('x')]), apiError(1, 1), apiError(2, 2)));
    const { v } = await verdict(s.observer(), task({ sessionId: 'sess-1' }), ms(2) + 200_000);
    expect(v).toMatchObject({ kind: 'healthy', exemptions: ['rate_limit'], effectiveTimeoutMs: 240_000 });
  });

  it('finds the older flat layout by agent_id alone, and the projects dir through $CLAUDE_CONFIG_DIR', async () => {
    const s = setup();
    writeFileSync(s.file('agent-a2.jsonl'), jsonl(assistant(1, [text('hi')], { agentId: 'a2' })));
    const parts = await s.observer({ env: { CLAUDE_CONFIG_DIR: s.claudeDir } }).observe(task({ agentId: 'a2' }), ms(5));
    expect(parts).toEqual([expect.objectContaining({ source: 'transcript', lastOutput: 'hi', contradictions: [] })]);
  });

  it('scans sessions for an agent_id without a session_id', async () => {
    const s = setup();
    writeFileSync(s.file('sess-1/subagents/agent-a3.jsonl'), jsonl(assistant(1, [text('deep')], { agentId: 'a3' })));
    const parts = await s.observer().observe(task({ agentId: 'a3' }), ms(5));
    expect(parts[0]).toMatchObject({ source: 'transcript', lastOutput: 'deep' });
  });

  it.each(['sess-1/subagents/agent-a1.jsonl', 'agent-a1.jsonl'])(
    'prefers the subagent file (%s) beside a main-session transcript_path (hook payloads give the main one)',
    async (rel) => {
      const s = setup();
      writeFileSync(s.file('sess-1.jsonl'), jsonl(assistant(0, [text('parent')])));
      writeFileSync(s.file(rel), jsonl(assistant(1, [text('child')], { agentId: 'a1' })));
      const parts = await s.observer().observe(task({ agentId: 'a1', transcriptPath: s.file('sess-1.jsonl') }), ms(5));
      expect(parts[0]).toMatchObject({ lastOutput: 'child' });
    },
  );

  // The child of a Task call: `<session>/subagents/agent-<id>.jsonl` (2.1.x) or the flat `agent-<id>.jsonl` (2.0.x).
  it.each(['sess-1/subagents/agent-a5.jsonl', 'agent-a5.jsonl'])(
    'a parent whose Task call is open takes the progress of its child %s, and stalls naming it',
    async (rel) => {
      const s = setup();
      writeFileSync(
        s.file('sess-1.jsonl'),
        jsonl(user(0, 'find it'), assistant(1, [toolUse('p1', 'Task', { subagent_type: 'Explore', description: 'd', prompt: 'p' })])),
      );
      const child = { agentId: 'a5', isSidechain: true };
      writeFileSync(
        s.file(rel),
        jsonl(user(1.1, 'p', child), assistant(200, [toolUse('c1', 'Grep', { pattern: 'x' })], child), user(201, [toolResult('c1')], child)),
      );
      // Another session's flat child, busier: never taken for this parent's.
      writeFileSync(s.file('agent-a6.jsonl'), jsonl(assistant(300, [toolUse('c2', 'Grep', { pattern: 'y' })], { agentId: 'a6', sessionId: 'sess-2' })));
      const t = task({ sessionId: 'sess-1' });
      expect((await verdict(s.observer(), t, ms(320))).v).toMatchObject({ kind: 'healthy', reason: expect.stringContaining('waiting on subagent a5') });
      const { v } = await verdict(s.observer(), t, ms(322));
      expect(v).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
      expect(v.reason).toContain('waiting on subagent a5, which stalled');
    },
  );

  it.each(['sess-1/subagents/agent-ab1c2d3e4f5a6b7c8.jsonl', 'agent-ab1c2d3e4f5a6b7c8.jsonl'])(
    'a turn that ended while a background subagent runs waits on it (%s), even when a cold read starts after its launch',
    async (rel) => {
      const s = setup();
      const id = 'ab1c2d3e4f5a6b7c8';
      const launch = [
        user(0, 'review it in the background'),
        assistant(1, [toolUse('p1', 'Agent', { description: 'review', prompt: 'p', run_in_background: true })]),
        user(2, [toolResult('p1', [text(`Async agent launched successfully.\nagentId: ${id} (internal ID)`)])]),
      ];
      // Enough later turns that a 1 KB cold tail ends far past the launch.
      const later = Array.from({ length: 6 }, (_, i) => [
        user(3 + i * 2, `question ${i}`),
        assistant(3.5 + i * 2, [text(`answer ${i} `.repeat(20))]),
        system(4 + i * 2, 'turn_duration'),
      ]).flat();
      writeFileSync(s.file('sess-1.jsonl'), jsonl(...launch, ...later));
      const child = { agentId: id, isSidechain: true };
      writeFileSync(
        s.file(rel),
        jsonl(user(2.1, 'p', child), assistant(100, [toolUse('c1', 'Read', { file_path: '/x' })], child), user(101, [toolResult('c1')], child)),
      );
      const t = task({ sessionId: 'sess-1' });
      const loop = await verdict(s.observer(), t, ms(200));
      expect(loop.v).toMatchObject({ kind: 'healthy', reason: expect.stringContaining(`waiting on background subagent ${id}`) });
      const cold = createClaudeObserver({
        paths: new StatePaths(path.join(s.root, 'cold-state')),
        claudeConfigDir: s.claudeDir,
        env: {},
        isPersistent: false,
        tail: { tailBytes: 1024 },
      });
      expect((await verdict(cold, t, ms(200))).v).toMatchObject({ kind: 'healthy', reason: expect.stringContaining(`waiting on background subagent ${id}`) });
      expect((await verdict(s.observer(), t, ms(222))).v).toMatchObject({
        kind: 'stalled',
        reason: expect.stringContaining(`waiting on background subagent ${id}, which stalled`),
      });
      // A Stop hook of a build that does not list background tasks does not make it finished either.
      await runHook(JSON.stringify(payload('Stop', { stop_hook_active: false })), { stateDir: s.stateDir, nowMs: ms(15) });
      expect((await verdict(s.observer(), t, ms(200))).v).toMatchObject({ kind: 'healthy', sources: expect.arrayContaining(['hooks', 'transcript']) });
    },
  );

  it('reports a transcript it cannot find, and assess says the agent is starting (judged from dispatch), not active', async () => {
    const s = setup();
    const t = task({ agentId: 'zz9', sessionId: 'sess-1' });
    const { parts, v } = await verdict(s.observer(), t, ms(10));
    expect(parts).toEqual([
      { source: 'transcript', missing: [{ source: 'transcript', reason: expect.stringContaining('no transcript for agent "zz9" in session "sess-1" under') }] },
    ]);
    expect(v).toMatchObject({ kind: 'healthy', reason: expect.stringMatching(/^starting: dispatched \d+s ago, no record yet/) });
  });

  it('a row without transcript_path, agent_id or session_id gets no transcript evidence and no complaint', async () => {
    expect(await setup().observer().observe(task(), ms(10))).toEqual([]);
  });

  it('a transcript of another agent is inconsistent', async () => {
    const s = setup();
    writeFileSync(s.file('sess-1/subagents/agent-a9.jsonl'), jsonl(assistant(1, [text('x')], { agentId: 'a9' })));
    const { v } = await verdict(s.observer(), task({ agentId: 'a1', transcriptPath: s.file('sess-1/subagents/agent-a9.jsonl') }), ms(5));
    expect(v.kind).toBe('inconsistent');
    expect(v.reason).toMatch(/agent-a9\.jsonl \(line 1\) belongs to agent "a9", but the task's agent_id is "a1"/);
  });

  it("sees a subagent's completion in its parent's transcript", async () => {
    const s = setup();
    writeFileSync(s.file('sess-1/subagents/agent-a1.jsonl'), jsonl(assistant(1, [text('final report')], { agentId: 'a1' })));
    writeFileSync(
      s.file('sess-1.jsonl'),
      jsonl(
        assistant(0, [toolUse('p1', 'Agent', { description: 'd', prompt: 'p' })]),
        user(2, [toolResult('p1', [text('final report')])], { toolUseResult: { status: 'completed', agentId: 'a1' } }),
      ),
    );
    const { v } = await verdict(s.observer(), task({ agentId: 'a1', sessionId: 'sess-1' }), ms(5));
    expect(v.kind).toBe('inconsistent');
    expect(v.reason).toContain('parent transcript reports the agent completed');
  });

  it('merges hook activity: an open permission prompt is waiting_human', async () => {
    const s = setup();
    writeFileSync(s.file('sess-1/subagents/agent-a1.jsonl'), jsonl(assistant(1, [text('x')], { agentId: 'a1' })));
    await runHook(JSON.stringify(payload('PreToolUse', { agent_id: 'a1', tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, tool_use_id: 'u1' })), {
      stateDir: s.stateDir,
      nowMs: ms(2),
    });
    await runHook(
      JSON.stringify(payload('Notification', { agent_id: 'a1', notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' })),
      { stateDir: s.stateDir, nowMs: ms(3) },
    );
    const { v } = await verdict(s.observer(), task({ agentId: 'a1', sessionId: 'sess-1' }), ms(900));
    expect(v).toMatchObject({ kind: 'waiting_human', sources: expect.arrayContaining(['hooks', 'transcript']) });
  });

  it('holds a background subagent whose prompt was raised in the main session', async () => {
    const s = setup();
    await runHook(JSON.stringify(payload('PreToolUse', { agent_id: 'a1', tool_name: 'Bash', tool_input: { command: 'deploy' }, tool_use_id: 'u1' })), {
      stateDir: s.stateDir,
      nowMs: ms(2),
    });
    await runHook(JSON.stringify(payload('Notification', { notification_type: 'permission_prompt', message: 'Bash' })), { stateDir: s.stateDir, nowMs: ms(3) });
    const parts = await s.observer().observe(task({ agentId: 'a1' }), ms(900));
    expect(parts.at(-1)).toEqual({ source: 'hooks', waitingHuman: { kind: 'permission_prompt', sinceMs: ms(3), detail: 'in the main session: Bash' } });
  });

  it('a cold read of a finished turn does not wait on an earlier synchronous child that was interrupted mid-call', async () => {
    const s = setup();
    const id = 'a1b2c3d';
    const early = [
      user(0, 'explore it'),
      assistant(1, [toolUse('p1', 'Task', { subagent_type: 'Explore', description: 'explore', prompt: 'p' })]),
      user(50, [toolResult('p1', [text('[Request interrupted by user for tool use]')], true)]),
    ];
    const later = Array.from({ length: 6 }, (_, i) => [
      user(60 + i * 2, `question ${i}`),
      assistant(60.5 + i * 2, [text(`answer ${i} `.repeat(20))]),
      system(61 + i * 2, 'turn_duration'),
    ]).flat();
    writeFileSync(s.file('sess-1.jsonl'), jsonl(...early, ...later));
    // The child's last record is its open Bash call: it never answered (the heuristic alone would wait on it).
    const child = { agentId: id, isSidechain: true };
    writeFileSync(
      s.file(`sess-1/subagents/agent-${id}.jsonl`),
      jsonl(user(1.1, 'p', child), assistant(10, [toolUse('c1', 'Bash', { command: 'find /' })], child)),
    );
    const t = task({ sessionId: 'sess-1' });
    const cold = createClaudeObserver({
      paths: new StatePaths(path.join(s.root, 'cold-state')),
      claudeConfigDir: s.claudeDir,
      env: {},
      isPersistent: false,
      tail: { tailBytes: 1024 },
    });
    expect((await verdict(cold, t, ms(200))).v).toMatchObject({ kind: 'inconsistent', reason: expect.stringContaining('turn ended') });
    expect((await verdict(s.observer(), t, ms(200))).v).toMatchObject({ kind: 'inconsistent' });
  });

  it('after a restart, reads only what was appended since the persisted offsets', async () => {
    const s = setup();
    const file = s.file('sess-1/subagents/agent-a1.jsonl');
    writeFileSync(file, jsonl(...Array.from({ length: 200 }, (_, i) => assistant(i, [text(`line ${i}`)], { agentId: 'a1' }))));
    const t = task({ agentId: 'a1', sessionId: 'sess-1' });
    const first = s.observer();
    await first.observe(t, ms(300));
    await first.flush(ms(300));
    const more = jsonl(assistant(400, [text('after restart')], { agentId: 'a1' }));
    appendFileSync(file, more);
    utimesSync(file, new Date(ms(400)), new Date(ms(400)));
    const second = s.observer();
    const parts = await second.observe(t, ms(401));
    expect(parts[0]).toMatchObject({ lastOutput: 'after restart', lastProgressMs: ms(400) });
    // The new line plus the newline check, plus the parent transcript probe (absent here: 0 bytes).
    expect(second.stats().bytesRead).toBe(Buffer.byteLength(more) + 1);
  });
});
