// The Codex harness against the AgentHarness port (agents/harness.ts): which rows it reads, the
// kinds and budgets of its calls, its command templates, finding a rollout, and replay.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexHarness } from '../../src/agents/codex/harness.js';
import { normalizeTask } from '../../src/contracts/state-file.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { StatePaths } from '../../src/files/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

const THREAD = '01a2461c-a06c-7772-8000-00000000abcd';
const row = (extra: Record<string, unknown>) => normalizeTask({ ticket_id: 'CX-1', status: 'in_progress', ...extra } as never, undefined);
const rec = (iso: string, type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: iso, ordinal: 0, type, payload });

describe('the Codex harness', () => {
  it('reads only rows that say agent: codex', () => {
    expect(codexHarness.readsRow(row({ agent: 'codex' }))).toBe(true);
    expect(codexHarness.readsRow(row({}))).toBe(false);
    expect(codexHarness.readsRow(row({ agent: 'claude-code' }))).toBe(false);
  });

  it('classifies its calls by kind, with the budgets Codex gives them', () => {
    expect(codexHarness.classifyTool({ name: 'exec_command' })).toEqual({ kind: 'shell', defaultTimeoutMs: 10_000 });
    expect(codexHarness.classifyTool({ name: 'write_stdin' })).toEqual({ kind: 'shell', defaultTimeoutMs: 300_000, isStatusPoll: true });
    expect(codexHarness.classifyTool({ name: 'wait_agent' })).toMatchObject({ kind: 'subagent' });
    expect(codexHarness.classifyTool({ name: 'mcp__fs__read' })).toEqual({ kind: 'mcp' });
  });

  it('resumes with codex exec resume {session_id} and relaunches with codex exec, never --ephemeral', () => {
    expect(codexHarness.commands.resume.slice(0, 4)).toEqual(['codex', 'exec', 'resume', '{session_id}']);
    expect(codexHarness.commands.redispatch.at(-1)).toBe('{prompt}');
    for (const argv of Object.values(codexHarness.commands)) {
      expect(argv).toContain('--json');
      expect(argv).not.toContain('--ephemeral');
    }
  });

  it("finds a thread's rollout in the dated directories of CODEX_HOME, and says where it looked when it cannot", async () => {
    const home = tempDir();
    const day = path.join(home, 'sessions', '2026', '12', '05');
    mkdirSync(day, { recursive: true });
    const file = path.join(day, `rollout-2026-12-05T12-10-00-${THREAD}.jsonl`);
    writeFileSync(file, '');
    const s = codexHarness.connect({ paths: new StatePaths(tempDir()), config: {}, env: { CODEX_HOME: home }, isPersistent: false, baseTimeoutMs: 120_000 });
    expect(await s.findFiles(row({ agent: 'codex', session_id: THREAD }), Date.now())).toEqual({ transcript: file });
    expect((await s.findFiles(row({ agent: 'codex', session_id: '01a2461c-0000-7000-8000-000000000000' }), Date.now())).reason).toMatch(
      /no rollout-.*\.jsonl under/,
    );
    expect(s.observers).toHaveLength(1);
  });

  it("gives another CLI's row the same empty parts every time, so a steady check still reuses its observation", async () => {
    const o = codexHarness.connect({ paths: new StatePaths(tempDir()), config: {}, env: {}, isPersistent: false, baseTimeoutMs: 120_000 }).observers[0]!;
    const claudeRow = row({ session_id: THREAD });
    const first = await o.observe(claudeRow, 0);
    expect(first).toEqual([]);
    expect(await o.observe(claudeRow, 1)).toBe(first);
    expect(o.observeUnchanged?.(claudeRow, 2)).toBe(first);
    expect(o.observeUnchanged?.(row({ agent: 'codex', session_id: THREAD }), 2)).toBeUndefined();
  });

  it('replays a rollout: healthy while a call is open, a stall where the silence after it outran the window', () => {
    const text = [
      rec('2026-12-05T12:00:00.000Z', 'session_meta', { id: THREAD, cwd: '/w' }),
      rec('2026-12-05T12:00:00.100Z', 'event_msg', { type: 'task_started', turn_id: 't' }),
      rec('2026-12-05T12:00:00.500Z', 'response_item', {
        type: 'function_call',
        name: 'exec_command',
        arguments: '{"cmd":"sleep 20","yield_time_ms":30000}',
        call_id: 'c1',
      }),
      rec('2026-12-05T12:00:20.500Z', 'response_item', { type: 'function_call_output', call_id: 'c1', output: 'Process exited with code 0' }),
      rec('2026-12-05T12:03:00.000Z', 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }),
    ].join('\n');
    const r = codexHarness.replay.replay({ transcript: { file: 'r.jsonl', text } }, { ...DEFAULT_POLICY, baseTimeoutMs: 60_000 });
    expect(r.summary).toMatchObject({ records: 5, stalls: 2, falseAlarms: 1, atEnd: 1 });
    expect(r.changes.find((c) => c.outcome === 'false_alarm')?.atMs).toBe(Date.parse('2026-12-05T12:01:20.501Z'));
    expect(r.badLines).toEqual([]);
  });
});

describe("the watchdog's own Codex replacement", () => {
  it("is read by the Codex harness: the redispatch carries the row's agent, and its --json stdout is not taken for a rollout", async () => {
    const { replacementTask } = await import('../../src/core/overlay.js');
    const { harnessOf } = await import('../../src/agents/harnesses.js');
    const e = {
      event: 'redispatch',
      timestamp_utc: '2026-12-05T12:00:00.000Z',
      epic_id: 'E',
      task_id: 't1',
      ticket_id: 'CX-1',
      key: 'E:t1:redispatch:1',
      redispatch_attempt: 1,
      recovery_task_id: 't1-r1',
      output_path: 'agents/E/t1-r1.log',
      agent: 'codex',
      pid: 4242,
    } as never;
    const task = replacementTask(e, '/state', 'alive');
    expect(task.agent).toBe('codex');
    expect(harnessOf(task)?.name).toBe('codex');
    const s = codexHarness.connect({
      paths: new StatePaths(tempDir()),
      config: {},
      env: { CODEX_HOME: tempDir() },
      isPersistent: false,
      baseTimeoutMs: 120_000,
    });
    expect((await s.findFiles(task, Date.now())).transcript).toBeUndefined();
    // Without the agent, as before: a Claude Code replacement.
    expect(harnessOf(replacementTask({ ...(e as object), agent: undefined } as never, '/state', 'alive'))?.name).toBe('claude-code');
  });
});
