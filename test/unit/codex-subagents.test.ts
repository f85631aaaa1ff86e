// Codex's own subagents on recorded lines shaped as 0.171.0 writes them (a real run of
// test/realagent/codex-subagents.test.ts; reference §9): the lead's `spawn_agent` names the child
// thread (its output `{agent_id}` and `item_completed CollabAgentToolCall.receiver_thread_ids`),
// its open `wait_agent` waits on `targets`, and the child's own rollout is the lead's progress.
import { describe, expect, it } from 'vitest';
import { observeCodexThread, type CodexLiveness } from '../../src/agents/codex/parse/observe-rollout.js';
import { emptyRollout, foldRolloutLine, waitedChildren, type RolloutState } from '../../src/agents/codex/parse/rollout.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { normalizeTask } from '../../src/contracts/state-file.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';

const T0 = Date.parse('2026-12-05T17:31:09.000Z');
const LEAD = '01a24742-7ae7-7ae2-bbb8-739f9d4530da';
const KID = '01a24742-7d08-7931-b62b-6a3f6281db64';
let ord = 0;
const rec = (atS: number, type: string, payload: Record<string, unknown>) =>
  JSON.stringify({ timestamp: new Date(T0 + atS * 1000).toISOString(), ordinal: ord++, type, payload });
const fcall = (at: number, name: string, args: Record<string, unknown>, id: string) =>
  rec(at, 'response_item', { type: 'function_call', name, namespace: 'multi_agent_v1', arguments: JSON.stringify(args), call_id: id });
const lead = [
  rec(0, 'session_meta', { id: LEAD, session_id: LEAD, cwd: '/w', originator: 'codex_exec', thread_source: 'user' }),
  rec(0.1, 'event_msg', { type: 'task_started', turn_id: 'lt1' }),
  fcall(0.4, 'spawn_agent', { message: 'do the work' }, 'call_s'),
  rec(0.45, 'event_msg', {
    type: 'item_completed',
    item: { type: 'CollabAgentToolCall', id: 'call_s', tool: 'spawn_agent', status: 'completed', sender_thread_id: LEAD, receiver_thread_ids: [KID] },
  }),
  rec(0.48, 'response_item', { type: 'function_call_output', call_id: 'call_s', output: JSON.stringify({ agent_id: KID, nickname: 'Pascal' }) }),
  fcall(0.59, 'wait_agent', { targets: [KID], timeout_ms: 60_000 }, 'call_w'),
];
const kid = [
  rec(0.46, 'session_meta', {
    id: KID,
    session_id: LEAD,
    parent_thread_id: LEAD,
    source: { subagent: { thread_spawn: { parent_thread_id: LEAD, depth: 1 } } },
  }),
  rec(0.47, 'event_msg', { type: 'task_started', turn_id: 'kt1' }),
  rec(0.6, 'response_item', { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"sleep 40","yield_time_ms":20000}', call_id: 'call_k' }),
];
const fold = (lines: string[]): RolloutState => lines.reduce(foldRolloutLine, emptyRollout());
const ALIVE: CodexLiveness = { owner: 'alive', ownerPid: 42 };
const policy = { ...DEFAULT_POLICY, baseTimeoutMs: 5_000 };
const task = normalizeTask({ ticket_id: 'CX-1', status: 'in_progress', session_id: LEAD, agent: 'codex' } as never, T0);
const judge = (kidLines: string[] | undefined, atS: number, rowOfAgent?: Map<string, string>) =>
  assess(
    task,
    mergeObservations([observeCodexThread(fold(lead), '/x/lead.jsonl', ALIVE, undefined, [{ threadId: KID, ...(kidLines ? { state: fold(kidLines) } : {}) }])]),
    policy,
    T0 + atS * 1000,
    rowOfAgent ? { rowOfAgent } : {},
  );

describe('codex subagents', () => {
  it('spawn_agent names the child; an open wait_agent waits on its targets', () => {
    const s = fold(lead);
    expect(s.children).toEqual([KID]);
    expect(waitedChildren(s)).toEqual([KID]);
    expect(fold(kid).parentThreadId).toBe(LEAD);
    // The wait answered: nothing waited on.
    expect(waitedChildren(fold([...lead, rec(5, 'response_item', { type: 'function_call_output', call_id: 'call_w', output: '{}' })]))).toEqual([]);
  });

  it("the child's open call holds the lead's window with its own budget; a silent child stalls the lead", () => {
    // The child's exec_command (yield 20 s) is what the lead waits on: healthy 20 s into the wait.
    const busy = judge(kid, 20);
    expect(busy.kind).toBe('healthy');
    expect(busy.lastTool).toBe('exec_command');
    expect(busy.reason).toContain(`waiting on subagent ${KID}`);
    // The child answered its call and went silent (its model frozen): the window from its last record, not the lead's 60 s wait.
    const silent = [...kid, rec(1, 'response_item', { type: 'function_call_output', call_id: 'call_k', output: 'Process exited with code 0' })];
    expect(judge(silent, 6).kind).toBe('healthy');
    expect(judge(silent, 6.01)).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
    // With a row of its own, the child is judged there and the lead deferred to it.
    expect(judge(silent, 6.01, new Map([[KID, 'CX-1-kid']]))).toMatchObject({ kind: 'healthy' });
  });

  it('a child whose rollout is not found is unseen: never acted on while the lead waits within its budget', () => {
    const v = judge(undefined, 30);
    expect(v.kind).toBe('healthy');
    expect(v.lastTool).toBe('wait_agent');
  });
});
