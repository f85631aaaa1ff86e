// `dispatch-watchdog demo` as a real child process: three agent processes, the watch loop with
// the process adapter, one stall killed and redispatched exactly once, the wave completed.
// Plus the demo's own judgement (checkDemo) on a run that went wrong.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { DispatchEvent } from '../../src/contracts/events.js';
import { checkDemo, type DemoFacts } from '../../src/demo/summary.js';
import { exited, spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Every line of every day's dispatch log under `dir`. */
function logEvents(dir: string): DispatchEvent[] {
  const logDir = path.join(dir, 'dispatch-log');
  return readdirSync(logDir)
    .filter((n) => n.endsWith('.ndjson'))
    .sort()
    .flatMap((n) => readFileSync(path.join(logDir, n), 'utf8').split('\n').filter(Boolean))
    .map((l) => JSON.parse(l) as DispatchEvent);
}

describe('dispatch-watchdog demo', () => {
  it('detects the stalled agent, kills and redispatches it once, and completes the wave', { timeout: 45_000 }, async () => {
    // The demo makes its own temp dir under TMPDIR; this one is removed after the test.
    const tmp = tempDir('dw-demo-');
    const child = spawnCli(['demo', '--keep'], { env: { TMPDIR: tmp, LINEAR_API_KEY: 'lin_api_must_not_be_used' } });
    const { code } = await exited(child);
    const out = child.output();
    expect(code, out).toBe(0);
    expect(out).toContain('the demo went as expected');
    expect(out).toMatch(/DEMO-102 \(DEMO-102\) STALLED: no progress for \d+(\.\d+)?s/);
    expect(out).toMatch(/redispatched as DEMO-102-r1/);
    expect(out).not.toContain('FAIL');
    expect(out).not.toContain('lin_api_must_not_be_used');

    const dir = /^Files \(kept in (.+)\)$/m.exec(out)?.[1];
    expect(dir, out).toBeDefined();
    expect(path.dirname(dir!)).toBe(tmp);
    const events = logEvents(dir!).filter((e) => e.epic_id === 'DEMO-1');
    const named = (name: string) => events.filter((e) => e.event === name);
    expect(named('stall_detected').map((e) => 'task_id' in e && e.task_id)).toEqual(['DEMO-102']);
    expect(named('agent_killed')).toHaveLength(1);
    expect(named('agent_killed')[0]).toMatchObject({ task_id: 'DEMO-102', step: 'stop_before_redispatch' });
    expect(named('redispatch')).toHaveLength(1);
    expect(named('redispatch')[0]).toMatchObject({ task_id: 'DEMO-102', recovery_task_id: 'DEMO-102-r1', redispatch_attempt: 1, adapter: 'process' });
    expect(named('action_failed')).toEqual([]);
    expect(named('watchdog_stopped')).toMatchObject([{ reason: 'wave_complete' }]);

    // The orchestrator role completed the two agents that finished; the watchdog never wrote its file.
    const state = parse(readFileSync(path.join(dir!, 'epics', 'DEMO-1', 'state.yaml'), 'utf8')) as {
      current_wave: { tasks: { task_id: string; status: string }[] };
    };
    expect(Object.fromEntries(state.current_wave.tasks.map((t) => [t.task_id, t.status]))).toEqual({
      'DEMO-101': 'completed',
      'DEMO-102': 'in_progress',
      'DEMO-103': 'completed',
    });
    expect(readFileSync(path.join(dir!, 'epics', 'DEMO-1', 'agents', 'DEMO-102-r1.log'), 'utf8')).toContain('Recovery complete');
    expect(readFileSync(path.join(dir!, 'epics', 'DEMO-1', 'agents', 'DEMO-102-r1.prompt.md'), 'utf8')).toContain('Add the withRetry helper');
  });
});

describe('checkDemo', () => {
  const T0 = Date.parse('2026-04-02T10:00:00Z');
  const ev = (s: number, body: Record<string, unknown>) =>
    ({ timestamp_utc: new Date(T0 + s * 1000).toISOString(), epic_id: 'DEMO-1', run_id: 'r', ...body }) as DispatchEvent;
  const ids = (task: string) => ({ ticket_id: task.replace(/-r\d+$/, ''), task_id: task, agent_id: task });
  const stall = (s: number, task: string) =>
    ev(s, {
      event: 'stall_detected',
      ...ids(task),
      stall_reason: 'inactivity',
      idle_seconds: 5,
      bash_timeout_exemption: false,
      redispatch_attempt: 1,
      max_redispatches: 2,
      action_taken: 'redispatch',
    });
  const good = (): DemoFacts => ({
    epicId: 'DEMO-1',
    t0Ms: T0,
    endMs: T0 + 24_000,
    watchExitCode: 0,
    events: [
      stall(6, 'DEMO-102'),
      ev(6.1, { event: 'agent_killed', ...ids('DEMO-102'), key: 'k' }),
      ev(6.2, { event: 'redispatch', ...ids('DEMO-102'), key: 'k', redispatch_attempt: 1, recovery_task_id: 'DEMO-102-r1' }),
      ev(24, { event: 'watchdog_stopped', reason: 'wave_complete' }),
    ],
    runs: [
      { taskId: 'DEMO-101', role: 'healthy', label: 'steady', pid: 1, exit: { code: 0, signal: null, atMs: T0 + 23_000 } },
      { taskId: 'DEMO-102', role: 'stalls', label: 'stalls', pid: 2, exit: { code: null, signal: 'SIGTERM', atMs: T0 + 6_100 } },
      { taskId: 'DEMO-103', role: 'long-bash', label: 'bash', pid: 3, exit: { code: 0, signal: null, atMs: T0 + 9_000 } },
    ],
    replacement: { pid: 4, hasFinished: true, isGone: true },
  });

  it('passes a run that went as the scenario says', () => {
    expect(checkDemo(good()).filter((c) => !c.ok)).toEqual([]);
  });

  it('fails when the long-Bash agent was flagged too, and when the demo gave up', () => {
    const f = good();
    f.events.splice(1, 0, stall(8, 'DEMO-103'));
    f.stopReason = 'gave_up';
    expect(
      checkDemo(f)
        .filter((c) => !c.ok)
        .map((c) => c.text),
    ).toEqual([
      'exactly one stall detected, on DEMO-102 (got DEMO-102, DEMO-103)',
      'the wave completed and the watchdog stopped by itself (demo gave up after 40 s)',
    ]);
  });
});
