// Merging what each source knows of one agent into one Observation (DESIGN §4): newest wins per
// field, then the row's harness classifies the calls and secrets are redacted. Pure. Split out of
// observe/parse/observation.ts, which holds the types.
import { redactSecrets } from '../../present/safe-text.js';
import { copyCall, type Observation, type PartialObservation, type EvidenceLens, type ToolCall, type ToolClassifier, type SourceName } from './observation.js';

/** A source's progress within this long after a give-up or an interruption is part of it (a StopFailure line lands just after its give-up), in ms. */
const RESUME_SLACK_MS = 1000;

/** The sources that record the agent's own work (not a sampled process's bytes, not the row's stamp). */
const WORK_RECORDS: ReadonlySet<SourceName> = new Set(['hooks', 'transcript', 'telemetry']);
/** Those that record a turn without tool calls. */
const TURN_RECORDS: ReadonlySet<SourceName> = new Set(['transcript', 'telemetry']);

const newer = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));

/**
 * Whether `p`'s give-up is to be told rather than `known` (reported by `knownBy`): the newer one;
 * but one give-up seen by two sources (within the slack: a StopFailure hook fires as the record is
 * written) is told by the agent's own record, which names more (the plan's limit and its reset).
 */
function tellsGiveUpBetter(p: PartialObservation, known: NonNullable<Observation['failed']>, knownBy: SourceName | undefined): boolean {
  const at = p.failed?.atMs ?? 0;
  const knownAt = known.atMs ?? 0;
  if (Math.abs(at - knownAt) <= RESUME_SLACK_MS && (p.source === 'transcript') !== (knownBy === 'transcript')) return p.source === 'transcript';
  return at > knownAt;
}

/**
 * Merge evidence from several sources: newest wins for each fact; lists are concatenated. With
 * `lens` (the row's harness, agents/harness.ts), the last call and the newest of the recent
 * calls carry their kind (what the core judges by), and the observation its words.
 */
export function mergeObservations(parts: readonly PartialObservation[], lens?: EvidenceLens): Observation {
  const out: Observation = { sources: [], recentCalls: [], contradictions: [], missing: [] };
  let toolAt = -Infinity;
  let outputAt = -Infinity;
  let recentAt = -Infinity;
  let finishedBy: SourceName | undefined;
  let waitingBy: SourceName | undefined;
  let failedBy: SourceName | undefined;
  for (const p of parts) {
    const hasFact =
      p.lastProgressMs !== undefined ||
      p.lastTool !== undefined ||
      p.lastOutput !== undefined ||
      p.finished !== undefined ||
      p.waitingHuman !== undefined ||
      p.isApiRetrying !== undefined ||
      p.failed !== undefined ||
      (p.recentCalls?.length ?? 0) > 0 ||
      (p.source === 'process' && p.outputGrewAtMs !== undefined);
    if (hasFact && !out.sources.includes(p.source)) out.sources.push(p.source);
    out.lastProgressMs = newer(out.lastProgressMs, p.lastProgressMs);
    out.outputGrewAtMs = newer(out.outputGrewAtMs, p.outputGrewAtMs);
    if (p.lastTool) {
      const at = p.lastTool.startedAtMs ?? p.lastProgressMs ?? -Infinity;
      // A source that can tell whether the call returned (transcript, hooks) beats the row's guess.
      const knows = Boolean(p.lastTool.isOpenKnown);
      const outKnows = Boolean(out.lastTool?.isOpenKnown);
      if (!out.lastTool || (knows && !outKnows) || (knows === outKnows && at >= toolAt)) {
        out.lastTool = p.lastTool;
        toolAt = at;
      }
    }
    if (p.lastOutput !== undefined) {
      const at = p.outputGrewAtMs ?? p.lastProgressMs ?? -Infinity;
      if (out.lastOutput === undefined || at >= outputAt) {
        out.lastOutput = p.lastOutput;
        outputAt = at;
      }
    }
    if (p.recentCalls && p.recentCalls.length > 0) {
      // The richest sequence wins rather than interleaving two views of the same calls.
      const at = p.lastProgressMs ?? -Infinity;
      if (out.recentCalls.length === 0 || p.recentCalls.length > out.recentCalls.length || at > recentAt) {
        out.recentCalls = p.recentCalls;
        recentAt = at;
      }
    }
    if (p.isApiRetrying) out.isApiRetrying = true;
    if (p.apiRetryDelayMs !== undefined) out.apiRetryDelayMs = Math.max(out.apiRetryDelayMs ?? 0, p.apiRetryDelayMs);
    if (p.waitingHuman && (!out.waitingHuman || (p.waitingHuman.sinceMs ?? 0) >= (out.waitingHuman.sinceMs ?? 0))) {
      out.waitingHuman = p.waitingHuman;
      waitingBy = p.source;
    }
    // A definite finish (a Stop hook, a turn-end record) wins over one inferred from a final answer,
    // which counts only after a whole window: a `-p` agent's end is seen when its Stop hook fires.
    if (p.finished && (!out.finished || (out.finished.isInferred && !p.finished.isInferred))) {
      out.finished = p.finished;
      finishedBy = p.source;
    }
    if (p.failed && (!out.failed || tellsGiveUpBetter(p, out.failed, failedBy))) {
      out.failed = p.failed;
      failedBy = p.source;
    }
    if (p.waitingOnChildren) out.waitingOnChildren = p.waitingOnChildren;
    if (p.waitingOnTeam) out.waitingOnTeam = p.waitingOnTeam;
    if (p.isOutputTracked) out.isOutputTracked = true;
    if (p.cwd !== undefined && (out.cwd === undefined || p.source === 'transcript')) out.cwd = p.cwd;
    if (p.transcriptFile !== undefined) out.transcriptFile ??= p.transcriptFile;
    if (p.telemetry) out.telemetry = p.telemetry;
    if (p.canWaitOnHuman === false) out.canWaitOnHuman = false;
    if (p.isProcessAlive !== undefined) out.isProcessAlive = p.isProcessAlive;
    if (p.queuedUnconsumed) out.queuedUnconsumed = p.queuedUnconsumed;
    // The first sign the run ended says when and how (a SessionEnd before the process was found gone).
    if (p.runEnded && (!out.runEnded || (p.runEnded.atMs ?? Infinity) < (out.runEnded.atMs ?? Infinity))) out.runEnded = p.runEnded;
    if (p.apiResend) out.apiResend = p.apiResend;
    if (p.agentVersion !== undefined && (out.agentVersion === undefined || p.source === 'transcript')) out.agentVersion = p.agentVersion;
    if (p.liveChildren !== undefined) out.liveChildren = p.liveChildren;
    if (p.contradictions) out.contradictions.push(...p.contradictions);
    if (p.missing) out.missing.push(...p.missing);
  }
  // Work seen after `atMs` (past the slack) by a source that records it: the agent went on.
  const workedAfter = (atMs: number, witnesses: ReadonlySet<SourceName>, skip?: (p: PartialObservation) => boolean) =>
    parts.some((p) => witnesses.has(p.source) && !skip?.(p) && (p.lastProgressMs ?? -Infinity) > atMs + RESUME_SLACK_MS);
  // A give-up ends when the agent resumes (issue 19 item 4): a hook or transcript source that saw
  // the agent at work after it (a new prompt, a woken turn, a tool call) clears one another
  // source still reports. A sampled process's bytes do not: the error response itself arrives then.
  if (out.failed?.atMs !== undefined && workedAfter(out.failed.atMs, WORK_RECORDS, (p) => p.failed !== undefined)) delete out.failed;
  // An interruption the hooks reported ends when the transcript (or telemetry) shows a new turn: a
  // turn without tool calls fires no hook before its end. Only those sources clear it, and not
  // the other way round: a cancelled call's async Post hook may land after the interruption. (A
  // transcript that saw the stop too has no progress after it, unless a new turn began.)
  if (waitingBy === 'hooks' && out.waitingHuman?.kind === 'interrupted' && workedAfter(out.waitingHuman.sinceMs ?? -Infinity, TURN_RECORDS))
    delete out.waitingHuman;
  // A Stop hook that does not list background tasks (older builds) marks the turn's end; the
  // transcript knows background subagents still run, so the agent waits on them, not finished.
  if (finishedBy === 'hooks' && (out.waitingOnChildren?.isBackground || out.waitingOnTeam)) delete out.finished;
  if (lens) {
    classifyCalls(out, lens.classifyTool);
    if (lens.wording) out.agentWords = lens.wording;
  }
  return redactObservation(out);
}

/** `call` with its kind as `classify` says (the same object when it has one). */
export function classified(call: ToolCall, classify: ToolClassifier): ToolCall {
  if (call.kind !== undefined) return call;
  const c = classify(call);
  const out = copyCall(call);
  out.kind = c.kind;
  out.defaultTimeoutMs = c.defaultTimeoutMs;
  out.isStatusPoll = c.isStatusPoll;
  return out;
}

/** The calls the core reads a kind of: the last call (and the child call it mirrors) and the newest recent call (loop detection). */
function classifyCalls(out: Observation, classify: ToolClassifier): void {
  const t = out.lastTool;
  if (t) {
    const child = t.childCall && classified(t.childCall, classify);
    const own = classified(t, classify);
    if (child !== t.childCall) {
      const copy = copyCall(own);
      copy.childCall = child;
      out.lastTool = copy;
    } else out.lastTool = own;
  }
  const n = out.recentCalls.length;
  const last = out.recentCalls[n - 1];
  if (last && last.kind === undefined) {
    out.recentCalls = out.recentCalls.slice();
    out.recentCalls[n - 1] = classified(last, classify);
  }
}

/**
 * What the observation quotes (the last output, the last call's input, command and error) without
 * the secrets an agent printed or passed: reasons, events, watchdog.json, checkpoints and friction
 * notes are built from it. The calls themselves stay as read (loop detection compares them).
 */
function redactObservation(out: Observation): Observation {
  if (out.lastOutput !== undefined) out.lastOutput = redactSecrets(out.lastOutput);
  const t = out.lastTool;
  if (t) {
    const clean = {
      inputSummary: t.inputSummary && redactSecrets(t.inputSummary),
      command: t.command && redactSecrets(t.command),
      error: t.error && redactSecrets(t.error),
    };
    if (clean.inputSummary !== t.inputSummary || clean.command !== t.command || clean.error !== t.error) out.lastTool = { ...t, ...clean };
  }
  if (out.failed?.detail !== undefined) {
    const detail = redactSecrets(out.failed.detail);
    if (detail !== out.failed.detail) out.failed = { ...out.failed, detail };
  }
  return out;
}
