// claude-team adapter: appends a `shutdown_request` (requestId = the idempotency key) to a Claude Code
// teammate's inbox, `<teams_dir>/<team>/inboxes/<name>.json` (reference §3.5), under the inbox lock,
// replacing the file atomically so the JSON array is never torn. Redispatch writes a mailbox request.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { msToIso } from '../../../contracts/time.js';
import { createFileExclusive, writeFileAtomic } from '../../../files/atomic-write.js';
import type { AdapterDeps, AgentAdapter, AgentsConfig, CancelRequest, MarkerState } from '../../../act/agents/adapter.js';
import { acquireLocks } from './inbox-lock.js';
import { launchKindOf, requestMarker, writeNudgeRequest, writeRequest } from '../../../act/agents/mailbox.js';
import { failed, ioFailure, succeeded } from '../../../act/agents/outcome.js';
import { stepFile } from '../../../act/agents/step-file.js';

/** Teammates answer a shutdown request to its sender; the lead is the only sender they are known to obey. */
export const SHUTDOWN_SENDER = 'team-lead';

export interface ClaudeTeamOptions {
  lockWaitMs?: number;
  lockStaleMs?: number;
}

/** Claude Code's own file-name rule for team and agent names (anything else becomes "-"). */
const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_-]/g, '-');

/** The inbox of the task's teammate: names from team_name/agent_name, else from agent_id `name@team`. */
export function inboxTarget(teamsDir: string, req: CancelRequest): { dir: string; file: string; locks: string[] } | string {
  const [idName, idTeam] = (req.task.agentId ?? '').split('@');
  const team = req.task.teamName ?? idTeam;
  const name = req.task.agentName ?? (idTeam ? idName : undefined);
  if (!team || !name)
    return `task ${req.task.taskId} has no team_name and agent_name (or agent_id "name@team"): the claude-team adapter cannot find its inbox.`;
  const dir = path.join(teamsDir, sanitize(team), 'inboxes');
  const file = path.join(dir, `${sanitize(name)}.json`);
  // Reference §3.2 names `<name>.lock`; Claude Code's proper-lockfile call uses `<name>.json.lock`. Take both.
  return { dir, file, locks: [`${file}.lock`, path.join(dir, `${sanitize(name)}.lock`)] };
}

/** Our local receipt, written after the inbox write: still a marker if Claude Code clears the inbox. */
const receiptFile = (req: CancelRequest) => stepFile(req.paths.inboxSentDir(req.epicId), req.key, 'cancel');

/** The inbox as an array; `[]` when absent; undefined when it is not a JSON array (never overwritten then). */
async function readInbox(file: string): Promise<unknown[] | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Is there a shutdown_request with this requestId in the inbox (the protocol message is JSON in `text`)? */
export function hasShutdownRequest(messages: readonly unknown[], requestId: string): boolean {
  return messages.some((m) => {
    const text = (m as { text?: unknown } | null)?.text;
    if (typeof text !== 'string' || !text.startsWith('{')) return false;
    try {
      const p = JSON.parse(text) as { type?: unknown; requestId?: unknown };
      return p.type === 'shutdown_request' && p.requestId === requestId;
    } catch {
      return false;
    }
  });
}

const exists = (f: string) =>
  fs.access(f).then(
    () => true,
    () => false,
  );

const nudgeReceipt = (req: CancelRequest) => stepFile(req.paths.inboxSentDir(req.epicId), req.key, 'nudge');
const nudgeTag = (key: string) => `[dispatch-watchdog ${key}]`;
const hasNudge = (messages: readonly unknown[], key: string) =>
  messages.some((m) => String((m as { text?: unknown } | null)?.text ?? '').endsWith(nudgeTag(key)));

/** One message for the teammate's inbox: what it is (for the outcome), its receipt, how to find it, how to make it. */
interface InboxMessage {
  op: 'cancel' | 'nudge';
  what: string;
  receipt: string;
  isThere: (messages: readonly unknown[]) => boolean;
  make: (nowIso: string) => Record<string, unknown>;
}

/** Append one message to the teammate's inbox under its lock, once (its receipt, or the message found there, says it was sent). */
async function appendOnce(teamsDir: string, req: CancelRequest, m: InboxMessage, deps: AdapterDeps, lockOpts: Parameters<typeof acquireLocks>[1]) {
  const { op, what } = m;
  const target = inboxTarget(teamsDir, req);
  if (typeof target === 'string') return failed(op, 'claude-team', 'missing_target', target);
  if (await exists(m.receipt)) return succeeded(op, 'claude-team', `${what} was already sent.`, { wasAlreadyDone: true, markerPath: target.file });
  if (!(await exists(path.dirname(target.dir)))) {
    return failed(
      op,
      'claude-team',
      'missing_target',
      `no team directory ${path.dirname(target.dir)}: the team of task ${req.task.taskId} does not exist (check team_name and agents.teams_dir).`,
    );
  }
  let sent: boolean;
  try {
    await fs.mkdir(target.dir, { recursive: true });
    const lock = await acquireLocks(target.locks, lockOpts);
    if (!lock.ok) return failed(op, 'claude-team', 'lock_held', `inbox not written: ${lock.detail}`, { retryable: lock.retryable, markerPath: target.file });
    try {
      const messages = await readInbox(target.file);
      if (!messages)
        return failed(op, 'claude-team', 'inbox_invalid', `${target.file} is not a JSON array; left untouched.`, { retryable: true, markerPath: target.file });
      sent = !m.isThere(messages);
      if (sent) {
        messages.push(m.make(msToIso(deps.clock.nowMs())));
        const mode = (await fs.stat(target.file).catch(() => undefined))?.mode;
        await writeFileAtomic(target.file, JSON.stringify(messages, null, 2), { mode: mode === undefined ? undefined : mode & 0o777 });
      }
    } finally {
      await lock.release();
    }
    await createFileExclusive(m.receipt, JSON.stringify({ key: req.key, inbox: target.file }) + '\n');
  } catch (e) {
    return ioFailure(op, 'claude-team', `writing to ${target.file}`, e, target.file);
  }
  return sent
    ? succeeded(op, 'claude-team', `${what} appended to ${target.file}.`, { markerPath: target.file })
    : succeeded(op, 'claude-team', `${target.file} already holds ${what}; not sent again.`, { wasAlreadyDone: true, markerPath: target.file });
}

/** The claude-team adapter. */
export function createClaudeTeamAdapter(agents: AgentsConfig, deps: AdapterDeps, opts: ClaudeTeamOptions = {}): AgentAdapter {
  const home = deps.homeDir ?? os.homedir();
  const teamsDir = agents.teams_dir ? agents.teams_dir.replace(/^~(?=\/|$)/, home) : path.join(home, '.claude', 'teams');
  const lockOpts = { clock: deps.clock, waitMs: opts.lockWaitMs, staleMs: opts.lockStaleMs };
  return {
    name: 'claude-team',
    cancel: (req) =>
      appendOnce(
        teamsDir,
        req,
        {
          op: 'cancel',
          what: `shutdown_request ${req.key}`,
          receipt: receiptFile(req),
          isThere: (m) => hasShutdownRequest(m, req.key),
          make: (now) => {
            const reason = req.reason ?? 'dispatch-watchdog: no progress; stopping this agent so the ticket can be recovered.';
            const text = JSON.stringify({ type: 'shutdown_request', requestId: req.key, from: SHUTDOWN_SENDER, reason, timestamp: now });
            return { from: SHUTDOWN_SENDER, text, timestamp: now, read: false, summary: 'Stall recovery: shutdown requested' };
          },
        },
        deps,
        lockOpts,
      ),
    async cancelMarker(req): Promise<MarkerState> {
      if (await exists(receiptFile(req))) return 'done';
      const target = inboxTarget(teamsDir, req);
      if (typeof target === 'string') return 'unknown';
      try {
        const messages = await readInbox(target.file);
        return messages === undefined ? 'unknown' : hasShutdownRequest(messages, req.key) ? 'done' : 'absent';
      } catch {
        return 'unknown';
      }
    },
    redispatch: (req) => writeRequest(req, launchKindOf(req), deps, 'claude-team'),
    redispatchMarker: (req) => requestMarker(req, launchKindOf(req)),
    // A plain message in the teammate's inbox, read between its turns, tagged with its key (its marker).
    nudge: (req) =>
      req.route === 'inbox'
        ? appendOnce(
            teamsDir,
            req,
            {
              op: 'nudge',
              what: `nudge ${req.key}`,
              receipt: nudgeReceipt(req),
              isThere: (m) => hasNudge(m, req.key),
              make: (now) => ({
                from: SHUTDOWN_SENDER,
                text: `${req.message} ${nudgeTag(req.key)}`,
                timestamp: now,
                read: false,
                summary: 'Your ticket is still in progress',
              }),
            },
            deps,
            lockOpts,
          )
        : writeNudgeRequest(req, deps, 'claude-team'),
    async nudgeMarker(req): Promise<MarkerState> {
      if ((await exists(nudgeReceipt(req))) || (await requestMarker(req, 'nudge')) === 'done') return 'done';
      const target = inboxTarget(teamsDir, req);
      if (typeof target === 'string') return 'absent';
      const messages = await readInbox(target.file).catch(() => undefined);
      return messages === undefined ? 'unknown' : hasNudge(messages, req.key) ? 'done' : 'absent';
    },
  };
}
