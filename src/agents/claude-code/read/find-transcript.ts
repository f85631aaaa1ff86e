// Finds a task's Claude Code transcript: the row's transcript_path, a path a hook reported, or
// a search by session_id + agent_id under <config dir>/projects (claude-code-surfaces.md §1.1):
// `<project>/<session>/subagents/agent-<id>.jsonl`, the older flat `<project>/agent-<id>.jsonl`
// (2.0.x and earlier; also beside a given session path), and `<project>/<session>.jsonl` for a main session. Results are cached, so a steady check
// costs no directory listing; a failed search is retried at every check for `retryMs`, then at most every `retryMs`
// — except that a change of the projects dir (a new project dir: the first session in a fresh worktree) lists it
// again and retries every miss at once, so a new agent's transcript is found on the next check.
import { promises as fs, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TranscriptLocation {
  path: string;
  /** The parent session transcript of a subagent, where its completion is reported. */
  parentPath?: string;
}

export type FindResult = { ok: true; location: TranscriptLocation } | { ok: false; reason: string };

/** What identifies a transcript: the row's fields, plus paths learned from hook events. */
export interface TranscriptQuery {
  /** The row's transcript_path: trusted as the agent's own file (unless a subagent file sits beside it). */
  transcriptPath?: string;
  /** A hook's agent_transcript_path: the agent's own file. */
  agentTranscriptPath?: string;
  /** A hook's transcript_path: always the main session's file, even inside a subagent. */
  sessionTranscriptPath?: string;
  sessionId?: string;
  agentId?: string;
}

/** `<configDir>/projects`: configDir > $CLAUDE_CONFIG_DIR > ~/.claude. */
export function resolveProjectsDir(opts: { configDir?: string; env?: NodeJS.ProcessEnv; homeDir?: string } = {}): string {
  const home = opts.homeDir ?? os.homedir();
  const dir = opts.configDir ?? opts.env?.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude');
  return path.join(expandHome(dir, home), 'projects');
}

/** `~/x` → `<home>/x`; a relative path is made absolute. */
export function expandHome(p: string, home = os.homedir()): string {
  if (p === '~' || p.startsWith('~/')) return path.join(home, p.slice(1));
  return path.resolve(p);
}

/** `<dir>/<session>.jsonl` → `<dir>/<session>/subagents/agent-<id>.jsonl`. */
export function subagentPathFor(sessionFile: string, agentId: string): string {
  const session = path.basename(sessionFile, '.jsonl');
  return path.join(path.dirname(sessionFile), session, 'subagents', `agent-${agentId}.jsonl`);
}

/** `<dir>/<session>.jsonl` → the older flat layout's `<dir>/agent-<id>.jsonl` (2.0.x and earlier). */
export function flatSubagentPathFor(sessionFile: string, agentId: string): string {
  return path.join(path.dirname(sessionFile), `agent-${agentId}.jsonl`);
}

/** `<dir>/<session>/subagents/agent-<id>.jsonl` → `<dir>/<session>.jsonl`; undefined for other layouts. */
export function parentPathOf(subagentFile: string): string | undefined {
  const sub = path.dirname(subagentFile);
  if (path.basename(sub) !== 'subagents' || !path.basename(subagentFile).startsWith('agent-')) return undefined;
  const sessionDir = path.dirname(sub);
  return path.join(path.dirname(sessionDir), `${path.basename(sessionDir)}.jsonl`);
}

// NUL never occurs in a path or an id; undefined and '' differ by a marker.
const part = (v: string | undefined) => (v === undefined ? '\u0001' : v);
const keyOf = (q: TranscriptQuery) =>
  `${part(q.transcriptPath)}\u0000${part(q.agentTranscriptPath)}\u0000${part(q.sessionTranscriptPath)}\u0000${part(q.sessionId)}\u0000${part(q.agentId)}`;
// Synchronous: a cold check searches for 1,000 transcripts, and an awaited stat is a thread-pool round trip.
const exists = (p: string) => {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
};

/** Caches lookups; `statCalls` counts filesystem calls made (for tests). */
export class TranscriptFinder {
  statCalls = 0;
  /** Moves whenever a cached answer is forgotten: an answer found before is still the answer while it holds. */
  generation = 0;
  private found = new Map<string, TranscriptLocation>();
  private failed = new Map<string, { reason: string; atMs: number; firstAtMs: number; stamp: bigint | undefined }>();
  private projects?: { dirs: string[]; atMs: number; stamp: bigint | undefined };
  /** The projects dir's mtime (ns), stat'ed at most once per check moment. */
  private stampAt?: { nowMs: number; stamp: bigint | undefined };

  constructor(
    readonly projectsDir: string,
    private readonly opts: { retryMs?: number; listTtlMs?: number } = {},
  ) {}

  /** Locate the transcript for `q`; a cached answer costs no I/O. */
  async find(q: TranscriptQuery, nowMs: number): Promise<FindResult> {
    const key = keyOf(q);
    const hit = this.found.get(key);
    if (hit) return { ok: true, location: hit };
    const miss = this.failed.get(key);
    const retryMs = this.opts.retryMs ?? 30_000;
    // A new row's agent writes its transcript within seconds: look again at every check until the
    // search has failed for a whole retry period; only then are misses cached.
    if (miss && nowMs - miss.firstAtMs >= retryMs && nowMs - miss.atMs < retryMs && miss.stamp === this.stamp(nowMs)) return { ok: false, reason: miss.reason };
    const res = await this.search(q, nowMs);
    if (res.ok) {
      this.found.set(key, res.location);
      this.failed.delete(key);
    } else this.failed.set(key, { reason: res.reason, atMs: nowMs, firstAtMs: miss?.firstAtMs ?? nowMs, stamp: this.stamp(nowMs) });
    return res;
  }

  /** The projects dir's mtime in ns (undefined while it does not exist): it moves when a project dir is made. */
  private stamp(nowMs: number): bigint | undefined {
    if (this.stampAt?.nowMs === nowMs) return this.stampAt.stamp;
    this.statCalls++;
    let stamp: bigint | undefined;
    try {
      stamp = statSync(this.projectsDir, { bigint: true, throwIfNoEntry: false })?.mtimeNs;
    } catch {
      stamp = undefined;
    }
    this.stampAt = { nowMs, stamp };
    return stamp;
  }

  /** Forget a cached answer (the file vanished or was moved). */
  invalidate(q: TranscriptQuery): void {
    this.generation++;
    this.found.delete(keyOf(q));
  }

  private async has(p: string): Promise<boolean> {
    this.statCalls++;
    return exists(p);
  }

  private async search(q: TranscriptQuery, nowMs: number): Promise<FindResult> {
    const { agentId, sessionId } = q;
    for (const given of [q.agentTranscriptPath, q.transcriptPath]) {
      if (!given) continue;
      const file = expandHome(given);
      // Hook payloads give the main session's path even inside a subagent: prefer the subagent's file.
      if (agentId && !path.basename(file).startsWith('agent-')) {
        for (const sub of [subagentPathFor(file, agentId), flatSubagentPathFor(file, agentId)]) {
          if (await this.has(sub)) return { ok: true, location: { path: sub, parentPath: file } };
        }
      }
      if (await this.has(file)) return { ok: true, location: { path: file, parentPath: parentPathOf(file) } };
    }
    if (q.sessionTranscriptPath) {
      const main = expandHome(q.sessionTranscriptPath);
      for (const file of agentId ? [subagentPathFor(main, agentId), flatSubagentPathFor(main, agentId)] : [main]) {
        if (await this.has(file)) return { ok: true, location: { path: file, parentPath: agentId ? main : undefined } };
      }
    }
    if (!agentId && !sessionId) {
      return {
        ok: false,
        reason: `transcript_path ${q.transcriptPath ?? q.agentTranscriptPath} does not exist (and the task has no session_id or agent_id to search by)`,
      };
    }
    const dirs = await this.projectDirs(nowMs);
    const names = agentId
      ? [...(sessionId ? [path.join(sessionId, 'subagents', `agent-${agentId}.jsonl`)] : []), `agent-${agentId}.jsonl`]
      : [`${sessionId}.jsonl`];
    for (const dir of dirs) {
      for (const name of names) {
        const file = path.join(dir, name);
        if (await this.has(file)) {
          const parentPath = parentPathOf(file) ?? (agentId && sessionId ? path.join(dir, `${sessionId}.jsonl`) : undefined);
          return { ok: true, location: { path: file, parentPath } };
        }
      }
    }
    if (agentId && !sessionId) {
      const found = await this.scanSessions(dirs, agentId);
      if (found) return { ok: true, location: { path: found, parentPath: parentPathOf(found) } };
    }
    const who = [agentId && `agent "${agentId}"`, sessionId && `session "${sessionId}"`].filter(Boolean).join(' in ');
    const given = q.transcriptPath ? `transcript_path ${q.transcriptPath} does not exist; ` : '';
    return { ok: false, reason: `${given}no transcript for ${who} under ${this.projectsDir} (looked for ${names.join(', ')} in ${dirs.length} project dirs)` };
  }

  /** An agent id without a session: look in every session's subagents/ (once; cached after). */
  private async scanSessions(dirs: string[], agentId: string): Promise<string | undefined> {
    for (const dir of dirs) {
      this.statCalls++;
      const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (!e.isDirectory()) continue;
        const file = path.join(dir, e.name, 'subagents', `agent-${agentId}.jsonl`);
        if (await this.has(file)) return file;
      }
    }
    return undefined;
  }

  private async projectDirs(nowMs: number): Promise<string[]> {
    const stamp = this.stamp(nowMs);
    if (this.projects && nowMs - this.projects.atMs < (this.opts.listTtlMs ?? 60_000) && this.projects.stamp === stamp) return this.projects.dirs;
    this.statCalls++;
    const entries = await fs.readdir(this.projectsDir, { withFileTypes: true }).catch(() => []);
    const dirs = entries.filter((e) => e.isDirectory()).map((e) => path.join(this.projectsDir, e.name));
    this.projects = { dirs, atMs: nowMs, stamp };
    return dirs;
  }
}
