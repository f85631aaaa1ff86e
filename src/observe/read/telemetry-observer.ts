// The telemetry observer (issue 32 item 1: its own observer, agent-neutral): for any row, the
// OpenTelemetry events the OTLP receiver stored for the session the row points at
// (telemetry/<session>.ndjson, already in the watchdog's vocabulary: contracts/telemetry-dialects.ts),
// as one source `telemetry`. An agent on another machine is judged from it as from a transcript
// (docs/fleet.md); a local one gains what its files cannot show (a model still streaming, an API
// being retried). Knows no CLI: which events each one sends and what they mean was settled when
// they were received. Positions persist in <stateDir>/observe/telemetry.json. I/O.
import type { Task } from '../../contracts/state-file.js';
import type { StatePaths } from '../../files/paths.js';
import type { ObserveDiagnostic } from '../parse/diagnostic.js';
import type { PartialObservation } from '../parse/observation.js';
import type { TelemetryState } from '../parse/parse-telemetry.js';
import type { IdHandle } from './id-files.js';
import type { TaskObserver } from './observer.js';
import { TailReader } from './tail-file.js';
import { createTelemetryReader } from './telemetry.js';

export interface TelemetryObserverOptions {
  paths: StatePaths;
  /** The reader to share (its byte count and change notes); a new one when omitted. */
  reader?: TailReader;
  /** Keep positions across restarts under <stateDir>/observe/. @defaultValue true */
  isPersistent?: boolean;
  /** Save positions at most this often, in ms (and on `flush`). @defaultValue 10000 */
  persistEveryMs?: number;
}

export interface TelemetryObserver extends TaskObserver {
  flush(nowMs: number): Promise<void>;
  /** Bad or oversized lines met since the last call, naming file and line. */
  drainDiagnostics(): ObserveDiagnostic[];
}

/**
 * The session whose telemetry is the row's own: its session, for a row that is the session's main
 * agent (no agent id, or the session's). A subagent's events carry its parent's session id, so the
 * session's telemetry is not its evidence: none is read for it.
 */
export function telemetrySessionOf(task: Pick<Task, 'agentId' | 'sessionId'>): string | undefined {
  if (task.agentId === undefined) return task.sessionId;
  return task.sessionId === undefined || task.agentId === task.sessionId ? task.agentId : undefined;
}

/** The parts of a row with no telemetry: one array, so an unchanged check can return it again. */
const NONE: PartialObservation[] = [];

/** The last parts of a task and what they were read from: reused while no telemetry file exists for it. */
interface Memo {
  task: Task;
  parts: PartialObservation[];
  handle: IdHandle<TelemetryState>;
}

/** Build the observer; one per watch. */
export function createTelemetryObserver(opts: TelemetryObserverOptions): TelemetryObserver {
  const persistent = opts.isPersistent ?? true;
  const telemetry = createTelemetryReader(opts.paths, opts.reader ?? new TailReader(), { isPersistent: persistent });
  const memos = new Map<string, Memo>();
  let lastPersistMs = -Infinity;

  async function observe(task: Task, nowMs: number): Promise<PartialObservation[]> {
    memos.delete(task.taskId);
    const session = telemetrySessionOf(task);
    if (session === undefined) return NONE;
    const r = await telemetry.read(session, nowMs);
    if (r.part) return [r.part];
    // No telemetry was ever received for it (the common case): reused until a file appears.
    if (r.version === 0 && r.handle) memos.set(task.taskId, { task, parts: NONE, handle: r.handle });
    return NONE;
  }

  const flush = async (nowMs: number) => {
    lastPersistMs = nowMs;
    await telemetry.flush(nowMs);
  };

  return {
    name: 'telemetry',
    beginCheck() {
      telemetry.beginCheck();
      if (memos.size > 100_000) memos.clear();
    },
    async observe(task, nowMs) {
      try {
        return await observe(task, nowMs);
      } catch (e) {
        return [{ source: 'telemetry', missing: [{ source: 'telemetry', reason: `reading the telemetry of ${task.taskId} failed: ${(e as Error).message}` }] }];
      }
    },
    observeUnchanged(task, nowMs, isStatRequired) {
      if (telemetrySessionOf(task) === undefined) return NONE;
      const m = memos.get(task.taskId);
      if (!m || m.task !== task || telemetry.peekHandle(m.handle, nowMs, isStatRequired) !== 0) return undefined;
      return m.parts;
    },
    async endCheck(nowMs) {
      if (persistent && nowMs - lastPersistMs >= (opts.persistEveryMs ?? 10_000)) await flush(nowMs).catch(() => undefined);
    },
    flush,
    drainDiagnostics: () => telemetry.drainDiagnostics(),
  };
}
