// Issue 19's measurement over recorded transcripts: each replayed record by record through the check
// code (core/replay-transcript) at one base window and scored the way the table is:
// false stalls while the agent was provably working (its next record came later), split into
// human waits and the rest; finished turns called stalled; simulated crashes (the files cut at
// seeded random moments) flagged within the window + 1 s; API give-ups flagged at once and cleared
// once the agent resumes. Pure: texts in, figures out.
import type { Verdict } from '../../../core/assess.js';
import type { Policy } from '../../../core/policy.js';
import { familyOf } from './records/table.js';
import { DEFAULTS } from '../../../contracts/defaults.js';
import { WALL_REASONS } from '../../../contracts/vocabulary.js';
import { isRec } from './records/family.js';
import type { ScoreOptions, WindowScore } from '../../../core/replay-types.js';
import { replayRecords, replayTranscript, type ReplayInput, type ReplayResult, type TimedRecord, type VerdictChange } from './replay-transcript.js';

export type { FalseStall, ScoreOptions, WindowScore } from '../../../core/replay-types.js';

const GIVE_UPS: ReadonlySet<string> = new Set(['api_gave_up', 'context_exhausted', 'runtime_killed', ...WALL_REASONS]);
/** Tools that return at once unless a permission dialog holds them. */
const INSTANT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
/** Claude Code ends a Bash command with no long timeout by its default limit; the grace is the watchdog's. */
const BASH_OPEN_LIMIT_MS = DEFAULTS.fixed.claude_bash_timeout_ms + DEFAULTS.exemptions.open_tool_grace_seconds * 1000;
/** Claude Code's tool result when the human refused a call in the dialog. */
const REFUSED = /doesn't want to proceed|user (?:rejected|denied)|permission (?:was )?denied/i;

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const blocksOf = (rec: unknown): unknown[] => {
  const content = isRec(rec) && isRec(rec.message) ? rec.message.content : undefined;
  return Array.isArray(content) ? content : [];
};
const blockText = (b: unknown): string =>
  isRec(b)
    ? typeof b.content === 'string'
      ? b.content
      : Array.isArray(b.content)
        ? b.content.map(blockText).join('\n')
        : typeof b.text === 'string'
          ? b.text
          : ''
    : '';

/**
 * A false stall during a human's wait, as far as the records tell: the call left open was one that
 * returns at once unless a permission dialog holds it, or was open past its own timeout + grace
 * (`open_tool_overrun`: Claude Code ends a Bash command at its timeout, so only a dialog can hold
 * it), or its result says the human refused it. A permission granted within a call's own window
 * looks like the call's own time.
 */
export function isHumanWait(v: Verdict, resumedBy: TimedRecord | undefined, atMs?: number): boolean {
  if (v.stallReason === 'open_tool_overrun') return true;
  // A Bash call with no long timeout stalls at the base window (the seed's rule), before any
  // overrun; held open past Claude Code's own limit on it by the time it went on, only a dialog held it.
  const openFor = resumedBy && atMs !== undefined ? resumedBy.atMs - (atMs - (v.idleMs ?? 0)) : 0;
  if (v.isLastToolOpen === true && v.lastTool === 'Bash' && openFor > BASH_OPEN_LIMIT_MS) return true;
  if (v.isLastToolOpen === true && v.lastTool !== undefined && INSTANT_TOOLS.has(v.lastTool)) return true;
  return blocksOf(resumedBy?.rec).some((b) => isRec(b) && b.type === 'tool_result' && REFUSED.test(blockText(b)));
}

/** The agent's own turn was over at `atMs`: its newest record is a final answer, a turn end or a run's result. */
function turnOverAt(records: readonly TimedRecord[], atMs: number): boolean {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (r.source !== -1 || r.atMs > atMs || !isRec(r.rec)) continue;
    if (familyOf(r.rec.type).marks(r.rec).isTurnEnd === true || r.rec.type === 'result') return true;
    if (r.actor !== 'agent') continue;
    // A thinking block or a blank text (2.1.x writes "\n\n" before a call) is a turn still being written.
    const blocks = blocksOf(r.rec);
    return (
      r.rec.type === 'assistant' &&
      !(isRec(r.rec.message) && r.rec.message.stop_reason === 'tool_use') &&
      !blocks.some((b) => isRec(b) && b.type === 'tool_use') &&
      blocks.some((b) => isRec(b) && b.type === 'text' && blockText(b).trim() !== '')
    );
  }
  return false;
}

/**
 * The agent was mid-turn at `atMs` by what the full records show: its own next record came before
 * any human's, or (nothing after it, or a human's prompt next) its turn was not over.
 */
function wasAtWork(records: readonly TimedRecord[], atMs: number): boolean {
  const next = records.find((r) => r.atMs > atMs && r.actor !== 'harness');
  return next?.actor === 'agent' || !turnOverAt(records, atMs);
}

/** The transcript and its subagents' as they were at `cutMs` (a child not yet begun does not exist). */
function cutAt(input: ReplayInput, records: readonly TimedRecord[], cutMs: number): ReplayInput {
  const keep = new Map<number, Set<number>>();
  for (const r of records) if (r.atMs <= cutMs) keep.set(r.source, (keep.get(r.source) ?? new Set()).add(r.line));
  const cut = (src: { file: string; text: string }, i: number) => ({
    file: src.file,
    text:
      src.text
        .split('\n')
        .filter((_, j) => keep.get(i)?.has(j + 1))
        .join('\n') + '\n',
  });
  return { transcript: cut(input.transcript, -1), children: (input.children ?? []).flatMap((c, i) => (keep.has(i) ? [cut(c, i)] : [])) };
}

const verdictAt = (changes: readonly VerdictChange[], atMs: number) => changes.filter((c) => c.atMs <= atMs).at(-1);

function scoreCrashes(
  input: ReplayInput,
  records: readonly TimedRecord[],
  policy: Policy,
  draw: () => number,
  cuts: number | 'every',
  out: WindowScore['crashes'],
): void {
  const first = records[0]?.atMs;
  const last = records.at(-1)?.atMs;
  if (first === undefined || last === undefined || last === first) return;
  const seen = new Set<number>();
  const moments = cuts === 'every' ? [...new Set(records.map((r) => r.atMs))] : Array.from({ length: cuts }, () => first + Math.floor(draw() * (last - first)));
  for (const cutMs of moments) {
    const lastKept = records.filter((r) => r.atMs <= cutMs).at(-1)!.atMs;
    if (seen.has(lastKept)) continue;
    seen.add(lastKept);
    const r = replayTranscript(cutAt(input, records, cutMs), policy);
    const v = r.atLastRecord;
    if (v?.kind === 'stalled') {
      // Cut just after a give-up (or any record that is a stall by itself): flagged at that record.
      out.simulated++;
      out.flagged++;
      continue;
    }
    if (v?.kind === 'healthy' && !wasAtWork(records, lastKept)) {
      // Cut after its turn was over (a final answer, a human's prompt next): no crash to flag.
      out.notAtWork['turn over'] = (out.notAtWork['turn over'] ?? 0) + 1;
      continue;
    }
    if (!v || v.kind !== 'healthy' || v.deadlineMs === undefined) {
      const kind = v ? (v.kind === 'healthy' ? 'healthy, no deadline' : v.kind) : 'no verdict';
      out.notAtWork[kind] = (out.notAtWork[kind] ?? 0) + 1;
      continue;
    }
    out.simulated++;
    if (v.effectiveTimeoutMs > policy.baseTimeoutMs)
      (out.widened ??= []).push({ file: input.transcript.file, cutMs, windowSeconds: v.effectiveTimeoutMs / 1000, exemptions: [...v.exemptions] });
    const limit = lastKept + v.effectiveTimeoutMs + 1000;
    const stall = r.changes.find((c) => c.atMs > lastKept && c.verdict.kind === 'stalled');
    if (stall && stall.atMs <= limit) out.flagged++;
    else if (r.changes.some((c) => c.atMs > lastKept && c.atMs <= limit && c.verdict.kind === 'unknown' && (c.verdict.unobservedChildren?.length ?? 0) > 0))
      out.reportedUnobservable++;
    else
      out.missed.push({
        file: input.transcript.file,
        cutMs,
        reason: stall
          ? `flagged ${((stall.atMs - lastKept) / 1000).toFixed(1)}s after the last record (window ${v.effectiveTimeoutMs / 1000}s)`
          : `never flagged: ${r.changes.at(-1)?.verdict.reason ?? ''}`,
      });
  }
}

function scoreOne(input: ReplayInput, r: ReplayResult, records: readonly TimedRecord[], score: WindowScore): void {
  const acting = records.filter((x) => x.actor !== 'harness');
  if (records.length > 0) score.agentHours += (records.at(-1)!.atMs - records[0]!.atMs) / 3_600_000;
  acting.forEach((b, i) => {
    const a = acting[i - 1];
    if (a && b.actor === 'agent') score.activeHours += (b.atMs - a.atMs) / 3_600_000;
    if (a && b.actor === 'human' && turnOverAt(records, a.atMs)) score.finishedTurns++;
  });
  if (acting.length > 0 && turnOverAt(records, acting.at(-1)!.atMs)) score.finishedTurns++;
  const file = input.transcript.file;
  r.changes.forEach((c, i) => {
    if (c.verdict.kind !== 'stalled') return;
    if (c.verdict.stallReason !== undefined && GIVE_UPS.has(c.verdict.stallReason)) {
      const g = score.giveUps;
      g.seen++;
      const cause = records.filter((x) => x.atMs <= c.atMs).at(-1);
      if (c.line !== undefined && cause !== undefined && c.atMs - cause.atMs <= 1000) g.flaggedAtOnce++;
      if (c.resumedAtMs === undefined) return;
      g.resumed++;
      const after = verdictAt(r.changes.slice(i), c.resumedAtMs);
      if (after !== c && !(after?.verdict.kind === 'stalled' && GIVE_UPS.has(after.verdict.stallReason ?? ''))) g.cleared++;
      else g.notCleared.push({ file, atMs: c.atMs });
      return;
    }
    if (c.outcome === 'false_alarm') {
      const resumedBy = acting.find((x) => x.atMs > c.atMs);
      score.falseStalls.push({
        file,
        atMs: c.atMs,
        resumedAtMs: c.resumedAtMs!,
        reason: c.verdict.reason,
        isHumanWait: isHumanWait(c.verdict, resumedBy, c.atMs),
      });
      return;
    }
    const before = acting.filter((x) => x.atMs <= c.atMs).at(-1);
    if (before && turnOverAt(records, before.atMs)) score.finishedCalledStalled.push({ file, atMs: c.atMs });
    else if (c.outcome === 'end_of_transcript') score.atEnd++;
    else score.humanSteppedIn++;
  });
}

/** Score every transcript at one base window (`policy.baseTimeoutMs`). */
export function scoreReplays(inputs: readonly ReplayInput[], policy: Policy, opts: ScoreOptions = {}): WindowScore {
  const draw = random(opts.seed ?? 19);
  const score: WindowScore = {
    windowSeconds: policy.baseTimeoutMs / 1000,
    sessions: inputs.length,
    agentHours: 0,
    activeHours: 0,
    falseStalls: [],
    finishedTurns: 0,
    finishedCalledStalled: [],
    humanSteppedIn: 0,
    atEnd: 0,
    crashes: { simulated: 0, flagged: 0, reportedUnobservable: 0, missed: [], notAtWork: {} },
    giveUps: { seen: 0, flaggedAtOnce: 0, resumed: 0, cleared: 0, notCleared: [] },
  };
  for (const input of inputs) {
    const records = replayRecords(input);
    scoreOne(input, replayTranscript(input, policy), records, score);
    scoreCrashes(input, records, policy, draw, opts.everyRecord ? 'every' : (opts.cutsPerFile ?? 25), score.crashes);
  }
  return score;
}
