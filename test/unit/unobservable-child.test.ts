// Missing evidence never kills (issue 19 item 3): a parent waiting on a child nothing can be seen
// of is unknown past its window, named, never stalled; a parent whose process is gone is judged.
import { describe, expect, it } from 'vitest';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { buildWatchdogJson } from '../../src/core/report.js';
import { emptyHistory } from '../../src/core/history.js';
import { WatchdogJsonSchema } from '../../src/contracts/watchdog-json.js';
import { makeObs, makeTask, T0 } from '../helpers/builders.js';

const waiting = makeObs({ sources: ['transcript'], lastProgressMs: T0, waitingOnChildren: { agentIds: ['a0123456789abcdef'], isBackground: true, unseenIds: ['a0123456789abcdef'] } });

describe('a parent waiting on an unobservable child', () => {
  it('is healthy within its window, then unknown (not stalled), naming the child', () => {
    expect(assess(makeTask(), waiting, DEFAULT_POLICY, T0 + 120_000).kind).toBe('healthy');
    const v = assess(makeTask(), waiting, DEFAULT_POLICY, T0 + 120_001);
    expect(v).toMatchObject({ kind: 'unknown', unobservedChildren: ['a0123456789abcdef'] });
    expect(v.stallReason).toBeUndefined();
    expect(v.reason).toContain('no transcript found for a0123456789abcdef, so its silence cannot be judged; not acted on');
  });

  it('is judged by the stall rule once its own process is gone (nothing can wake it)', () => {
    const gone = { ...waiting, isProcessAlive: false };
    expect(assess(makeTask({ pid: 4242 }), gone, DEFAULT_POLICY, T0 + 120_001)).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
  });

  it('watchdog.json lists the unobserved children, and the schema takes them', () => {
    const task = makeTask();
    const v = assess(task, waiting, DEFAULT_POLICY, T0 + 200_000);
    const plan = { events: [], actions: [], stalls: new Map(), isMassStall: false };
    const meta = { epicId: 'E-1', nowMs: T0 + 200_000, version: '0', pid: 1, runId: 'r', checkIntervalSeconds: 30, timeoutSeconds: 120, action: 'report', isNowOverridden: false };
    const json = buildWatchdogJson([task], [v], plan, emptyHistory(), meta);
    expect(json.tasks[0]).toMatchObject({ verdict: 'unknown', unobserved_children: ['a0123456789abcdef'] });
    expect(WatchdogJsonSchema.safeParse(json).success).toBe(true);
    expect(json.stalls_detected).toEqual([]);
  });
});
