// Replay of a recorded Codex rollout through the same observation and assess the check uses
// (`replay`, agents/harness.ts HarnessReplay): the verdict after each record, and a stall where a
// window runs out before the next one. Pure. A recording has no live owner: liveness is unknown,
// so a killed agent shows as a silence at the end (`end_of_transcript`), never `agent_died`.
import { normalizeTask } from '../../../contracts/state-file.js';
import { assess, type Verdict } from '../../../core/assess.js';
import type { Policy } from '../../../core/policy.js';
import type { ReplayInput, ReplayResult, ScoreOptions, VerdictChange, WindowScore } from '../../../core/replay-types.js';
import { mergeObservations } from '../../../observe/parse/observation-merge.js';
import { observeCodexThread } from './observe-rollout.js';
import { emptyRollout, foldRolloutLine } from './rollout.js';

/** The verdict timeline of one rollout. */
export function replayRollout(input: ReplayInput, policy: Policy): ReplayResult {
  const file = input.transcript.file;
  const lines = input.transcript.text.split('\n');
  const s = emptyRollout();
  const changes: VerdictChange[] = [];
  const badLines: string[] = [];
  let records = 0;
  let firstMs: number | undefined;
  let last: Verdict | undefined;
  let task = normalizeTask({ ticket_id: 'replay', status: 'in_progress', agent: 'codex' } as never, undefined);
  const judge = (atMs: number) => assess(task, mergeObservations([observeCodexThread(s, file, { owner: 'unknown' })]), policy, atMs);
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const bad = s.badLines;
    // The stall a window running out before this record would be, judged on what came before it.
    const pending = last?.kind === 'healthy' && last.deadlineMs !== undefined ? judge(last.deadlineMs + 1) : undefined;
    foldRolloutLine(s, line);
    if (s.badLines > bad) {
      badLines.push(`${file}:${i + 1}`);
      continue;
    }
    const atMs = s.lastRecordMs!;
    records++;
    if (firstMs === undefined) {
      firstMs = atMs;
      task = { ...task, dispatchedAtMs: atMs };
    }
    // A window that ran out in the silence before this record: a stall this record ended.
    if (pending?.kind === 'stalled' && last!.deadlineMs! < atMs)
      changes.push({ atMs: last!.deadlineMs! + 1, verdict: pending, outcome: 'false_alarm', resumedAtMs: atMs });
    const v = judge(atMs);
    if (!last || v.kind !== last.kind) changes.push({ atMs, verdict: v, line: i + 1 });
    last = v;
  }
  const atLastRecord = last;
  if (last?.kind === 'healthy' && last.deadlineMs !== undefined) {
    const stall = judge(last.deadlineMs + 1);
    if (stall.kind === 'stalled') changes.push({ atMs: last.deadlineMs + 1, verdict: stall, outcome: 'end_of_transcript' });
  }
  const stalls = changes.filter((c) => c.verdict.kind === 'stalled');
  return {
    file,
    children: [],
    baseTimeoutMs: policy.baseTimeoutMs,
    changes,
    summary: {
      records,
      firstMs,
      lastMs: s.lastRecordMs,
      stalls: stalls.length,
      falseAlarms: stalls.filter((c) => c.outcome === 'false_alarm').length,
      humanResumed: 0,
      atEnd: stalls.filter((c) => c.outcome === 'end_of_transcript').length,
    },
    badLines,
    ...(atLastRecord ? { atLastRecord } : {}),
  };
}

/** The false stalls of a set of rollouts at one window (no crash simulation for Codex yet: `crashes` is empty). */
export function scoreRollouts(inputs: readonly ReplayInput[], policy: Policy, _opts: ScoreOptions = {}): WindowScore {
  const results = inputs.map((i) => replayRollout(i, policy));
  const hours = (ms: number) => ms / 3_600_000;
  return {
    windowSeconds: policy.baseTimeoutMs / 1000,
    sessions: results.length,
    agentHours: results.reduce((n, r) => n + hours((r.summary.lastMs ?? 0) - (r.summary.firstMs ?? 0)), 0),
    activeHours: 0,
    falseStalls: results.flatMap((r) =>
      r.changes
        .filter((c) => c.outcome === 'false_alarm')
        .map((c) => ({ file: r.file, atMs: c.atMs, resumedAtMs: c.resumedAtMs!, reason: c.verdict.reason, isHumanWait: false })),
    ),
    finishedTurns: results.reduce((n, r) => n + r.changes.filter((c) => c.verdict.kind === 'inconsistent').length, 0),
    finishedCalledStalled: [],
    humanSteppedIn: 0,
    atEnd: results.reduce((n, r) => n + r.summary.atEnd, 0),
    crashes: { simulated: 0, flagged: 0, reportedUnobservable: 0, missed: [], notAtWork: {} },
    giveUps: { seen: 0, flaggedAtOnce: 0, resumed: 0, cleared: 0, notCleared: [] },
  };
}
