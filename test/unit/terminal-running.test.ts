// A row that says terminal while its agent still runs (issue 20 item 3): what counts as the agent
// still at work, and which terminal rows are watched for it. Pure.
import { describe, expect, it } from 'vitest';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { watchesTerminalRow } from '../../src/core/terminal-watch.js';
import { makeObs, makeTask, T0 } from '../helpers/builders.js';

const S = 1000;
const done = makeTask({ status: 'completed', statusClass: 'terminal', terminalSinceMs: T0, sessionId: 's-1' });

describe('a terminal row whose agent runs on', () => {
  it.each([
    ['records going on 30 s after the row turned terminal', done, makeObs({ sources: ['transcript'], lastProgressMs: T0 + 30 * S }), true],
    ['its process output growing after it', done, makeObs({ sources: ['process'], outputGrewAtMs: T0 + 30 * S }), true],
    ["the agent's last words a second after the row turned terminal", done, makeObs({ sources: ['transcript'], lastProgressMs: T0 + 1 * S }), false],
    [
      'records after it, then a finish',
      done,
      makeObs({ sources: ['transcript'], lastProgressMs: T0 + 30 * S, finished: { kind: 'turn ended', atMs: T0 + 31 * S } }),
      false,
    ],
    ['records after it, but silent for a whole window since', done, makeObs({ sources: ['transcript'], lastProgressMs: T0 + 30 * S }), false, 30 * S + 121 * S],
    ["the row's process alive, nothing says it finished", makeTask({ ...done, pid: 4242 }), makeObs({ isProcessAlive: true }), true],
    [
      "the row's process alive, its turn over (an idle session)",
      makeTask({ ...done, pid: 4242 }),
      makeObs({ isProcessAlive: true, finished: { kind: 'turn ended', atMs: T0 - S } }),
      false,
    ],
    ["the session's process alive (no pid in the row): an idle session is no work", done, makeObs({ sources: ['process'], isProcessAlive: true }), false],
    ['its process gone', makeTask({ ...done, pid: 4242 }), makeObs({ isProcessAlive: false, lastProgressMs: T0 + 30 * S }), false],
  ] as const)('%s → still running: %s', (_n, task, obs, isRunning, atMs = 40 * S) => {
    const v = assess(task, obs, DEFAULT_POLICY, T0 + atMs);
    expect(v.kind).toBe(isRunning ? 'inconsistent' : 'terminal');
    if (isRunning)
      expect(v).toMatchObject({
        disagreement: { kind: 'agent_running', sinceMs: T0 },
        reason: expect.stringMatching(/^the row says "completed" but its agent is still running: /),
      });
  });

  it('is watched while it turned terminal recently or a reconcile about it waits; a row naming no agent never', () => {
    expect(watchesTerminalRow(done, T0 + 100 * S, 360 * S, false)).toBe(true);
    expect(watchesTerminalRow(done, T0 + 400 * S, 360 * S, false)).toBe(false);
    expect(watchesTerminalRow(done, T0 + 400 * S, 360 * S, true)).toBe(true);
    expect(watchesTerminalRow(makeTask({ status: 'completed', statusClass: 'terminal', terminalSinceMs: T0 }), T0, 360 * S, false)).toBe(false);
    expect(watchesTerminalRow(makeTask({ sessionId: 's-1' }), T0, 360 * S, false)).toBe(false);
  });
});
