// Every path under the state dir (DESIGN §2). Ids are validated here, so no path escapes it.
import path from 'node:path';
import { InputError } from '../contracts/errors.js';
import { isSafeId, SAFE_ID_RULE } from '../contracts/ids.js';
import { guardRoot } from './atomic-write.js';

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
    guardRoot(this.root);
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
