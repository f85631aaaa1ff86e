// Totality where harm lives (issue 32 item 2): every action kind has its own steps and its own
// markers, from tables keyed by every kind; a kind with no steps fails, it never escalates.
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AgentAdapter, MarkerState } from '../../src/act/agents/adapter.js';
import { runSteps, STEPS, type Step } from '../../src/act/recovery/perform.js';
import { classifyAction, MARKERS, type MarkerReader } from '../../src/act/recovery/recover.js';
import type { ActionSpec, ActionSpecOf, KindFields, PerformerContext } from '../../src/act/recovery/spec.js';
import { ACTION_KINDS, type ActionKind } from '../../src/contracts/vocabulary.js';
import { foldHistory } from '../../src/core/history.js';
import { StatePaths } from '../../src/files/paths.js';
import { DispatchLog } from '../../src/journal/dispatch-log.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { readEvents } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');

// Type-level: a table that leaves out a kind does not compile (tsc -p tsconfig.test.json checks these).
// @ts-expect-error escalate has no steps
const stepsWithoutEscalate: { readonly [K in ActionKind]: Step<K> } = {
  cancel: STEPS.cancel,
  redispatch: STEPS.redispatch,
  nudge: STEPS.nudge,
  reconcile: STEPS.reconcile,
};
// @ts-expect-error nudge has no markers
const markersWithoutNudge: { readonly [K in ActionKind]: MarkerReader<K> } = {
  cancel: MARKERS.cancel,
  redispatch: MARKERS.redispatch,
  escalate: MARKERS.escalate,
  reconcile: MARKERS.reconcile,
};
// A new kind is a new key of every table: one without its entry does not compile either.
type WithNewKind = ActionKind | 'teleport';
// @ts-expect-error teleport has no fields
const fieldsWithNewKind: { readonly [K in WithNewKind]: object } = { cancel: {}, redispatch: {}, escalate: {}, nudge: {}, reconcile: {} } satisfies KindFields;
// A kind's fields belong to it alone: a cancel has no nudge route.
const cancelWithRoute: ActionSpecOf<'cancel'> = {
  kind: 'cancel',
  key: 'E-1:t1:cancel',
  task: { taskId: 't1', ticketId: 'P-1', status: 'in_progress', statusClass: 'in_flight' },
  attempt: 1,
  stallReason: 'inactivity',
  idleSeconds: 1,
  // @ts-expect-error route is a nudge's field
  route: 'inbox',
};
void [stepsWithoutEscalate, markersWithoutNudge, fieldsWithNewKind, cancelWithRoute];

/** An adapter that counts what it is asked to do and does nothing. */
function countingAdapter(): AgentAdapter & { calls: string[] } {
  const calls: string[] = [];
  const refuse = (op: string) => async (): Promise<never> => {
    calls.push(op);
    throw new Error(`${op} must not fire`);
  };
  const absent = (op: string) => async (): Promise<MarkerState> => (calls.push(op), 'absent');
  return {
    name: 'mailbox',
    calls,
    cancel: refuse('cancel'),
    redispatch: refuse('redispatch'),
    nudge: refuse('nudge'),
    cancelMarker: absent('cancelMarker'),
    redispatchMarker: absent('redispatchMarker'),
    nudgeMarker: absent('nudgeMarker'),
  };
}

function context(dir: string, adapter: AgentAdapter): PerformerContext {
  const paths = new StatePaths(dir);
  const clock = new ManualClock(T0);
  return {
    epicId: 'E-1',
    paths,
    log: new DispatchLog(paths, 'E-1', 'run-1', () => clock.nowMs()),
    history: foldHistory([], 'E-1'),
    adapter,
    clock,
    maxRedispatches: 2,
    tracker: { blockedStateName: 'Blocked' },
  };
}

/** A spec of a kind this version has no steps for (a bug, or a newer version's record forced through). */
const unknownKind = (): ActionSpec =>
  ({
    kind: 'teleport' as ActionKind,
    key: 'E-1:t1:teleport',
    task: { taskId: 't1', ticketId: 'P-1', status: 'in_progress', statusClass: 'in_flight' },
    attempt: 3,
    stallReason: 'inactivity',
    idleSeconds: 900,
  }) as ActionSpec;

describe('action kinds are total', () => {
  it('every kind has its steps and its markers, and no table has a key that is not a kind', () => {
    expect(Object.keys(STEPS).sort()).toEqual([...ACTION_KINDS].sort());
    expect(Object.keys(MARKERS).sort()).toEqual([...ACTION_KINDS].sort());
  });

  it('a kind with no steps fails the action, not retryable, and never reaches escalation', async () => {
    const dir = tempDir();
    const adapter = countingAdapter();
    const ctx = context(dir, adapter);
    await runSteps(ctx, unknownKind());
    const events = readEvents(dir);
    expect(events.map((e) => e.event)).toEqual(['action_failed']);
    expect(events[0]).toMatchObject({ key: 'E-1:t1:teleport', retryable: false });
    expect(String(events[0]!.error)).toContain('no steps for action kind "teleport"');
    expect(adapter.calls).toEqual([]); // the agent was not stopped
    const friction = new StatePaths(dir).frictionDir();
    expect(existsSync(friction) ? readdirSync(friction) : []).toEqual([]); // no escalation note
    expect(existsSync(new StatePaths(dir).requestsDir('E-1')) ? readdirSync(new StatePaths(dir).requestsDir('E-1')) : []).toEqual([]);
  });

  it('start-up recovery calls an action of a kind with no markers an orphan (never re-fired)', async () => {
    const adapter = countingAdapter();
    const c = await classifyAction(context(tempDir(), adapter), unknownKind());
    expect(c).toEqual({ kind: 'orphan', detail: 'no markers are known for action kind "teleport"' });
    expect(adapter.calls).toEqual([]);
  });

  it.each(ACTION_KINDS.filter((k) => k !== 'redispatch' && k !== 'escalate'))('%s reads only its own markers', async (kind) => {
    const adapter = countingAdapter();
    const spec = { ...unknownKind(), kind, key: `E-1:t1:${kind}` } as ActionSpec;
    const c = await classifyAction(context(tempDir(), adapter), spec);
    expect(c.kind).toBe('safe_to_finish');
    expect(adapter.calls).toEqual(kind === 'cancel' ? ['cancelMarker'] : kind === 'nudge' ? ['nudgeMarker'] : []);
  });
});
