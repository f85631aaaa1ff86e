// Start-up recovery in-process: classification from markers, and orphans reported once.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentAdapter, MarkerState } from '../../src/act/agents/adapter.js';
import { createMailboxAdapter } from '../../src/act/agents/mailbox.js';
import type { PerformerContext } from '../../src/act/recovery/perform.js';
import { recoverUnfinished } from '../../src/act/recovery/recover.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { DispatchLog, readDispatchLog } from '../../src/journal/dispatch-log.js';
import { foldHistory } from '../../src/core/history.js';
import { StatePaths } from '../../src/files/paths.js';
import { readEvents } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');

/** Journal `action_started` for each task id, as a watchdog that then crashed would have. */
async function startedActions(dir: string, ids: string[], action: 'cancel' | 'redispatch' = 'cancel') {
  const log = new DispatchLog(new StatePaths(dir), 'E-1', 'crashed-run', () => T0);
  for (const id of ids) {
    await log.append({
      event: 'action_started',
      ticket_id: `P-${id}`,
      task_id: id,
      agent_id: id,
      key: `E-1:${id}:${action}`,
      action,
      adapter: 'mailbox',
      redispatch_attempt: 1,
    });
  }
}

/** A fresh start-up: history from the log, a new run. */
async function startUp(dir: string, adapter: AgentAdapter, runId: string) {
  const paths = new StatePaths(dir);
  const clock = new ManualClock(T0 + 60_000);
  const history = foldHistory((await readDispatchLog(paths)).events, 'E-1');
  const ctx: PerformerContext = {
    epicId: 'E-1',
    paths,
    log: new DispatchLog(paths, 'E-1', runId, () => clock.nowMs()),
    history,
    adapter,
    clock,
    maxRedispatches: 2,
    tracker: { blockedStateName: 'Blocked' },
  };
  return recoverUnfinished(ctx, { runId });
}

/** An adapter whose markers can never tell, and that must never be asked to act. */
function blindAdapter(): AgentAdapter & { calls: number } {
  const unknown = async (): Promise<MarkerState> => 'unknown';
  const adapter = {
    name: 'command' as const,
    calls: 0,
    cancelMarker: unknown,
    redispatchMarker: unknown,
    cancel: async () => {
      adapter.calls++;
      throw new Error('must not fire');
    },
    redispatch: async () => {
      adapter.calls++;
      throw new Error('must not fire');
    },
    nudgeMarker: unknown,
    nudge: async () => {
      adapter.calls++;
      throw new Error('must not fire');
    },
  };
  return adapter;
}

describe('start-up recovery', () => {
  it('a crash between the orphan note and the summary does not write a second note', async () => {
    const dir = tempDir();
    await startedActions(dir, ['x1', 'x2']);
    const adapter = blindAdapter();
    await startUp(dir, adapter, 'run-1');
    // Simulate the crash: drop the summary line, keep the note.
    const logFile = path.join(dir, 'dispatch-log', readdirSync(path.join(dir, 'dispatch-log'))[0]!);
    const kept = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((l) => l && !l.includes('recovery_summary'));
    writeFileSync(logFile, kept.join('\n') + '\n');
    await startUp(dir, adapter, 'run-2');
    expect(readdirSync(path.join(dir, 'friction'))).toHaveLength(1);
    expect(readEvents(dir).filter((e) => e.event === 'recovery_summary')).toHaveLength(1);
  });

  it('35 orphans: one recovery_summary listing 20 (15 more recorded), one friction note, never re-fired, never reported again', async () => {
    const dir = tempDir();
    const ids = Array.from({ length: 35 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    await startedActions(dir, ids);
    const adapter = blindAdapter();
    const first = await startUp(dir, adapter, 'run-1');
    expect(first.orphans).toHaveLength(35);
    const summaries = readEvents(dir).filter((e) => e.event === 'recovery_summary');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ orphan_count: 35, done: [], finished: [] });
    expect(summaries[0]!.orphans).toHaveLength(20);
    expect(summaries[0]!.more_orphans).toHaveLength(15);
    const notes = readdirSync(path.join(dir, 'friction'));
    expect(notes).toEqual([expect.stringMatching(/^2026-04-02-orphaned-actions-orphans-[0-9a-f]{12}\.md$/)]);
    const note = readFileSync(path.join(dir, 'friction', notes[0]!), 'utf8');
    expect(note).toContain('15 more not listed (35 in total)');
    expect(note.match(/E-1:t\d\d:cancel/g)).toHaveLength(20);

    const second = await startUp(dir, adapter, 'run-2');
    expect(second).toEqual({ done: [], finished: [], orphans: [], failed: [] });
    expect(readEvents(dir).filter((e) => e.event === 'recovery_summary')).toHaveLength(1);
    expect(readdirSync(path.join(dir, 'friction'))).toHaveLength(1);
    expect(adapter.calls).toBe(0);
  });

  it('classifies from markers: a request already written is done, a missing one is finished exactly once', async () => {
    const dir = tempDir();
    await startedActions(dir, ['a', 'b']);
    const clock = new ManualClock(T0);
    const mailbox = createMailboxAdapter({ clock });
    // The crash hit after `a`'s side effect but before its outcome was journaled.
    await mailbox.cancel({
      epicId: 'E-1',
      key: 'E-1:a:cancel',
      task: { taskId: 'a', ticketId: 'P-a', status: 'in_progress', statusClass: 'in_flight' },
      paths: new StatePaths(dir),
    });
    const report = await startUp(dir, mailbox, 'run-1');
    expect(report).toMatchObject({ done: ['E-1:a:cancel'], finished: ['E-1:b:cancel'], orphans: [] });
    expect(readdirSync(path.join(dir, 'epics/E-1/requests')).sort()).toEqual(['E-1__a__cancel.cancel.json', 'E-1__b__cancel.cancel.json']);
    const killed = readEvents(dir)
      .filter((e) => e.event === 'agent_killed')
      .map((e) => e.key);
    expect(killed).toEqual(['E-1:a:cancel', 'E-1:b:cancel']);
    expect(readEvents(dir).find((e) => e.event === 'recovery_summary')).toMatchObject({
      done: ['E-1:a:cancel'],
      finished: ['E-1:b:cancel'],
      orphans: [],
      orphan_count: 0,
    });
    expect(existsSync(path.join(dir, 'friction'))).toBe(false);

    // Nothing left to do at the next start-up.
    expect(await startUp(dir, mailbox, 'run-2')).toMatchObject({ done: [], finished: [], orphans: [] });
    expect(readEvents(dir).filter((e) => e.event === 'agent_killed')).toHaveLength(2);
  });

  it('does not finish stopping or replacing a task that finished while the watchdog was down', async () => {
    const dir = tempDir();
    await startedActions(dir, ['done-1'], 'redispatch');
    const mailbox = createMailboxAdapter({ clock: new ManualClock(T0) });
    const paths = new StatePaths(dir);
    const clock = new ManualClock(T0 + 60_000);
    const history = foldHistory((await readDispatchLog(paths)).events, 'E-1');
    const ctx: PerformerContext = {
      epicId: 'E-1',
      paths,
      log: new DispatchLog(paths, 'E-1', 'r2', () => clock.nowMs()),
      history,
      adapter: mailbox,
      clock,
      maxRedispatches: 2,
      tracker: { blockedStateName: 'Blocked' },
    };
    const wave = { shape: 'wave_tasks' as const, tasks: [{ taskId: 'done-1', ticketId: 'P-done-1', status: 'merged', statusClass: 'terminal' as const }] };
    const report = await recoverUnfinished(ctx, { runId: 'r2', wave });
    expect(report.failed).toEqual([{ key: 'E-1:done-1:redispatch', error: expect.stringContaining('not finished: the task is "merged" now') }]);
    expect(existsSync(path.join(dir, 'epics/E-1/requests'))).toBe(false);
    expect(existsSync(path.join(dir, 'pipeline_checkpoints'))).toBe(false);
  });
});
