// Replays a recorded Claude Code transcript (and its subagents' transcripts) record by record
// through the same parser, observation and assess() code the check uses, with the time taken
// from the records, and scores every stall by what the agent did next. Pure: texts in, timeline out.
import type { Task } from '../../../contracts/state-file.js';
import { assess, type Verdict } from '../../../core/assess.js';
import type { Policy } from '../../../core/policy.js';
import { mergeObservations } from '../../../observe/parse/observation-merge.js';
import { observeRow } from '../../../observe/parse/observe-row.js';
import { observeTranscript, type ChildTranscript } from './observe-transcript.js';
import { applyTranscriptRecord, recordActor, type RecordActor } from './parse-transcript-record.js';
import { isRec, recordTime } from './records/family.js';
import { emptyTranscriptState, type TranscriptState } from './transcript-state.js';
import { CLAUDE_LENS } from './tool-kinds.js';
import type { ReplayInput, ReplayResult, ReplaySource, VerdictChange } from '../../../core/replay-types.js';

export type { ReplayInput, ReplayResult, ReplaySource, ReplaySummary, StallOutcome, VerdictChange } from '../../../core/replay-types.js';

export interface TimedRecord {
  rec: unknown;
  atMs: number;
  line: number;
  /** Index into the children, or -1 for the agent's own transcript. */
  source: number;
  actor: RecordActor;
}

/** A verdict that lasted less than this and was not a stall is folded into its neighbours. @defaultValue 1000 */
const FLICKER_MS = 1000;
/** Deadlines followed at most between two records (each is a window running out). */
const MAX_DEADLINES = 8;

/** Records of one file with a time each: a record without a timestamp takes the one before it. */
function timedRecords(src: ReplaySource, source: number, bad: string[]): TimedRecord[] {
  const out: TimedRecord[] = [];
  const pending: { rec: unknown; line: number }[] = [];
  let lastMs: number | undefined;
  src.text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let rec: unknown;
    try {
      rec = JSON.parse(raw);
    } catch {
      bad.push(`${src.file}:${i + 1}`);
      return;
    }
    const ts = isRec(rec) ? recordTime(rec) : undefined;
    const ms = ts === undefined ? NaN : Date.parse(ts);
    if (Number.isFinite(ms)) lastMs = ms;
    if (lastMs === undefined) {
      pending.push({ rec, line: i + 1 });
      return;
    }
    for (const p of pending.splice(0)) out.push({ ...p, atMs: lastMs, source, actor: recordActor(p.rec) });
    out.push({ rec, atMs: lastMs, line: i + 1, source, actor: recordActor(rec) });
  });
  return out;
}

/** The records of a transcript and its subagents' transcripts, in time order (the agent's own first at a tie). */
export function replayRecords(input: ReplayInput, bad: string[] = []): TimedRecord[] {
  return [...timedRecords(input.transcript, -1, bad), ...(input.children ?? []).flatMap((c, i) => timedRecords(c, i, bad))].sort(
    (a, b) => a.atMs - b.atMs || a.source - b.source || a.line - b.line,
  );
}

const childIdOf = (file: string) => /agent-([^/\\]+)\.jsonl$/.exec(file)?.[1] ?? file;

/** Replay one transcript at one base window. */
export function replayTranscript(input: ReplayInput, policy: Policy): ReplayResult {
  const badLines: string[] = [];
  const childSources = input.children ?? [];
  const records = replayRecords(input, badLines);
  const own = emptyTranscriptState();
  const children: ChildTranscript[] = childSources.map((c) => ({ agentId: childIdOf(c.file), state: emptyTranscriptState() }));
  const name = input.transcript.file;
  const first = records[0]?.atMs;
  const task: Task = { taskId: name, ticketId: name, status: 'in_progress', statusClass: 'in_flight', dispatchedAtMs: first };

  const raw: VerdictChange[] = [];
  let prev: Verdict | undefined;
  let judgedMs = -Infinity;
  const judge = (nowMs: number, at?: TimedRecord): Verdict => {
    judgedMs = nowMs;
    const obs = mergeObservations([observeRow(task), observeTranscript(own, { nowMs }, children)], CLAUDE_LENS);
    const v = assess(task, obs, policy, nowMs);
    if (!prev || prev.kind !== v.kind || prev.stallReason !== v.stallReason) {
      raw.push({ atMs: nowMs, verdict: v, line: at?.line, childFile: at && at.source >= 0 ? childSources[at.source]!.file : undefined });
    }
    prev = v;
    return v;
  };
  // Windows that run out before `untilMs`: judge just past each deadline, as the loop wakes then.
  const advance = (untilMs: number) => {
    for (let i = 0; i < MAX_DEADLINES && prev?.deadlineMs !== undefined && prev.kind !== 'stalled'; i++) {
      const at = prev.deadlineMs + 1;
      if (at >= untilMs || at <= judgedMs) return;
      judge(at);
    }
  };

  records.forEach((r, i) => {
    advance(r.atMs);
    const state: TranscriptState = r.source < 0 ? own : children[r.source]!.state;
    applyTranscriptRecord(state, r.rec, `line ${r.line}`);
    if (records[i + 1]?.atMs === r.atMs) return; // judge once per moment
    judge(r.atMs, r);
  });
  const atLastRecord = prev;
  advance(Infinity);

  const changes = scoreStalls(dropFlicker(raw), records);
  const stalls = changes.filter((c) => c.verdict.kind === 'stalled');
  return {
    file: name,
    children: childSources.map((c) => c.file),
    baseTimeoutMs: policy.baseTimeoutMs,
    changes,
    badLines,
    atLastRecord,
    summary: {
      records: records.length,
      firstMs: first,
      lastMs: records.at(-1)?.atMs,
      stalls: stalls.length,
      falseAlarms: stalls.filter((c) => c.outcome === 'false_alarm').length,
      humanResumed: stalls.filter((c) => c.outcome === 'human_resumed' || c.outcome === 'interrupted').length,
      atEnd: stalls.filter((c) => c.outcome === 'end_of_transcript').length,
    },
  };
}

/**
 * Drop verdicts that lasted under a second and were not stalls (an assistant text line and the
 * call that follows it a few ms later), then merge neighbours that became equal.
 */
function dropFlicker(raw: readonly VerdictChange[]): VerdictChange[] {
  const kept = raw.filter((c, i) => {
    const next = raw[i + 1];
    return c.verdict.kind === 'stalled' || !next || next.atMs - c.atMs >= FLICKER_MS;
  });
  return kept.filter((c, i) => i === 0 || c.verdict.kind !== kept[i - 1]!.verdict.kind || c.verdict.stallReason !== kept[i - 1]!.verdict.stallReason);
}

/** Each stall's outcome: the first record after it that shows someone at work. */
function scoreStalls(changes: VerdictChange[], records: readonly TimedRecord[]): VerdictChange[] {
  return changes.map((c) => {
    if (c.verdict.kind !== 'stalled') return c;
    const next = records.find((r) => r.atMs > c.atMs && r.actor !== 'harness');
    if (!next) return { ...c, outcome: 'end_of_transcript' };
    if (next.actor === 'agent') return { ...c, outcome: 'false_alarm', resumedAtMs: next.atMs };
    return { ...c, outcome: next.actor === 'interrupt' ? 'interrupted' : 'human_resumed', resumedAtMs: next.atMs };
  });
}
