// What a replay of one agent's recorded files gives (`dispatch-watchdog replay`, docs/verdicts.md):
// the verdict timeline and its summary, whichever agent CLI wrote the files (each harness folds its
// own records, agents/harness.ts `replay`). Pure types.
import type { Verdict } from './assess.js';

/** One transcript file's text. */
export interface ReplaySource {
  file: string;
  text: string;
}

export interface ReplayInput {
  /** The agent's own transcript. */
  transcript: ReplaySource;
  /** Its subagents' transcripts (`<session>/subagents/agent-<id>.jsonl`), if any. */
  children?: readonly ReplaySource[];
}

export type StallOutcome = 'false_alarm' | 'human_resumed' | 'interrupted' | 'end_of_transcript';

/** The verdict changed at `atMs` (a record arrived, or a window ran out when `line` is undefined). */
export interface VerdictChange {
  atMs: number;
  verdict: Verdict;
  /** 1-based line of the agent's transcript (or `file:line` of a child's) that caused it. */
  line?: number;
  childFile?: string;
  /** For a stall: what happened next. */
  outcome?: StallOutcome;
  /** For a false alarm: when the agent went on. */
  resumedAtMs?: number;
}

export interface ReplaySummary {
  records: number;
  firstMs?: number;
  lastMs?: number;
  stalls: number;
  falseAlarms: number;
  humanResumed: number;
  atEnd: number;
}

export interface ReplayResult {
  file: string;
  children: string[];
  baseTimeoutMs: number;
  changes: VerdictChange[];
  summary: ReplaySummary;
  /** Lines that were not JSON, by `file:line`. */
  badLines: string[];
  /** The verdict judged at the last record (before any window ran out after it): what a crash there left. */
  atLastRecord?: Verdict;
}

/** A stall the agent went on from by itself. */
export interface FalseStall {
  file: string;
  atMs: number;
  resumedAtMs: number;
  reason: string;
  /** The wait was a human's (a permission dialog, a question): see isHumanWait. */
  isHumanWait: boolean;
}

export interface ScoreOptions {
  /** Seed of the crash moments. @defaultValue 19 */
  seed?: number;
  /** Crash moments drawn per transcript. @defaultValue 25 */
  cutsPerFile?: number;
  /** Cut after every record (each distinct record time) instead of at drawn moments: every crash the records allow. */
  everyRecord?: boolean;
}

export interface WindowScore {
  windowSeconds: number;
  sessions: number;
  /** First to last record, summed over the transcripts. */
  agentHours: number;
  /** The silences the agent's own next record ended (it was at work), summed. */
  activeHours: number;
  falseStalls: FalseStall[];
  /** Turns that ended (a final answer, a turn-end record) before a human's prompt or the end of the file. */
  finishedTurns: number;
  finishedCalledStalled: { file: string; atMs: number }[];
  /** Stalls a human's prompt or interruption ended while the agent was mid-turn (a real stall, or a wait no record shows). */
  humanSteppedIn: number;
  /** Stalls with nothing after them while the agent was mid-turn (the recording stopped, or the agent died). */
  atEnd: number;
  crashes: {
    simulated: number;
    flagged: number;
    /** Not stalled but reported within the window + 1 s as waiting on a child nothing can be seen of (`unknown`, never acted on). */
    reportedUnobservable: number;
    missed: { file: string; cutMs: number; reason: string }[];
    /** Cuts where the agent was not at work (finished, waiting on a human, ...), by verdict kind: no crash to flag. */
    notAtWork: Record<string, number>;
    /** Crashes at work whose effective window was wider than the base, and the exemptions that widened it (the seed grants only some). */
    widened?: { file: string; cutMs: number; windowSeconds: number; exemptions: string[] }[];
  };
  giveUps: { seen: number; flaggedAtOnce: number; resumed: number; cleared: number; notCleared: { file: string; atMs: number }[] };
}
