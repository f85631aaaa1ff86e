// The state dir's layout (DESIGN §2, docs/state-files.md): every path under it, and what each of
// its entries is, who writes it and when `prune` may remove it. Ids are validated here, so no path
// escapes the state dir. Pure: paths are computed, nothing is read or written (writes under a
// state dir refuse symlinks once the shell calls atomic-write.ts guardStateDir).
import path from 'node:path';
import { InputError } from '../contracts/errors.js';
import { isSafeId, SAFE_ID_RULE } from '../contracts/ids.js';

/** Throw a clear InputError unless `id` is a safe single path segment. */
export function assertSafeId(id: string, what: string): string {
  if (!isSafeId(id)) {
    const shown = JSON.stringify(id.length > 60 ? id.slice(0, 57) + '...' : id);
    throw new InputError('unsafe_id', `${what} ${shown} cannot be used: expected ${SAFE_ID_RULE}.`, {
      hint: `Use an id such as "PROJ-1000"; an id with "/" or ".." would make a path outside the state dir.`,
    });
  }
  return id;
}

/** Lower-cased ticket id as used in friction file names. */
const lower = (id: string) => id.toLowerCase();

export class StatePaths {
  readonly root: string;
  constructor(stateDir: string) {
    this.root = path.resolve(stateDir);
  }
  epicDir(epicId: string) {
    return path.join(this.root, 'epics', assertSafeId(epicId, 'epic id'));
  }
  stateFile(epicId: string) {
    return path.join(this.epicDir(epicId), 'state.yaml');
  }
  watchdogJson(epicId: string) {
    return path.join(this.epicDir(epicId), 'watchdog.json');
  }
  lockFile(epicId: string) {
    return path.join(this.epicDir(epicId), 'watchdog.lock');
  }
  requestsDir(epicId: string) {
    return path.join(this.epicDir(epicId), 'requests');
  }
  /** Answers given with `dispatch-watchdog ack`, one file per key (outside requests/, which the orchestrator may clean). */
  acksDir(epicId: string) {
    return path.join(this.epicDir(epicId), 'acks');
  }
  /** One marker per webhook notification (act/notify/). */
  notifyDir(epicId: string) {
    return path.join(this.epicDir(epicId), 'notify');
  }
  dispatchLogDir() {
    return path.join(this.root, 'dispatch-log');
  }
  dispatchLog(utcDate: string) {
    return path.join(this.dispatchLogDir(), `${utcDate}.ndjson`);
  }
  /** The derived summary of the dispatch log for one epic (fast start-up; rebuilt when missing). */
  historySummary(epicId: string) {
    return path.join(this.root, 'observe', 'history', `${assertSafeId(epicId, 'epic id')}.json`);
  }
  activityDir() {
    return path.join(this.root, 'activity');
  }
  activityFile(agentOrSessionId: string) {
    return path.join(this.activityDir(), `${assertSafeId(agentOrSessionId, 'agent or session id')}.ndjson`);
  }
  /** What the OTLP receiver keeps (docs/fleet.md): one event file per session, and hosts.json. */
  telemetryDir() {
    return path.join(this.root, 'telemetry');
  }
  telemetryFile(sessionId: string) {
    return path.join(this.telemetryDir(), `${assertSafeId(sessionId, 'session id')}.ndjson`);
  }
  telemetryHosts() {
    return path.join(this.telemetryDir(), 'hosts.json');
  }
  checkpointDir(ticketId: string) {
    return path.join(this.root, 'pipeline_checkpoints', assertSafeId(ticketId, 'ticket id'));
  }
  checkpoint(ticketId: string, attempt: number) {
    return path.join(this.checkpointDir(ticketId), `recovery-${attempt}.yaml`);
  }
  frictionDir() {
    return path.join(this.root, 'friction');
  }
  frictionFile(utcDate: string, ticketId: string) {
    return path.join(this.frictionDir(), `${utcDate}-stall-escalation-${lower(assertSafeId(ticketId, 'ticket id'))}.md`);
  }
  configFile() {
    return path.join(this.root, 'watchdog.config.yaml');
  }
  /** A path relative to the state dir, for messages and events. */
  relative(p: string) {
    return path.relative(this.root, p) || '.';
  }
}

/**
 * When `prune` may remove an entry's files, once they are older than --older-than: `never`;
 * `finished_epic` when the epic's wave is over and no live watchdog holds it; `unused` whatever
 * the epic (derived data, rebuilt when needed, or a finished session's); `checkpoint` when the
 * checkpoint's own epic is finished or gone.
 */
export type PruneRule = 'never' | 'finished_epic' | 'unused' | 'checkpoint';

export interface LayoutEntry {
  /** A name in the state dir (`in: 'root'`) or in an epic's dir (`in: 'epic'`); a final `*` matches any rest. */
  name: string;
  in: 'root' | 'epic';
  owner: 'orchestrator' | 'watchdog' | 'hook' | 'receiver' | 'user';
  prune: PruneRule;
  /** Why prune removes it (`unused` entries), `{age}` standing for --older-than. */
  pruneWhy?: string;
}

/** Everything the state dir holds (epics/<epic>/ holds the `in: 'epic'` entries). A new file or folder gets a row here. */
export const STATE_DIR_LAYOUT: readonly LayoutEntry[] = [
  { in: 'epic', name: 'state.yaml', owner: 'orchestrator', prune: 'never' },
  { in: 'epic', name: 'watchdog.json', owner: 'watchdog', prune: 'finished_epic' },
  { in: 'epic', name: 'watchdog.lock', owner: 'watchdog', prune: 'finished_epic' },
  // A dead holder's lock, renamed aside by the next watchdog (journal/lock.ts).
  { in: 'epic', name: 'watchdog.lock.stale.*', owner: 'watchdog', prune: 'finished_epic' },
  // The short mutex of a stale-lock takeover (journal/lock.ts), left by a watchdog killed mid-takeover.
  { in: 'epic', name: 'watchdog.lock.takeover', owner: 'watchdog', prune: 'finished_epic' },
  { in: 'epic', name: 'requests', owner: 'watchdog', prune: 'finished_epic' },
  { in: 'epic', name: 'acks', owner: 'watchdog', prune: 'finished_epic' },
  // What the process, command and claude-team adapters keep: logs, prompts, step markers.
  { in: 'epic', name: 'agents', owner: 'watchdog', prune: 'finished_epic' },
  { in: 'epic', name: 'launches', owner: 'watchdog', prune: 'finished_epic' },
  { in: 'epic', name: 'commands', owner: 'watchdog', prune: 'finished_epic' },
  { in: 'epic', name: 'inbox-sent', owner: 'watchdog', prune: 'finished_epic' },
  // One marker per webhook notification: sending, sent, failed.
  { in: 'epic', name: 'notify', owner: 'watchdog', prune: 'finished_epic' },
  { in: 'root', name: 'epics', owner: 'orchestrator', prune: 'never' },
  { in: 'root', name: 'dispatch-log', owner: 'watchdog', prune: 'never' },
  { in: 'root', name: 'friction', owner: 'watchdog', prune: 'never' },
  { in: 'root', name: 'watchdog.config.yaml', owner: 'user', prune: 'never' },
  { in: 'root', name: 'activity', owner: 'hook', prune: 'unused', pruneWhy: 'no hook activity for {age}' },
  { in: 'root', name: 'telemetry', owner: 'receiver', prune: 'unused', pruneWhy: 'no telemetry received for {age}' },
  { in: 'root', name: 'observe', owner: 'watchdog', prune: 'unused', pruneWhy: 'read positions unused for {age} (rebuilt when needed)' },
  { in: 'root', name: 'pipeline_checkpoints', owner: 'watchdog', prune: 'checkpoint' },
];

/** Whether `name` (one path segment) is the entry. */
export function isLayoutEntry(entry: LayoutEntry, name: string): boolean {
  return entry.name.endsWith('*') ? name.startsWith(entry.name.slice(0, -1)) : name === entry.name;
}

/** The layout entry a path under the state dir belongs to (relative to the root), if any. */
export function layoutEntryOf(relative: string): LayoutEntry | undefined {
  const [first, epicId, inEpic] = relative.split(/[\\/]/);
  const isInEpic = first === 'epics' && epicId !== undefined && inEpic !== undefined;
  return STATE_DIR_LAYOUT.find((e) => (isInEpic ? e.in === 'epic' && isLayoutEntry(e, inEpic) : e.in === 'root' && isLayoutEntry(e, first ?? '')));
}
