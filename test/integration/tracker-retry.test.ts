// An escalation whose Linear call failed is retried later: by a running watchdog every 5
// minutes when the failure was retryable, and at start-up always; never a second comment.
import { describe, expect, it } from 'vitest';
import { createMailboxAdapter } from '../../src/act/agents/mailbox.js';
import { createPerformer, type PerformerContext } from '../../src/act/recovery/perform.js';
import { recoverAtStartUp } from '../../src/act/recovery/recover.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { DispatchLog, readDispatchLog } from '../../src/journal/dispatch-log.js';
import { foldHistory } from '../../src/core/history.js';
import { StatePaths } from '../../src/files/paths.js';
import type { IntendedAction } from '../../src/core/plan.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { makeTask } from '../helpers/builders.js';
import { replies, startLinearServer } from '../helpers/linear-server.js';
import { readEvents } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const T0 = Date.parse('2026-04-02T10:00:00Z');

async function context(dir: string, url: string, clock: ManualClock, runId: string): Promise<PerformerContext> {
  const paths = new StatePaths(dir);
  return {
    epicId: 'E-1',
    paths,
    log: new DispatchLog(paths, 'E-1', runId, () => clock.nowMs()),
    history: foldHistory((await readDispatchLog(paths)).events, 'E-1'),
    adapter: createMailboxAdapter({ clock }),
    clock,
    maxRedispatches: 2,
    tracker: {
      apiKey: 'lin_api_SECRET',
      apiUrl: url,
      blockedStateName: 'Blocked',
      retry: { retries: 1, minDelayMs: 0, maxDelayMs: 0, sleep: async () => undefined },
    },
  };
}

const escalation = (): IntendedAction => {
  const task = makeTask({ taskId: 't1-r2', ticketId: 'ENG-123' });
  return {
    kind: 'escalate',
    key: 'E-1:t1-r2:escalate',
    task,
    attempt: 3,
    verdict: {
      kind: 'stalled',
      taskId: task.taskId,
      ticketId: task.ticketId,
      effectiveTimeoutMs: 120_000,
      exemptions: [],
      hasShellTimeoutExemption: false,
      sources: ['row'],
      reason: 'x',
      idleMs: 200_000,
      stallReason: 'inactivity',
    },
  };
};

describe('retrying a failed tracker step', () => {
  it('a running watchdog retries a retryable failure after 5 minutes; one state change, one comment', async () => {
    const dir = tempDir();
    await using fake = await startLinearServer();
    const clock = new ManualClock(T0);
    const ctx = await context(dir, fake.url, clock, 'run-1');
    const performer = createPerformer(ctx);
    fake.enqueue('*', replies.serverError(503), replies.serverError(503)); // Linear is down: both tries fail
    await performer.perform(escalation(), mergeObservations([]));
    // perform() leaves a slow escalation to the background after 2 s: wait for its outcome, not for the clock.
    await performer.drain!();
    expect(readEvents(dir).at(-1)).toMatchObject({ event: 'escalated_to_blocked', tracker: 'failed', tracker_retryable: true });

    clock.advance(60_000);
    await performer.afterCheck!(clock.nowMs()); // too soon: nothing
    expect(readEvents(dir).filter((e) => e.event === 'escalated_to_blocked')).toHaveLength(1);

    clock.advance(5 * 60_000);
    await performer.afterCheck!(clock.nowMs());
    expect(
      readEvents(dir)
        .filter((e) => e.event === 'escalated_to_blocked')
        .at(-1),
    ).toMatchObject({ tracker: 'updated', is_retry: true, key: 'E-1:t1-r2:escalate' });
    expect(fake.issue().stateId).toBe('state-blocked');
    expect(fake.issue().comments).toHaveLength(1);

    clock.advance(10 * 60_000);
    await performer.afterCheck!(clock.nowMs()); // nothing pending any more
    expect(fake.ops().filter((o) => o === 'createComment')).toHaveLength(1);
    expect(JSON.stringify(readEvents(dir))).not.toContain('lin_api_SECRET');
  });

  it('a start-up retries even a failure that was not retryable (the key may have been fixed since)', async () => {
    const dir = tempDir();
    await using fake = await startLinearServer();
    const clock = new ManualClock(T0);
    const first = await context(dir, fake.url, clock, 'run-1');
    fake.enqueue('*', replies.unauthorized());
    const performer = createPerformer(first);
    await performer.perform(escalation(), mergeObservations([]));
    await performer.drain!();
    expect(readEvents(dir).at(-1)).toMatchObject({ event: 'escalated_to_blocked', tracker: 'failed', tracker_retryable: false });

    const restarted = await context(dir, fake.url, clock, 'run-2');
    const report = await recoverAtStartUp(restarted, { runId: 'run-2' });
    expect(report.trackerRetried).toEqual(['E-1:t1-r2:escalate']);
    expect(fake.issue().comments).toHaveLength(1);
    const again = await recoverAtStartUp(await context(dir, fake.url, clock, 'run-3'), { runId: 'run-3' });
    expect(again.trackerRetried).toEqual([]);
    expect(fake.ops().filter((o) => o === 'updateIssue')).toHaveLength(1);
  });
});
