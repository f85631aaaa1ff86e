// The live view of the watch loop, on a fake terminal (isTTY and columns injected) and on a pipe.
import { describe, expect, it } from 'vitest';
import type { Terminal } from '../../src/deps.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startWatch } from '../helpers/watch-harness.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const S = 1000;
const tty = (columns: number, hasColor = false): Terminal => ({ isTty: true, hasColor, columns: () => columns });
// eslint-disable-next-line no-control-regex
const visible = (s: string) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');

function wave(dir: string, t1Activity = T0) {
  writeWave(dir, 'E-1', iso(T0), [
    { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: iso(t1Activity) },
    { task_id: 't2', ticket_id: 'P-2', status: 'in_progress', last_activity_ts: iso(T0), last_tool_name: 'Bash', last_tool_timeout_ms: 600_000 },
    { task_id: 't3', ticket_id: 'P-3', status: 'x'.repeat(300) },
    { task_id: 't4', ticket_id: 'P-4', status: 'merged' },
  ]);
}

describe('the live view on a terminal', () => {
  it('draws the wave as a table, redraws it in place after each check, events below, every line within the width', async () => {
    const dir = tempDir();
    wave(dir);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', timeout: 120, checkInterval: 30 }, T0, { terminal: tty(100) });
    const first = h.out.join('');
    const frame = visible(first).split('\n');
    expect(frame.slice(0, 9)).toEqual([
      'dispatch-watchdog  epic E-1  checked 10:00:00  action report  base window 120s',
      '2 healthy, 1 unknown, 1 done  next possible stall: t1 (P-1) at 10:02:00 (in 2m00s)',
      '',
      'TASK  TICKET  VERDICT        IDLE / WINDOW  STALLS AT             REQUESTS  WHY',
      't1    P-1     healthy        0s / 2m00s     10:02:00 (in 2m00s)   -         -',
      't2    P-2     healthy        0s / 11m00s    10:11:00 (in 11m00s)  -         bash_long_timeout: lon…',
      expect.stringMatching(/^t3 {4}P-3 {5}unknown {8}- {14}- {21}- {9}status "x{10,}…$/),
      't4    P-4     done (merged)  -              -                     -         -',
      '',
    ]);
    expect(frame.slice(9)).toContain('10:00:00 watching epic E-1 (action report, window 120s, pid ' + process.pid + ')');
    for (const line of frame) expect(line.length).toBeLessThanOrEqual(99);

    h.out.length = 0;
    await h.advance(121 * S);
    const second = h.out.join('');
    // Back to the top of the previous frame and clear, then the new frame with t1 stalled.
    expect(second.startsWith(`\x1b[${frame.length - 1}F\x1b[J`)).toBe(true);
    // The loop wakes at t1's deadline, a moment past the window.
    expect(visible(second)).toMatch(/^t1 {4}P-1 {5}STALLED +>2m00s \/ 2m00s .* no progress for 120\.0/m);
    expect(visible(second)).toMatch(/^10:02:00 t1 \(P-1\) STALLED: no progress for 120\.\d{3}s \(window 120s\)/m);
    h.stop();
    expect(await h.done).toBe(0);
  });

  it('fits a narrow terminal by dropping columns, and colours the verdict only when allowed', async () => {
    const dir = tempDir();
    wave(dir, T0 - 200 * S);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', timeout: 120, checkInterval: 30 }, T0, { terminal: tty(50, true) });
    const text = h.out.join('');
    expect(text).toContain('\x1b[31;1mSTALLED');
    const lines = visible(text).split('\n');
    expect(lines[3]).toBe('TASK  VERDICT        IDLE / WINDOW  WHY');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(49);
    h.stop();
    await h.done;
  });
});

describe('the live view on a pipe (or TERM=dumb)', () => {
  it('prints events, what changed and a heartbeat every few minutes, and no escape sequence', async () => {
    const dir = tempDir();
    wave(dir);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', timeout: 120, checkInterval: 30 }, T0, { heartbeatMs: 60 * S });
    expect(h.out.join('')).toContain('10:00:00 t2 (P-2) exempt, window 11m00s: bash_long_timeout: long Bash call (its own timeout)\n');
    expect(h.out.join('')).toContain('10:00:00 still watching epic E-1: 2 healthy, 1 unknown, 1 done; next possible stall t1 (P-1) at 10:02:00 (in 2m00s)\n');
    h.out.length = 0;
    await h.advance(30 * S);
    expect(h.out).toEqual([]); // quiet and healthy: nothing until the heartbeat is due
    wave(dir, T0 + 40 * S);
    await h.advance(30 * S);
    expect(h.out.join('')).toBe('10:01:00 still watching epic E-1: 2 healthy, 1 unknown, 1 done; next possible stall t1 (P-1) at 10:02:40 (in 100s)\n');
    h.out.length = 0;
    writeWave(dir, 'E-1', iso(T0), [
      { task_id: 't1', ticket_id: 'P-1', status: 'merged' },
      { task_id: 't2', ticket_id: 'P-2', status: 'in_progress', last_activity_ts: iso(T0 + 60 * S) },
      { task_id: 't3', ticket_id: 'P-3', status: 'blocked' },
      { task_id: 't4', ticket_id: 'P-4', status: 'merged' },
    ]);
    await h.advance(30 * S);
    const text = h.out.join('');
    expect(text).toContain('10:01:30 t1 (P-1) finished: merged\n');
    expect(text).toContain('10:01:30 t3 (P-3) is blocked\n');
    // t2 lost its tool fields: held as it was (still exempt) until reads two intervals apart agree.
    expect(text).not.toContain('no longer exempt');
    await h.advance(30 * S);
    await h.advance(30 * S);
    expect(h.out.join('')).toContain('10:02:30 t2 (P-2) no longer exempt, window 2m00s\n');
    h.stop();
    await h.done;
    expect(h.out.join('')).not.toContain('\x1b');
  });
});
