// The Claude Code observer: per task, hook activity (activity/<agent or session id>.ndjson) and
// the agent's transcript, each read incrementally, as one PartialObservation per source.
// Positions and parser states persist under <stateDir>/observe/ across restarts.
import path from 'node:path';
import type { Task } from '../../../contracts/state-file.js';
import type { StatePaths } from '../../../files/paths.js';
import { resolveProjectsDir, TranscriptFinder, type TranscriptQuery } from './find-transcript.js';
import { createHookActivityReader, type IdHandle } from './hook-activity.js';
import type { PartialObservation } from '../../../observe/parse/observation.js';
import type { TaskObserver } from '../../../observe/read/observer.js';
import { inheritSessionPrompt, runEndedOf, summarizeHooks, type HookState } from '../parse/parse-hook-activity.js';
import { childCompletion, childStopped, mtimeSameAsOf, transcriptContradictions, type ObserveDiagnostic } from '../parse/parse-transcript.js';
import { observeTranscript as summarizeWithChildren } from '../parse/observe-transcript.js';
import { readsChildren, readWaitedChildren } from './child-transcripts.js';
import { ChangeNotes } from '../../../observe/read/change-notes.js';
import { TailReader, type TailOptions } from '../../../observe/read/tail-file.js';
import { SAVE_AGE_MS } from '../../../observe/read/tail-tracker.js';
import { createTranscriptTail } from './transcript-tail.js';
import { sizedTailBytes, tailSuffices } from '../parse/tail-context.js';
import { ColdTailPrior } from './cold-tail-prior.js';
import { DEFAULT_POLICY } from '../../../core/policy.js';
import { PrefixIds } from './prefix-ids.js';
import { withChildHooks, type ChildHooks } from '../parse/child-hooks.js';
import { AGENT_TASK_ID } from '../parse/records/tasks.js';
import { emptyTranscriptState, type TranscriptState } from '../parse/transcript-state.js';
import { lastReadOf, MEMO_SWEEP_CHECKS, maxOf, memoOf, type LastRead, type Memo, type Trace } from './claude-observer-memo.js';

export interface ClaudeObserverOptions {
  paths: StatePaths;
  /** Claude Code's config dir (config `claude.config_dir`). @defaultValue $CLAUDE_CONFIG_DIR, else ~/.claude */
  claudeConfigDir?: string;
  env?: NodeJS.ProcessEnv;
  homeDir?: string;
  tail?: Partial<TailOptions>;
  /** Save positions at most this often, in ms (and on `flush`). @defaultValue 10000 */
  persistEveryMs?: number;
  /** Keep positions across restarts under <stateDir>/observe/. @defaultValue true */
  isPersistent?: boolean;
  /** Let change notification (inotify) stand in for the stat of an untouched file (tests may pass their own). @defaultValue true */
  changeNotes?: boolean | ChangeNotes;
  /** The base stall window (`--timeout`), in ms: a lazy cold tail is trusted only within it. @defaultValue DEFAULT_POLICY.baseTimeoutMs */
  baseTimeoutMs?: number;
  /**
   * A task's transcripts are read again at most this often, in ms (config `healthy_read_seconds`;
   * each read waits three quarters to all of it, at random, and never past half a base window
   * after the last progress it saw): within it `observeUnchanged` gives
   * back its last parts though they changed, unless a stat is required (the check requires one
   * before any verdict but healthy), and `observe` with `mayDefer` reads its hook files and gives
   * back the transcript part of the last read, marked `isDeferred`. @defaultValue 0 (every check)
   */
  healthyReadMs?: number;
}

export interface ClaudeObserver extends TaskObserver {
  /** Save every position and parser state now (call on shutdown). */
  flush(nowMs: number): Promise<void>;
  /** Bad or oversized lines met since the last call, naming file and line. */
  drainDiagnostics(): ObserveDiagnostic[];
  /** Bytes read from disk and transcript-search filesystem calls, since creation. */
  stats(): { bytesRead: number; findStatCalls: number; opens: number; reads: number; prefixScans: number };
  /** The session a row belongs to as its records said at its last observation (a subagent's row may name none). */
  sessionOf(task: Task): string | undefined;
}

/** A child's activity file last written this long before its parent's call began is not its child, in ms. @defaultValue 5000 */
const CHILD_SLACK_MS = 5_000;

/** Build the observer the check uses for Claude Code agents. */
export function createClaudeObserver(opts: ClaudeObserverOptions): ClaudeObserver {
  // Change notification vouches for untouched files, so a steady check need not stat each one.
  const notes = opts.changeNotes instanceof ChangeNotes ? opts.changeNotes : opts.changeNotes === false ? undefined : new ChangeNotes();
  const reader = new TailReader(opts.tail, notes);
  const persistent = opts.isPersistent ?? true;
  const transcripts = createTranscriptTail(opts.paths.root, reader, { isPersistent: persistent });
  const hooks = createHookActivityReader(opts.paths, reader, { isPersistent: persistent });
  const finder = new TranscriptFinder(resolveProjectsDir({ configDir: opts.claudeConfigDir, env: opts.env ?? process.env, homeDir: opts.homeDir }));
  let lastPersistMs = -Infinity;
  const memos = new Map<string, Memo>();
  /** The session of each row that names none, as its records said (the run observer asks). */
  const sessionOfRow = new Map<string, string>();
  let checks = 0;
  const baseTimeoutMs = opts.baseTimeoutMs ?? DEFAULT_POLICY.baseTimeoutMs;
  const healthyReadMs = opts.healthyReadMs ?? 0;
  /** Each row's last whole transcript read (only with healthyReadMs): what a deferred observation reuses. */
  const lastReads = new Map<string, LastRead>();
  const isDeferrable = (l: LastRead, task: Task, file: string, nowMs: number) =>
    l.task === task && l.path === file && nowMs >= l.trace.readAtMs && nowMs < l.trace.readUntilMs && nowMs >= l.trace.fromMs && nowMs < l.trace.untilMs;
  /** What this observer's cold reads learned of a tail that vouches (cold-tail-prior.ts). */
  const coldTails = new ColdTailPrior();
  const prefixes = new PrefixIds(reader.opts.maxColdBytes, persistent ? opts.paths.observeFile('prefix-ids.json') : undefined);

  async function observeTranscript(
    task: Task,
    hook: HookState | undefined,
    nowMs: number,
    trace: Trace,
    mayDefer: boolean,
  ): Promise<PartialObservation | undefined> {
    if (!task.transcriptPath && !task.agentId && !task.sessionId) return undefined;
    const q: TranscriptQuery = {
      transcriptPath: task.transcriptPath,
      agentTranscriptPath: hook?.agentTranscriptPath,
      sessionTranscriptPath: hook?.transcriptPath,
      sessionId: task.sessionId ?? hook?.sessionId,
      agentId: task.agentId,
    };
    const missing = (reason: string): PartialObservation => ({ source: 'transcript', missing: [{ source: 'transcript', reason }] });
    const found = await finder.find(q, nowMs);
    trace.finderGeneration = finder.generation;
    trace.isMemoizable &&= found.ok;
    if (!found.ok) return missing(found.reason);
    const last = mayDefer ? lastReads.get(task.taskId) : undefined;
    if (last && isDeferrable(last, task, found.location.path, nowMs)) {
      // Read less than healthyReadMs ago, by this row: its parts stand for what the files gained since.
      Object.assign(trace, last.trace);
      last.deferred ??= { ...last.part, isDeferred: true };
      return last.deferred;
    }
    // A cold read starts at the size in records the recent cold reads needed, once most needed one.
    const coldTailBytes = coldTails.start();
    let r = await transcripts.read(found.location.path, nowMs, coldTailBytes === undefined ? undefined : { coldTailBytes });
    const isShortCold = r.ok && r.reset === 'cold' && r.handle.level === 0;
    // A lazy cold tail that cannot vouch for the verdict (tail-context.ts) is read again sized in
    // records when it was only too short in messages, then widened, then completed.
    let sizedBytes = 0;
    for (const context of ['more', 'wide', 'full'] as const) {
      if (!r.ok || tailSuffices(r.state, nowMs, baseTimeoutMs)) break;
      const tail = r.state.tail;
      const tailBytes = context === 'more' && tail ? sizedTailBytes(r.state, r.size - tail.from, nowMs, baseTimeoutMs) : undefined;
      if (context === 'more' && tailBytes === undefined) continue;
      if (context === 'more') sizedBytes = tailBytes!;
      // Not for lack of messages: no size in records would have vouched (nothing to learn).
      else if (sizedBytes === 0) sizedBytes = -1;
      r = await transcripts.read(found.location.path, nowMs, { context, tailBytes });
    }
    if (isShortCold && sizedBytes >= 0) coldTails.note(sizedBytes);
    if (!r.ok) {
      trace.isMemoizable = false;
      finder.invalidate(q);
      return missing(r.reason);
    }
    trace.files.push(r.handle);
    trace.fileVersions.push(r.version);
    trace.sessionId = r.state.sessionId;
    // A tail trusted alone is trusted only within the base window of its newest record.
    if (r.state.tail && r.state.lastEventMs !== undefined) trace.untilMs = Math.min(trace.untilMs, r.state.lastEventMs + baseTimeoutMs + 1);
    if (r.size > 0) {
      const same = mtimeSameAsOf(r.mtimeMs, nowMs);
      if (same) {
        trace.fromMs = Math.max(trace.fromMs, same.fromMs);
        trace.untilMs = Math.min(trace.untilMs, same.untilMs);
      } else trace.isMemoizable = false;
    }
    // Subagents waited on are found by listing directories and reading their files: never reused.
    trace.isMemoizable &&= !readsChildren(r.state);
    const children = await readWaitedChildren(transcripts, found.location.path, r.state, nowMs);
    const seen = summarizeWithChildren(r.state, { mtimeMs: r.size > 0 ? r.mtimeMs : undefined, nowMs }, children);
    const part = seen.waitingOnChildren ? withChildHooks(seen, await waitedChildHooks(seen.waitingOnChildren, r.state, task, nowMs)) : seen;
    part.contradictions = transcriptContradictions(r.state, task, found.location.path);
    part.transcriptFile = found.location.path;
    // A subagent's end is written in its parent's transcript (the Task/Agent result, or a task-notification).
    const flatParent = r.state.sessionId && path.join(path.dirname(found.location.path), `${r.state.sessionId}.jsonl`);
    const parentPath = found.location.parentPath ?? (task.agentId ? flatParent : undefined);
    if (task.agentId && parentPath && parentPath !== found.location.path && !part.finished) {
      let p = await transcripts.read(parentPath, nowMs);
      // A parent read from a tail alone: read back when the bytes before it may report this agent.
      if (
        p.ok &&
        p.state.tail &&
        !childCompletion(p.state, task.agentId) &&
        (await prefixes.mention(parentPath, p.state.tail.from, task.agentId, p.handle.position.cursor))
      ) {
        p = await transcripts.read(parentPath, nowMs, { context: 'full' });
      }
      if (p.ok) {
        trace.files.push(p.handle);
        trace.fileVersions.push(p.version);
      } else if (p.code === 'ENOENT') trace.absentFiles.push(parentPath);
      else trace.isMemoizable = false;
      const done = p.ok ? childCompletion(p.state, task.agentId) : undefined;
      if (done) part.finished = { kind: 'parent transcript reports the agent completed', atMs: done.atMs };
      // The subagent's interruption record says `rowSource: "harness"` whether Claude Code's stall
      // watchdog gave up on it or somebody stopped it (2.1.337, measured): the parent's notification
      // tells them apart. Stopped is a person's (or the app's, or the lead's) doing: never acted on.
      const stopped = p.ok && part.failed?.kind === 'runtime_killed' ? childStopped(p.state, task.agentId) : undefined;
      if (stopped) {
        delete part.failed;
        part.waitingHuman = {
          kind: 'interrupted',
          sinceMs: stopped.atMs,
          detail: 'stopped by the user or by the app connected to its session (its lead was told the task was killed); nobody resumes it but them',
        };
      }
    }
    return part;
  }

  /** The hook activity of the children a parent waits on: by id, and for a foreground child no record names, by its session. */
  async function waitedChildHooks(
    w: NonNullable<PartialObservation['waitingOnChildren']>,
    state: TranscriptState,
    task: Task,
    nowMs: number,
  ): Promise<ChildHooks[]> {
    const out: ChildHooks[] = [];
    for (const id of w.agentIds.filter((x) => AGENT_TASK_ID.test(x))) {
      const h = await hooks.read(id, nowMs);
      if (h.state) out.push({ agentId: id, state: h.state });
    }
    const labels = (w.unseenIds ?? []).filter((x) => !AGENT_TASK_ID.test(x));
    const sessionId = state.sessionId ?? task.sessionId;
    if (labels.length > 0 && sessionId && w.sinceMs !== undefined) {
      // Not a sibling the parent launched or named (a background subagent writes hooks too).
      const known = new Set([...state.tasks.map((t) => t.id), ...w.agentIds, ...(task.agentId ? [task.agentId] : [])]);
      const found = await hooks.sessionChildren(sessionId, w.sinceMs - CHILD_SLACK_MS, known, nowMs, labels.length);
      found.forEach((c, i) => out.push({ ...c, forCall: labels[i] }));
    }
    return out;
  }

  async function observe(task: Task, nowMs: number, mayDefer: boolean): Promise<PartialObservation[]> {
    // Kept again only if this observation completes and every input was a plain read.
    memos.delete(task.taskId);
    const parts: PartialObservation[] = [];
    const trace: Trace = {
      hookHandles: [],
      hookVersions: [],
      files: [],
      fileVersions: [],
      absentFiles: [],
      finderGeneration: finder.generation,
      fromMs: -Infinity,
      untilMs: Infinity,
      readAtMs: nowMs,
      // Each read waits its own share of healthyReadMs (three quarters to all of it): the reads of a
      // wave read together (a cold check) spread over checks instead of all falling due in one.
      readUntilMs: nowMs + healthyReadMs * (0.75 + Math.random() / 4),
      isMemoizable: true,
    };
    const hook = (read: { version?: number; handle?: IdHandle<HookState> }) => {
      if (read.handle) trace.hookHandles.push(read.handle);
      trace.hookVersions.push(read.version ?? -1);
      trace.isMemoizable &&= read.version !== undefined && read.handle !== undefined;
    };
    const ownId = task.agentId ?? task.sessionId;
    const own = await hooks.read(ownId, nowMs);
    hook(own);
    const wasMemoizable = trace.isMemoizable;
    trace.isMemoizable = true;
    const transcript = await observeTranscript(task, own.state, nowMs, trace, mayDefer);
    if (transcript && !transcript.isDeferred) {
      // Reads wait at most half a base window past the last progress they saw: the deadline of
      // the verdict judged on them stays a window away, so the loop does not wake for it (a wake
      // there would be a check to read what was left unread) and a check at its interval reads first.
      trace.readUntilMs = Math.min(trace.readUntilMs, (transcript.lastProgressMs ?? -Infinity) + baseTimeoutMs / 2);
      // A whole read of plain files: it may stand for the next ones until then.
      if (healthyReadMs > 0 && trace.isMemoizable && trace.readUntilMs > nowMs) lastReads.set(task.taskId, lastReadOf(task, transcript, trace));
    }
    trace.isMemoizable &&= wasMemoizable;
    // OpenTelemetry received for the session is the telemetry observer's (observe/read/telemetry-observer.ts).
    if (transcript) parts.push(transcript);
    if (own.state || own.unreadable) {
      let hp: PartialObservation = own.state ? summarizeHooks(own.state) : { source: 'hooks' };
      if (own.unreadable) hp.missing = [{ source: 'hooks', reason: own.unreadable }];
      // The Stop hook's running background subagents, when the transcript names none: their hooks are their progress.
      if (hp.waitingOnChildren && transcript?.waitingOnChildren) delete hp.waitingOnChildren;
      else if (hp.waitingOnChildren) {
        trace.isMemoizable = false; // the children's files are read, not traced
        hp = withChildHooks(hp, await waitedChildHooks(hp.waitingOnChildren, emptyTranscriptState(), task, nowMs));
      }
      parts.push(hp);
    }
    // A background subagent's permission prompt is raised in the main session (2.1.186+).
    const sessionId = task.sessionId ?? own.state?.sessionId ?? trace.sessionId;
    if (sessionId !== undefined && !task.sessionId) sessionOfRow.set(task.taskId, sessionId);
    if (task.agentId && sessionId && sessionId !== task.agentId) {
      const session = await hooks.read(sessionId, nowMs);
      hook(session);
      const lastTool = parts.map((p) => p.lastTool).find((t) => t?.isOpen);
      const prompt =
        session.state &&
        inheritSessionPrompt(session.state, {
          openSinceMs: lastTool?.startedAtMs,
          isOpen: !!lastTool,
          lastProgressMs: maxOf(...parts.map((p) => p.lastProgressMs)),
        });
      if (prompt) parts.push({ source: 'hooks', waitingHuman: prompt });
      // The session's run ended (SessionEnd): its subagents died with it.
      if (session.state?.sessionEnded) parts.push({ source: 'hooks', runEnded: runEndedOf(session.state.sessionEnded) });
    }
    if (trace.isMemoizable) memos.set(task.taskId, memoOf(trace, task, parts, checks));
    return parts;
  }

  /** The parts of the last `observe(task)` when nothing they were built from changed; undefined: call `observe`. */
  function observeUnchanged(task: Task, nowMs: number, isStatRequired = false): PartialObservation[] | undefined {
    const m = memos.get(task.taskId);
    if (!m || m.task !== task || nowMs < m.fromMs || nowMs >= m.untilMs || m.finderGeneration !== finder.generation) return undefined;
    // Handles, not ids or paths: a few field reads per file, no lookups (issue 23).
    for (let i = 0; i < m.hookHandles.length; i++) if (hooks.peekHandle(m.hookHandles[i]!, nowMs, isStatRequired) !== m.hookVersions[i]) return undefined;
    // Transcripts read less than healthyReadMs ago: what they gained since waits (issue 37). Healthy
    // is all the check concludes from this; anything else asks again with a stat required, which
    // compares them with the versions of that read (a deferred observation keeps those too).
    if (isStatRequired || nowMs < m.readAtMs || nowMs >= m.readUntilMs)
      for (let i = 0; i < m.files.length; i++) if (transcripts.peekHandle(m.files[i]!, nowMs, isStatRequired) !== m.fileVersions[i]) return undefined;
    for (let i = 0; i < m.absentFiles.length; i++) if (!transcripts.isStillAbsent(m.absentFiles[i]!, isStatRequired)) return undefined;
    m.usedInCheck = checks;
    return m.parts;
  }

  /** Save what changed; `saveAgeMs`: a periodic save, which leaves a file saved that recently for later (TailTracker.flush). */
  const flush = async (nowMs: number, saveAgeMs = 0) => {
    lastPersistMs = nowMs;
    await Promise.all([transcripts.flush(nowMs, saveAgeMs), hooks.flush(nowMs, saveAgeMs), prefixes.save()]);
  };

  return {
    name: 'claude-code',
    beginCheck(nowMs) {
      // Last reads past their use are dropped now and then.
      if (lastReads.size > 0 && checks % MEMO_SWEEP_CHECKS === 0) for (const [id, l] of lastReads) if (nowMs >= l.trace.readUntilMs) lastReads.delete(id);
      transcripts.beginCheck();
      hooks.beginCheck();
      notes?.beginCheck();
      // Descriptors past their age are closed even when their file is not read again (it may be gone: its space is freed).
      reader.open?.sweep();
      const settled = notes?.settle();
      // Tasks no longer observed (gone from the wave, finished): their memos go too, swept now and then.
      if (++checks % MEMO_SWEEP_CHECKS === 0) for (const [id, m] of memos) if (checks - m.usedInCheck > MEMO_SWEEP_CHECKS) memos.delete(id);
      return settled;
    },
    async observe(task, nowMs, mayDefer) {
      try {
        return await observe(task, nowMs, mayDefer === true);
      } catch (e) {
        const reason = `observing ${task.taskId} failed: ${e instanceof Error ? e.message : String(e)}`;
        return [{ source: 'transcript', missing: [{ source: 'transcript', reason }] }];
      }
    },
    observeUnchanged,
    // Positions are saved every persistEveryMs, once the check's verdicts are out: at 10,000 agents
    // the save after a cold check is 22 MB of JSON, which a deadline falling due should not wait for.
    async endCheck(nowMs) {
      // Each file at most once a minute (a busy wave changes every file between two saves): a crash costs a longer re-read.
      if (persistent && nowMs - lastPersistMs >= (opts.persistEveryMs ?? 10_000)) await flush(nowMs, SAVE_AGE_MS).catch(() => undefined);
    },
    flush: async (nowMs) => {
      await flush(nowMs);
      // The watchdog stops: descriptors kept between checks go (a later read opens its file again).
      reader.open?.closeAll();
    },
    drainDiagnostics: () => [...transcripts.drainDiagnostics(), ...hooks.drainDiagnostics()],
    sessionOf: (task) => task.sessionId ?? sessionOfRow.get(task.taskId),
    stats: () => ({ bytesRead: reader.bytesRead, findStatCalls: finder.statCalls, opens: reader.opens, reads: reader.reads, prefixScans: prefixes.scans }),
  };
}
