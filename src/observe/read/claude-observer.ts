// The Claude Code observer: per task, hook activity (activity/<agent or session id>.ndjson) and
// the agent's transcript, each read incrementally, as one PartialObservation per source.
// Positions and parser states persist under <stateDir>/observe/ across restarts.
import path from 'node:path';
import type { Task } from '../../contracts/state-file.js';
import type { StatePaths } from '../../journal/paths.js';
import { resolveProjectsDir, TranscriptFinder, type TranscriptQuery } from './find-transcript.js';
import { createHookActivityReader } from './hook-activity.js';
import type { PartialObservation } from '../parse/observation.js';
import type { TaskObserver } from './observer.js';
import { inheritSessionPrompt, summarizeHooks, type HookState } from '../parse/parse-hook-activity.js';
import { childCompletion, transcriptContradictions, type ObserveDiagnostic } from '../parse/parse-transcript.js';
import { observeTranscript as summarizeWithChildren } from '../parse/observe-transcript.js';
import { readWaitedChildren } from './child-transcripts.js';
import { TailReader, type TailOptions } from './tail-file.js';
import { createTranscriptTail } from './transcript-tail.js';

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
}

export interface ClaudeObserver extends TaskObserver {
  /** Save every position and parser state now (call on shutdown). */
  flush(nowMs: number): Promise<void>;
  /** Bad or oversized lines met since the last call, naming file and line. */
  drainDiagnostics(): ObserveDiagnostic[];
  /** Bytes read from disk and transcript-search filesystem calls, since creation. */
  stats(): { bytesRead: number; findStatCalls: number; opens: number };
}

const maxOf = (...xs: (number | undefined)[]) => xs.reduce<number | undefined>((m, x) => (x === undefined ? m : m === undefined ? x : Math.max(m, x)), undefined);

/** Build the observer the check uses for Claude Code agents. */
export function createClaudeObserver(opts: ClaudeObserverOptions): ClaudeObserver {
  const reader = new TailReader(opts.tail);
  const persistent = opts.isPersistent ?? true;
  const transcripts = createTranscriptTail(opts.paths.root, reader, { isPersistent: persistent });
  const hooks = createHookActivityReader(opts.paths, reader, { isPersistent: persistent });
  const finder = new TranscriptFinder(resolveProjectsDir({ configDir: opts.claudeConfigDir, env: opts.env ?? process.env, homeDir: opts.homeDir }));
  let lastPersistMs = -Infinity;

  async function observeTranscript(task: Task, hook: HookState | undefined, nowMs: number): Promise<PartialObservation | undefined> {
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
    if (!found.ok) return missing(found.reason);
    const r = await transcripts.read(found.location.path, nowMs);
    if (!r.ok) {
      finder.invalidate(q);
      return missing(r.reason);
    }
    const children = await readWaitedChildren(transcripts, found.location.path, r.state, nowMs);
    const part = summarizeWithChildren(r.state, { mtimeMs: r.size > 0 ? r.mtimeMs : undefined, nowMs }, children);
    part.contradictions = transcriptContradictions(r.state, task, found.location.path);
    // A subagent's end is written in its parent's transcript (the Task/Agent result, or a task-notification).
    const flatParent = r.state.sessionId && path.join(path.dirname(found.location.path), `${r.state.sessionId}.jsonl`);
    const parentPath = found.location.parentPath ?? (task.agentId ? flatParent : undefined);
    if (task.agentId && parentPath && parentPath !== found.location.path && !part.finished) {
      const p = await transcripts.read(parentPath, nowMs);
      const done = p.ok ? childCompletion(p.state, task.agentId) : undefined;
      if (done) part.finished = { kind: 'parent transcript reports the agent completed', atMs: done.atMs };
    }
    return part;
  }

  async function observe(task: Task, nowMs: number): Promise<PartialObservation[]> {
    const parts: PartialObservation[] = [];
    const own = await hooks.read(task.agentId ?? task.sessionId, nowMs);
    const transcript = await observeTranscript(task, own.state, nowMs);
    if (transcript) parts.push(transcript);
    if (own.state || own.unreadable) {
      const hp: PartialObservation = own.state ? summarizeHooks(own.state) : { source: 'hooks' };
      if (own.unreadable) hp.missing = [{ source: 'hooks', reason: own.unreadable }];
      parts.push(hp);
    }
    // A background subagent's permission prompt is raised in the main session (2.1.186+).
    const sessionId = task.sessionId ?? own.state?.sessionId;
    if (task.agentId && sessionId && sessionId !== task.agentId) {
      const session = await hooks.read(sessionId, nowMs);
      const lastTool = parts.map((p) => p.lastTool).find((t) => t?.isOpen);
      const prompt = session.state && inheritSessionPrompt(session.state, { openSinceMs: lastTool?.startedAtMs, isOpen: !!lastTool, lastProgressMs: maxOf(...parts.map((p) => p.lastProgressMs)) });
      if (prompt) parts.push({ source: 'hooks', waitingHuman: prompt });
    }
    return parts;
  }

  const flush = async (nowMs: number) => {
    lastPersistMs = nowMs;
    await Promise.all([transcripts.flush(nowMs), hooks.flush(nowMs)]);
  };

  return {
    name: 'claude-code',
    beginCheck() {
      transcripts.beginCheck();
      hooks.beginCheck();
    },
    async observe(task, nowMs) {
      try {
        const parts = await observe(task, nowMs);
        if (persistent && nowMs - lastPersistMs >= (opts.persistEveryMs ?? 10_000)) await flush(nowMs).catch(() => undefined);
        return parts;
      } catch (e) {
        const reason = `observing ${task.taskId} failed: ${e instanceof Error ? e.message : String(e)}`;
        return [{ source: 'transcript', missing: [{ source: 'transcript', reason }] }];
      }
    },
    flush,
    drainDiagnostics: () => [...transcripts.drainDiagnostics(), ...hooks.drainDiagnostics()],
    stats: () => ({ bytesRead: reader.bytesRead, findStatCalls: finder.statCalls, opens: reader.opens }),
  };
}
