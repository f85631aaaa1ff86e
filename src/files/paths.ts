// The state dir's layout (DESIGN §2, docs/state-files.md): every path under it, and what each of
// its entries is, who writes it and when `prune` may remove it. Ids are validated here, so no path
// escapes the state dir. Pure: paths are computed, nothing is read or written (writes under a
// state dir refuse symlinks once the shell calls atomic-write.ts guardStateDir).
import path from 'node:path';
import { InputError } from '../contracts/errors.js';
import { isSafeId, SAFE_ID_RULE } from '../contracts/ids.js';
import { ACTIVITY_DIR, activityFileOf } from './activity-path.js';

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

/** The folder of every ticket's recovery checkpoints. */
const CHECKPOINTS = 'pipeline_checkpoints';

/** A ticket's checkpoint of one attempt, relative to the state dir (what a later checkpoint's `supersedes` names). */
export function checkpointRelPath(ticketId: string, attempt: number): string {
  return path.posix.join(CHECKPOINTS, assertSafeId(ticketId, 'ticket id'), `recovery-${attempt}.yaml`);
}

/** The friction note of one mass-stall episode (its epic, UTC date and hhmmss), relative to the state dir. */
export function massStallNoteRelPath(epicId: string, utcDate: string, hhmmss: string): string {
  return path.posix.join('friction', `${utcDate}-mass-stall-${epicId.toLowerCase()}-${hhmmss}.md`);
}

/** Lower-cased ticket id as used in friction file names. */
const lower = (id: string) => id.toLowerCase();

export class StatePaths {
  readonly root: string;
  constructor(stateDir: string) {
    this.root = path.resolve(stateDir);
  }
  /** Where every epic's folder is. */
  epicsDir() {
    return path.join(this.root, 'epics');
  }
  epicDir(epicId: string) {
    return path.join(this.epicsDir(), assertSafeId(epicId, 'epic id'));
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
  /** What the process adapter gives and keeps of an agent it launched: prompts and output logs. */
  agentsDir(epicId: string) {
    return path.join(this.epicDir(epicId), 'agents');
  }
  /** The process adapter's launch markers. */
  launchesDir(epicId: string) {
    return path.join(this.epicDir(epicId), 'launches');
  }
  /** The command adapter's step markers. */
  commandsDir(epicId: string) {
    return path.join(this.epicDir(epicId), 'commands');
  }
  /** The claude-team adapter's receipts of inbox messages sent. */
  inboxSentDir(epicId: string) {
    return path.join(this.epicDir(epicId), 'inbox-sent');
  }
  dispatchLogDir() {
    return path.join(this.root, 'dispatch-log');
  }
  dispatchLog(utcDate: string) {
    return path.join(this.dispatchLogDir(), `${utcDate}.ndjson`);
  }
  /** Derived data the watchdog keeps between runs (read positions, the log's summaries); rebuilt when missing. */
  observeDir() {
    return path.join(this.root, 'observe');
  }
  /** One file of observe/ (e.g. `transcripts.json`): a name of our own, never an id. */
  observeFile(name: 'transcripts.json' | 'hooks.json' | 'telemetry.json' | 'prefix-ids.json') {
    return path.join(this.observeDir(), name);
  }
  /** The derived summary of the dispatch log for one epic (fast start-up; rebuilt when missing). */
  historySummary(epicId: string) {
    return path.join(this.observeDir(), 'history', `${assertSafeId(epicId, 'epic id')}.json`);
  }
  activityDir() {
    return path.join(this.root, ACTIVITY_DIR);
  }
  activityFile(agentOrSessionId: string) {
    return activityFileOf(this.root, assertSafeId(agentOrSessionId, 'agent or session id'));
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
  /** Every ticket's recovery checkpoints, a folder per ticket. */
  checkpointsDir() {
    return path.join(this.root, CHECKPOINTS);
  }
  checkpointDir(ticketId: string) {
    return path.join(this.checkpointsDir(), assertSafeId(ticketId, 'ticket id'));
  }
  checkpoint(ticketId: string, attempt: number) {
    return path.join(this.root, checkpointRelPath(ticketId, attempt));
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
  /**
   * Where a writer killed between its temp file and the rename leaves the temp (atomic-write.ts):
   * `beside` a file (in the folder that holds it), `inside` a folder, or `inside_and_below` (the
   * folder and each folder in it). The start-up sweep reads this. Absent: never written by rename.
   */
  temps?: 'beside' | 'inside' | 'inside_and_below';
}

/** Everything the state dir holds (epics/<epic>/ holds the `in: 'epic'` entries). A new file or folder gets a row here. */
export const STATE_DIR_LAYOUT: readonly LayoutEntry[] = [
  { in: 'epic', name: 'state.yaml', owner: 'orchestrator', prune: 'never' },
  { in: 'epic', name: 'watchdog.json', owner: 'watchdog', prune: 'finished_epic', temps: 'beside' },
  { in: 'epic', name: 'watchdog.lock', owner: 'watchdog', prune: 'finished_epic', temps: 'beside' },
  // A dead holder's lock, renamed aside by the next watchdog (journal/lock.ts).
  { in: 'epic', name: 'watchdog.lock.stale.*', owner: 'watchdog', prune: 'finished_epic' },
  // The short mutex of a stale-lock takeover (journal/lock.ts), left by a watchdog killed mid-takeover.
  { in: 'epic', name: 'watchdog.lock.takeover', owner: 'watchdog', prune: 'finished_epic', temps: 'beside' },
  { in: 'epic', name: 'requests', owner: 'watchdog', prune: 'finished_epic', temps: 'inside' },
  { in: 'epic', name: 'acks', owner: 'watchdog', prune: 'finished_epic', temps: 'inside' },
  // What the process, command and claude-team adapters keep: logs, prompts, step markers.
  { in: 'epic', name: 'agents', owner: 'watchdog', prune: 'finished_epic', temps: 'inside' },
  { in: 'epic', name: 'launches', owner: 'watchdog', prune: 'finished_epic', temps: 'inside' },
  { in: 'epic', name: 'commands', owner: 'watchdog', prune: 'finished_epic', temps: 'inside' },
  { in: 'epic', name: 'inbox-sent', owner: 'watchdog', prune: 'finished_epic', temps: 'inside' },
  // One marker per webhook notification: sending, sent, failed.
  { in: 'epic', name: 'notify', owner: 'watchdog', prune: 'finished_epic', temps: 'inside' },
  { in: 'root', name: 'epics', owner: 'orchestrator', prune: 'never' },
  { in: 'root', name: 'dispatch-log', owner: 'watchdog', prune: 'never', temps: 'inside' },
  { in: 'root', name: 'friction', owner: 'watchdog', prune: 'never', temps: 'inside' },
  { in: 'root', name: 'watchdog.config.yaml', owner: 'user', prune: 'never' },
  { in: 'root', name: 'activity', owner: 'hook', prune: 'unused', pruneWhy: 'no hook activity for {age}' },
  { in: 'root', name: 'telemetry', owner: 'receiver', prune: 'unused', pruneWhy: 'no telemetry received for {age}', temps: 'inside' },
  {
    in: 'root',
    name: 'observe',
    owner: 'watchdog',
    prune: 'unused',
    pruneWhy: 'read positions unused for {age} (rebuilt when needed)',
    temps: 'inside_and_below',
  },
  { in: 'root', name: 'pipeline_checkpoints', owner: 'watchdog', prune: 'checkpoint', temps: 'inside_and_below' },
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
