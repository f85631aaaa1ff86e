// The live view is live (issue 21 item 3): it ticks between checks, shows an escalated task as
// escalated, keeps the end of an event line, draws idle against the window, and ends with a summary.
import { describe, expect, it } from 'vitest';
import { createWatchView } from '../../src/watch-view.js';
import type { DispatchEvent } from '../../src/contracts/events.js';
import type { CheckResult } from '../../src/check.js';
import type { Terminal } from '../../src/deps.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startWatch } from '../helpers/watch-harness.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const S = 1000;
const tty = (columns: number): Terminal => ({ isTty: true, hasColor: false, columns: () => columns });
// eslint-disable-next-line no-control-regex
const visible = (s: string) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
/** The last frame drawn. */
const lastFrame = (out: string[]) => visible(out.join('').split('\x1b[J').at(-1)!);

describe('the live view between checks and at the end', () => {
  it('ticks every second: idle and the countdown move on without a check; a bar shows idle against the window', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0) }]);
    const out: string[] = [];
    const view = createWatchView({ out: (t) => void out.push(t), err: () => undefined }, { epicId: 'E-1', terminal: tty(140) });
    // One real check's result, drawn; then ticks only.
    const result = await captureResult(dir, T0 + 60 * S);
    await view.result(result);
    expect(lastFrame(out)).toMatch(/^t1 +P-1 +healthy +60s \/ 2m00s +█████░░░░░ +10:02:00 \(in 60s\)/m);
    view.tick(T0 + 75 * S);
    expect(lastFrame(out)).toMatch(/^t1 +P-1 +healthy +75s \/ 2m00s +██████░░░░ +10:02:00 \(in 45s\)/m);
    view.tick(T0 + 130 * S);
    expect(lastFrame(out)).toMatch(/^t1 +P-1 +healthy +2m10s \/ 2m00s +██████████ +10:02:00 \(passed\)/m);
  });

  it('an escalated task shows as ESCALATED, the end of a long event line is kept, and the loop ends with a summary', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(T0 - 200 * S) }]);
    const out: string[] = [];
    const view = createWatchView({ out: (t) => void out.push(t), err: () => undefined }, { epicId: 'E-1', terminal: tty(70) });
    await view.result(await captureResult(dir, T0));
    const env = { timestamp_utc: iso(T0), epic_id: 'E-1', run_id: 'r' };
    const ids = { task_id: 't1', agent_id: 't1', ticket_id: 'P-1' };
    view.event({
      event: 'stall_detected',
      ...env,
      ...ids,
      stall_reason: 'inactivity',
      idle_seconds: 200,
      bash_timeout_exemption: false,
      redispatch_attempt: 2,
      max_redispatches: 2,
      action_taken: 'escalate',
      effective_timeout_seconds: 120,
      reason: 'no progress for 200s (window 120s) while waiting on the model after its last Read call',
    } as DispatchEvent);
    view.event({
      event: 'escalated_to_blocked',
      ...env,
      ...ids,
      attempt_count: 3,
      friction_path: 'friction/2026-04-02-stall-escalation-p-1.md',
      tracker: 'skipped',
    } as DispatchEvent);
    const frame = lastFrame(out);
    expect(frame).toMatch(/^t1 +P-1 +ESCALATED /m);
    // The counts say what the table says: escalated, not stalled.
    expect(frame).toMatch(/^1 ESCALATED( {2}|$)/m);
    expect(frame).toContain('-> escalate');
    expect(frame).toContain('p-1.md');
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(69);
    out.length = 0;
    view.finish('wave_complete');
    expect(out.join('')).toBe(
      'wave complete: 1 stall, 0 redispatches, 1 escalation (tracker\n  skipped: not moved to Blocked), 0 requests answered; time to\n  detect: 80.0 s past the window\n',
    );
    // The log's last line comes after the summary: no second table under it.
    view.event({ event: 'watchdog_stopped', ...env, reason: 'wave_complete', checks: 2 } as DispatchEvent);
    view.tick(T0 + 10 * S);
    expect(out.join('')).not.toContain('TASK');
  });

  it('the loop itself prints the summary when the wave completes', async () => {
    const dir = tempDir();
    writeWave(dir, 'E-1', iso(T0), [{ task_id: 't1', ticket_id: 'P-1', status: 'completed' }]);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', timeout: 120, checkInterval: 30 }, T0, { terminal: tty(100) });
    expect(await h.done).toBe(0);
    expect(visible(h.out.join(''))).toContain('wave complete: 0 stalls, 0 redispatches, 0 escalations, 0 requests answered\n');
  });
});

/** One check of the wave in `dir` at `nowMs`, as the loop hands it to the view. */
async function captureResult(dir: string, nowMs: number): Promise<CheckResult> {
  let captured: CheckResult | undefined;
  const { newCheckMemory, runCheck } = await import('../../src/check.js');
  const { resolveOptions } = await import('../../src/options.js');
  const { StatePaths } = await import('../../src/files/paths.js');
  const { emptyHistory } = await import('../../src/core/history.js');
  const opts = await resolveOptions({ epicId: 'E-1', stateDir: dir, action: 'report', timeout: 120, dryRun: true }, {}, process.cwd());
  captured = await runCheck(
    { paths: new StatePaths(dir), opts, observers: [], history: emptyHistory(), runId: 'r', version: '0', pid: 1 } as never,
    newCheckMemory(),
    nowMs,
  );
  return captured;
}
