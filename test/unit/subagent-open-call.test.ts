// Permission and human waits inside a subagent (issue 19 item 2): a parent waiting on a subagent
// whose progress lines (2.1.3x) mirror an open call gets that call's window, as the same call in
// the parent would (Bash: its timeout + 60 s); past it with the process alive, most likely a
// permission prompt (waiting_human), never a stall to act on; gone, the stall rule.
import { describe, expect, it } from 'vitest';
import { parseTranscriptText } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { observeTranscript } from '../../src/agents/claude-code/parse/observe-transcript.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { makeTask, T0 } from '../helpers/builders.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const base = { sessionId: 's1', version: '2.1.37', cwd: '/w' };
const prompt = { ...base, type: 'user', timestamp: at(0), message: { role: 'user', content: 'Explore the repo' } };
const task = {
  ...base,
  type: 'assistant',
  timestamp: at(1),
  message: {
    id: 'm1',
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_task', name: 'Task', input: { description: 'explore', prompt: 'look', subagent_type: 'Explore' } }],
  },
};
const progress = (s: number, message: unknown) => ({
  ...base,
  type: 'progress',
  timestamp: at(s),
  parentToolUseID: 'toolu_task',
  data: { type: 'agent_progress', agentId: 'aff51cf', message },
});
const childBash = progress(5, {
  type: 'assistant',
  message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'npm install', description: 'install' } }] },
});
const childResult = progress(9, { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_b', content: 'ok' }] } });
const text = (...recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join('\n') + '\n';
const obsOf = (recs: unknown[], extra: Parameters<typeof mergeObservations>[0] = []) =>
  mergeObservations([observeTranscript(parseTranscriptText(text(...recs)).state), ...extra]);

describe("a subagent's open call mirrored by its progress lines", () => {
  it("holds the parent's window like the same call in the parent (Bash with the default timeout: 120 s + 5 s; its process alive: 120 s + 60 s)", () => {
    const obs = obsOf([prompt, task, childBash]);
    expect(obs.lastTool).toMatchObject({ name: 'Bash', isOpen: true, command: 'npm install' });
    // The seed's rule: a Bash call with no timeout over 120 s of its own gets max(base, its limit + 5 s): 125 s here.
    expect(assess(makeTask(), obs, DEFAULT_POLICY, T0 + 5_000 + 125_000)).toMatchObject({
      kind: 'healthy',
      effectiveTimeoutMs: 125_000,
      exemptions: ['bash_long_timeout'],
    });
    expect(assess(makeTask(), obs, DEFAULT_POLICY, T0 + 5_000 + 125_001).kind).toBe('stalled');
    const alive = obsOf([prompt, task, childBash], [{ source: 'row', isProcessAlive: true }]);
    expect(assess(makeTask({ pid: 42 }), alive, DEFAULT_POLICY, T0 + 5_000 + 180_000)).toMatchObject({
      kind: 'healthy',
      effectiveTimeoutMs: 180_000,
      exemptions: ['bash_long_timeout', 'open_tool_call'],
    });
  });

  it("past it, with the session's process alive, is most likely a permission prompt: waiting_human", () => {
    const obs = obsOf([prompt, task, childBash], [{ source: 'row', isProcessAlive: true }]);
    expect(assess(makeTask({ pid: 42 }), obs, DEFAULT_POLICY, T0 + 5_000 + 180_001)).toMatchObject({ kind: 'waiting_human' });
  });

  it('past it with no process known (or gone) is an open call overrun, judged', () => {
    expect(assess(makeTask(), obsOf([prompt, task, childBash]), DEFAULT_POLICY, T0 + 5_000 + 180_001)).toMatchObject({
      kind: 'stalled',
      stallReason: 'open_tool_overrun',
    });
  });

  it('a call the subagent finished holds nothing: the base window from its last line', () => {
    const obs = obsOf([prompt, task, childBash, childResult]);
    expect(obs.lastTool).toMatchObject({ name: 'Task', isOpen: true });
    expect(assess(makeTask(), obs, DEFAULT_POLICY, T0 + 9_000 + 120_001).kind).toBe('stalled');
  });
});
