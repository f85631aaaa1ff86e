// The Codex rollout parser and what it tells the judge (issue 35 item 2), on records shaped as
// Codex 0.171.0 writes them (../shared/reference/codex-0.171.0.md §3 samples).
import { describe, expect, it } from 'vitest';
import { codexCallBudget } from '../../src/agents/codex/parse/call-budget.js';
import { emptyExecEvents, foldExecEvent } from '../../src/agents/codex/parse/exec-events.js';
import { observeCodexThread, type CodexLiveness } from '../../src/agents/codex/parse/observe-rollout.js';
import { parseProcLocks } from '../../src/agents/codex/parse/proc-locks.js';
import { emptyRollout, foldRolloutLine, type RolloutState } from '../../src/agents/codex/parse/rollout.js';
import { requestReason } from '../../src/act/recovery/step-requests.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import { normalizeTask } from '../../src/contracts/state-file.js';

const T0 = Date.parse('2026-12-05T12:10:00.000Z');
const THREAD = '01a2461c-a06c-7772-8000-000000000001';
let ord = 0;
const rec = (atS: number, type: string, payload: Record<string, unknown>) =>
  JSON.stringify({ timestamp: new Date(T0 + atS * 1000).toISOString(), ordinal: ord++, type, payload });
const meta = rec(0, 'session_meta', { id: THREAD, cwd: '/work/agent', originator: 'codex_exec', cli_version: '0.171.0' });
const started = (at: number, turn = 't1') => rec(at, 'event_msg', { type: 'task_started', turn_id: turn });
const fcall = (at: number, name: string, args: Record<string, unknown>, id: string) =>
  rec(at, 'response_item', { type: 'function_call', name, arguments: JSON.stringify(args), call_id: id });
const fout = (at: number, id: string, output: string) => rec(at, 'response_item', { type: 'function_call_output', call_id: id, output });
const complete = (at: number, extra: Record<string, unknown> = {}) =>
  rec(at, 'event_msg', { type: 'task_complete', turn_id: 't1', last_agent_message: 'done', ...extra });
const failed = (at: number, message: string, info: unknown) => complete(at, { last_agent_message: null, error: { message, codex_error_info: info } });

const fold = (lines: string[]): RolloutState => lines.reduce(foldRolloutLine, emptyRollout());
const ALIVE: CodexLiveness = { owner: 'alive', ownerPid: 42, commands: 1 };
const GONE: CodexLiveness = { owner: 'gone', how: 'pid 41 gone, thread lock not held' };
const task = normalizeTask({ ticket_id: 'CX-1', status: 'in_progress', session_id: THREAD, agent: 'codex' } as never, T0);
const policy = { ...DEFAULT_POLICY, baseTimeoutMs: 10_000 };
const judge = (lines: string[], atS: number, live = ALIVE) =>
  assess(task, mergeObservations([observeCodexThread(fold(lines), '/x/rollout.jsonl', live)]), policy, T0 + atS * 1000);

describe('codex rollout', () => {
  it('an open exec_command is a shell call whose budget is its own yield; its output closes it', () => {
    const s = fold([meta, started(0.2), fcall(0.6, 'exec_command', { cmd: 'sleep 20; echo hi', yield_time_ms: 30000 }, 'c1')]);
    expect(s.lastCall).toMatchObject({ name: 'exec_command', kind: 'shell', command: 'sleep 20; echo hi', timeoutMs: 30000, isOpen: true, toolUseId: 'c1' });
    expect(s.cwd).toBe('/work/agent');
    foldRolloutLine(s, fout(20.8, 'c1', 'Chunk ID: e4\nWall time: 19.9 seconds\nProcess exited with code 0\nOutput:\nhi\n'));
    expect(s.lastCall?.isOpen).toBe(false);
    expect(s.open.size).toBe(0);
  });

  it('a long command yields and is polled: each call is inside its own budget, so it stays healthy past the window', () => {
    const lines = [
      meta,
      started(0.2),
      fcall(0.6, 'exec_command', { cmd: 'sleep 90', yield_time_ms: 30000 }, 'c1'),
      fout(30.6, 'c1', 'Process running with session ID 98495\n'),
      fcall(30.8, 'write_stdin', { session_id: 98495, chars: '', yield_time_ms: 60000 }, 'c2'),
    ];
    expect(judge(lines.slice(0, 3), 29).kind).toBe('healthy');
    expect(judge(lines, 89).kind).toBe('healthy');
    expect(judge(lines, 89).exemptions).toContain('open_tool_call');
    // Past the poll's own budget plus grace, it is an overrun.
    expect(judge(lines, 30.8 + 60 + 60 + 1)).toMatchObject({ kind: 'stalled', stallReason: 'open_tool_overrun' });
  });

  it('a silent turn with no call open (a frozen stream, before or after headers) stalls after the window', () => {
    const lines = [meta, started(0.2), rec(0.6, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] })];
    expect(judge(lines, 10.6).kind).toBe('healthy');
    expect(judge(lines, 10.7)).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
  });

  it('task_complete without error is the agent finished; with error it gave up, by kind', () => {
    expect(judge([meta, started(0.2), complete(1)], 2)).toMatchObject({ kind: 'inconsistent', disagreement: { kind: 'agent_finished' } });
    expect(judge([meta, started(0.2), failed(25, 'We’re currently experiencing high demand', 'internal_server_error')], 25.1)).toMatchObject({
      kind: 'stalled',
      stallReason: 'api_gave_up',
      transportCause: 'overloaded',
    });
    expect(
      judge(
        [
          meta,
          started(0.2),
          failed(1, 'exceeded retry limit, last status: 429 Too Many Requests', { response_too_many_failed_attempts: { http_status_code: 429 } }),
        ],
        1.1,
      ),
    ).toMatchObject({ kind: 'stalled', transportCause: 'rate_limit' });
    expect(judge([meta, started(0.2), failed(96, 'stream disconnected before completion: idle timeout waiting for SSE', 'other')], 96.1)).toMatchObject({
      kind: 'stalled',
      transportCause: 'connection',
    });
  });

  it('a usage-limit give-up is a usage_limit failure at once, named as such, never waiting_human', () => {
    const v = judge([meta, started(0.2), failed(0.3, 'You’ve hit your usage limit. Upgrade to Pro or try again later.', 'usage_limit_exceeded')], 0.4, GONE);
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'usage_limit' });
    expect(v.transportCause).toBeUndefined(); // never resumed into the same wall
    // A request for a person (a mailbox escalation) says so, not "stalled, idle 0s".
    expect(requestReason({ stallReason: 'usage_limit', idleSeconds: 0, task })).toMatch(/^failed: usage_limit, the agent hit its usage limit/);
    expect(v.reason).toBe(
      'the agent hit its usage limit: You’ve hit your usage limit. Upgrade to Pro or try again later. (codex_error_info usage_limit_exceeded)',
    );
  });

  it('refused credentials (401/403, measured on 0.171.0) are auth_failed; other HTTP errors a give-up', () => {
    for (const status of [401, 403]) {
      const message = `unexpected status ${status} ${status === 401 ? 'Unauthorized' : 'Forbidden'}: Incorrect API key provided., url: http://127.0.0.1:1/v1/responses`;
      const v = judge([meta, started(0.2), failed(0.3, message, { http_connection_failed: { http_status_code: status } })], 0.4, GONE);
      expect(v).toMatchObject({ kind: 'stalled', stallReason: 'auth_failed' });
      expect(v.transportCause).toBeUndefined();
    }
    const other = judge(
      [meta, started(0.2), failed(0.3, 'unexpected status 400 Bad Request', { http_connection_failed: { http_status_code: 400 } })],
      0.4,
      GONE,
    );
    expect(other).toMatchObject({ kind: 'stalled', stallReason: 'api_gave_up' });
  });

  it('no live owner and no end record: dead at once, not a window later', () => {
    const v = judge([meta, started(0.2), fcall(0.6, 'exec_command', { cmd: 'sleep 60' }, 'c1')], 1, GONE);
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'agent_died' });
    expect(v.reason).toMatch(/^the agent process died: no process holds the thread \(pid 41 gone, thread lock not held\)/);
    // With the owner alive the same records are a healthy open call.
    expect(judge([meta, started(0.2), fcall(0.6, 'exec_command', { cmd: 'sleep 60' }, 'c1')], 1).kind).toBe('healthy');
  });

  it('turn_aborted is an interrupt; a resume opens a new turn that clears the old end', () => {
    const aborted = [meta, started(0.2), rec(5, 'event_msg', { type: 'turn_aborted', turn_id: 't1', reason: 'interrupted' })];
    expect(judge(aborted, 6).kind).toBe('waiting_human');
    const resumed = [...aborted, started(30, 't2')];
    expect(fold(resumed).turn?.id).toBe('t2');
    expect(fold(resumed).turn?.end).toBeUndefined();
    expect(judge(resumed, 31).kind).toBe('healthy');
  });

  it('token_count info:null counts stream retries; torn and foreign lines are counted, never thrown', () => {
    const s = fold([
      meta,
      started(0.2),
      rec(300, 'event_msg', { type: 'token_count', info: null, rate_limits: null }),
      '{"timestamp":"2026-12-05T12:',
      'not json',
    ]);
    expect(s.streamRetries).toBe(1);
    expect(s.badLines).toBe(2);
    expect(s.lastRecordMs).toBe(T0 + 300_000);
  });

  it('call budgets follow Codex 0.171 rules', () => {
    expect(codexCallBudget('exec_command', { cmd: 'x' }).timeoutMs).toBe(10_000);
    expect(codexCallBudget('exec_command', { cmd: 'x', yield_time_ms: 90_000 }).timeoutMs).toBe(30_000);
    expect(codexCallBudget('write_stdin', { session_id: 1, chars: '' }).timeoutMs).toBe(300_000);
    expect(codexCallBudget('write_stdin', { session_id: 1, chars: '', yield_time_ms: 1000 }).timeoutMs).toBe(5_000);
    expect(codexCallBudget('exec', {}, '// @exec: {"yield_time_ms": 5000}\nawait tools.exec_command({cmd: "sleep 20"})')).toMatchObject({
      kind: 'shell',
      timeoutMs: 5000,
    });
    expect(codexCallBudget('wait_agent', { targets: ['a'], timeout_ms: 60_000 })).toMatchObject({ kind: 'subagent', timeoutMs: 60_000 });
  });

  it('stdout: a retry announcement is backoff until the next item or the turn end', () => {
    const s = emptyExecEvents();
    for (const l of [
      '{"type":"thread.started","thread_id":"T"}',
      '{"type":"turn.started"}',
      '{"type":"error","message":"Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)"}',
    ])
      foldExecEvent(s, l);
    expect(s).toMatchObject({ threadId: 'T', retries: 1 });
    expect(s.retrying).toMatch(/429/);
    foldExecEvent(s, '{"type":"item.completed","item":{"type":"agent_message","text":"hi"}}');
    expect(s.retrying).toBeUndefined();
    foldExecEvent(s, '{"type":"turn.failed","error":{"message":"boom"}}');
    expect(s.turnEnd).toEqual({ kind: 'failed', message: 'boom' });
  });

  it('/proc/locks: FLOCK holders with their inode', () => {
    const text =
      '1: POSIX  ADVISORY  WRITE 99 08:01:5 0 EOF\n2: FLOCK  ADVISORY  WRITE 12345 00:2f:1234567 0 EOF\n2: -> FLOCK  ADVISORY  WRITE 777 00:2f:1234567 0 EOF\n';
    expect(parseProcLocks(text)).toEqual([{ pid: 12345, device: '00:2f', inode: 1234567 }]);
  });
});
