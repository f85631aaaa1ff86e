// A parent waiting on a subagent is judged with the subagent's hook activity too (issue 19 items
// 1-3): activity/<agent_id>.ndjson (written by the real hook command) shows the child at work, its
// open call, its permission dialog. A child nothing else shows (no transcript found, no progress
// line) but whose hooks do is no longer unobservable. createClaudeObserver over real files.
import { mkdirSync, utimesSync, writeFileSync as writeRaw } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHook } from '../../src/commands/hook.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import type { Task } from '../../src/contracts/state-file.js';
import { StatePaths } from '../../src/files/paths.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { createClaudeObserver } from '../../src/agents/claude-code/read/claude-observer.js';
import { assistant, jsonl, ms, payload, system, text, toolResult, toolUse, user } from '../helpers/claude-lines.js';
import { tempDir } from '../helpers/temp-dir.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const PROJECT = '-home-u-p';
const CHILD = 'a0123456789abcdef';

function setup() {
  const root = tempDir();
  const claudeDir = path.join(root, 'claude');
  const stateDir = path.join(root, 'state');
  mkdirSync(path.join(claudeDir, 'projects', PROJECT, 'sess-1', 'subagents'), { recursive: true });
  mkdirSync(stateDir);
  const file = path.join(claudeDir, 'projects', PROJECT, 'sess-1.jsonl');
  /** The parent's transcript, its mtime its newest record's time. */
  const parent = (...lines: string[]) => {
    writeRaw(file, jsonl(...lines));
    const newest = Math.max(...lines.map((l) => Date.parse(JSON.parse(l).timestamp)));
    utimesSync(file, new Date(newest), new Date(newest));
  };
  const hook = (s: number, event: string, extra: Record<string, unknown> = {}) => runHook(JSON.stringify(payload(event, extra)), { stateDir, nowMs: ms(s) });
  const observer = createClaudeObserver({ paths: new StatePaths(stateDir), claudeConfigDir: claudeDir, env: {}, homeDir: root, isPersistent: false });
  const t: Task = { taskId: 't1', ticketId: 'PROJ-1', status: 'in_progress', statusClass: 'in_flight', dispatchedAtMs: ms(0), sessionId: 'sess-1' };
  const judge = async (s: number) => assess(t, mergeObservations([observeRow(t), ...(await observer.observe(t, ms(s)))]), DEFAULT_POLICY, ms(s));
  return { parent, hook, judge };
}

/** A lead whose foreground Agent call is open and whose child's transcript is nowhere to be found. */
const waitingForeground = [
  user(0, 'review it'),
  assistant(1, [toolUse('p1', 'Agent', { description: 'review', prompt: 'p', subagent_type: 'general-purpose' })]),
];
const sub = (extra: Record<string, unknown> = {}) => ({ agent_id: CHILD, agent_type: 'general-purpose', ...extra });

describe("a parent judged with its subagent's hook activity", () => {
  it('an unseen foreground child whose hooks show it at work keeps the parent healthy, then stalls it naming the child', async () => {
    const s = setup();
    s.parent(...waitingForeground);
    // Without hooks: unknown past the window (nothing can be seen of the child).
    expect(await s.judge(200)).toMatchObject({ kind: 'unknown', unobservedChildren: ['(the subagent of Agent call p1)'] });
    await s.hook(2, 'SubagentStart', sub());
    await s.hook(150, 'PreToolUse', sub({ tool_name: 'Read', tool_input: { file_path: '/x' }, tool_use_id: 'c1' }));
    await s.hook(151, 'PostToolUse', sub({ tool_name: 'Read', tool_input: { file_path: '/x' }, tool_use_id: 'c1', tool_response: {} }));
    const v = await s.judge(200);
    expect(v).toMatchObject({ kind: 'healthy', lastProgressMs: ms(151) });
    expect(v.reason).toContain(`waiting on subagent ${CHILD}`);
    expect(v.unobservedChildren).toBeUndefined();
    // Its hooks went quiet for a whole window: the child stalled, and the parent with it.
    expect(await s.judge(272)).toMatchObject({
      kind: 'stalled',
      stallReason: 'inactivity',
      reason: expect.stringContaining(`waiting on subagent ${CHILD}, which stalled`),
    });
  });

  it("the child's open long Bash call (hooks) holds the parent's window", async () => {
    const s = setup();
    s.parent(...waitingForeground);
    await s.hook(2, 'SubagentStart', sub());
    await s.hook(10, 'PreToolUse', sub({ tool_name: 'Bash', tool_input: { command: 'npm run e2e', timeout: 600_000 }, tool_use_id: 'c1' }));
    expect(await s.judge(500)).toMatchObject({ kind: 'healthy', lastTool: 'Bash', exemptions: expect.arrayContaining(['bash_long_timeout']) });
  });

  it("the child's permission dialog (PermissionRequest, filed under its agent_id) makes the parent wait for a human, naming the child", async () => {
    const s = setup();
    s.parent(...waitingForeground);
    await s.hook(2, 'SubagentStart', sub());
    await s.hook(10, 'PreToolUse', sub({ tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, tool_use_id: 'c1' }));
    await s.hook(10, 'PermissionRequest', sub({ tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, permission_suggestions: [] }));
    const v = await s.judge(900);
    expect(v).toMatchObject({ kind: 'waiting_human' });
    expect(v.reason).toContain(`in subagent ${CHILD}: permission dialog for Bash: rm -rf build`);
  });

  it('a background child with no transcript found but hooks at work is judged by them, not unobservable', async () => {
    const s = setup();
    s.parent(
      user(0, 'review it in the background'),
      assistant(1, [toolUse('p1', 'Agent', { description: 'review', prompt: 'p', run_in_background: true })]),
      user(2, [toolResult('p1', [text(`Async agent launched successfully.\nagentId: ${CHILD} (internal ID)`)])]),
      assistant(3, [text('It runs in the background; I will wait for it.')]),
      system(3.5, 'turn_duration'),
    );
    expect(await s.judge(200)).toMatchObject({ kind: 'unknown', unobservedChildren: [CHILD] });
    await s.hook(180, 'PreToolUse', sub({ tool_name: 'Grep', tool_input: { pattern: 'x' }, tool_use_id: 'c1' }));
    expect(await s.judge(200)).toMatchObject({ kind: 'healthy', reason: expect.stringContaining(`waiting on background subagent ${CHILD}`) });
  });

  it('a sibling the parent launched in the background is never taken for an unseen foreground child', async () => {
    const s = setup();
    const sibling = 'afedcba9876543210';
    s.parent(
      user(0, 'two reviews'),
      assistant(1, [toolUse('p0', 'Agent', { description: 'bg', prompt: 'q', run_in_background: true })]),
      user(1.5, [toolResult('p0', [text(`Async agent launched successfully.\nagentId: ${sibling} (internal ID)`)])]),
      assistant(2, [toolUse('p1', 'Agent', { description: 'fg', prompt: 'p' })]),
    );
    await s.hook(190, 'PreToolUse', { agent_id: sibling, tool_name: 'Grep', tool_input: { pattern: 'y' }, tool_use_id: 'c9' });
    // Another session's child is not this parent's either.
    await s.hook(190, 'PreToolUse', {
      session_id: 'sess-2',
      agent_id: 'a1111111111111111',
      tool_name: 'Grep',
      tool_input: { pattern: 'z' },
      tool_use_id: 'c8',
    });
    expect(await s.judge(200)).toMatchObject({ kind: 'unknown', unobservedChildren: ['(the subagent of Agent call p1)'] });
  });
});
