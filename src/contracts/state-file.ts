// The epic state file (docs/state-files.md): three accepted shapes, normalised to one Wave of Tasks.
// Pure: parseStateFile takes the text the shell read.
import * as z from 'zod';
import { InputError } from './errors.js';
import { SafeId } from './ids.js';
import { checkNesting, countKeys, MAX_STATE_ROWS } from './input-limits.js';
import { formatPath, issueMessage, parseYaml, valueAt, type ParseResult } from './parse-yaml.js';
import { IsoTimestamp, isoToMs } from './time.js';
import { AgentCliSchema, type AgentCli } from './vocabulary.js';

const opt = <T extends z.ZodType>(t: T) => t.nullish();

/** One task row as an orchestrator writes it. Unknown keys are kept (forward compatibility). */
export const TaskRowSchema = z
  .looseObject({
    task_id: opt(SafeId).describe('Task id; defaults to ticket_id. `id` is an alias.'),
    id: opt(SafeId),
    ticket_id: SafeId.describe('Tracker ticket, e.g. PROJ-1001 (the only required field).'),
    team_name: opt(z.string()),
    status: opt(z.string()).describe('in_progress/running/dispatched are in flight; completed/merged/failed/cancelled/timeout are terminal; blocked.'),
    dispatched_at: opt(IsoTimestamp).describe('When this attempt started (falls back to the wave).'),
    last_activity_ts: opt(IsoTimestamp),
    last_activity: opt(IsoTimestamp).describe('Alias of last_activity_ts.'),
    last_tool_name: opt(z.string()),
    last_tool_timeout_ms: opt(z.number().int().min(0).max(86_400_000)),
    last_tool_command: opt(z.string()),
    last_output: opt(z.string()),
    agent_id: opt(SafeId),
    agent_name: opt(z.string()),
    session_id: opt(SafeId),
    transcript_path: opt(z.string().min(1)),
    pid: opt(z.number().int().min(1).max(4_194_304)),
    redispatch_count: opt(z.number().int().min(0)),
    agent: opt(AgentCliSchema).describe("The agent CLI running this task: claude-code (the default) or codex. Only that CLI's harness reads its files."),
  })
  .meta({ title: 'TaskRow', description: 'One dispatched task in an epic state file (docs/state-files.md).' });
export type TaskRow = z.output<typeof TaskRowSchema>;

const WaveSchema = z.looseObject({
  wave_id: opt(z.union([z.number(), z.string()])),
  dispatched_at: opt(IsoTimestamp),
  completed_at: opt(IsoTimestamp),
  tasks: z.array(TaskRowSchema).default([]),
});

/** The epic state file: `current_wave` (A), `wave_tasks` (B) or `waves` (C). */
export const StateFileSchema = z
  .looseObject({
    epic_id: opt(z.string()),
    current_wave: opt(WaveSchema),
    wave_tasks: opt(z.array(TaskRowSchema)),
    dispatched_at: opt(IsoTimestamp),
    waves: opt(z.array(WaveSchema)),
  })
  .meta({ title: 'EpicStateFile', description: 'epics/<epic_id>/state.yaml as written by an orchestrator (docs/state-files.md).' });
export type StateFile = z.output<typeof StateFileSchema>;

export type StatusClass = 'in_flight' | 'terminal' | 'blocked' | 'unknown';

const IN_FLIGHT = new Set(['in_progress', 'running', 'dispatched']);
const TERMINAL = new Set(['completed', 'merged', 'failed', 'cancelled', 'canceled', 'timeout']);

/** Classify a raw status string; a missing status means the task was dispatched. */
export function classifyStatus(status: string | undefined | null): StatusClass {
  const s = (status ?? 'dispatched').trim().toLowerCase();
  if (IN_FLIGHT.has(s)) return 'in_flight';
  if (TERMINAL.has(s)) return 'terminal';
  if (s === 'blocked') return 'blocked';
  return 'unknown';
}

/** A task row after normalisation: camelCase, times in epoch ms. */
export interface Task {
  taskId: string;
  ticketId: string;
  teamName?: string;
  /** The raw status as written (or `dispatched` when absent). */
  status: string;
  statusClass: StatusClass;
  /** Start of this attempt: the row's dispatched_at, else the wave's. */
  dispatchedAtMs?: number;
  lastActivityMs?: number;
  lastToolName?: string;
  lastToolTimeoutMs?: number;
  lastToolCommand?: string;
  lastOutput?: string;
  agentId?: string;
  agentName?: string;
  sessionId?: string;
  transcriptPath?: string;
  pid?: number;
  redispatchCount?: number;
  /** The agent CLI the row names (`agent:`); absent: claude-code (DEFAULT_AGENT_CLI). */
  agent?: AgentCli;
  /** A replacement the watchdog launched itself (process adapter): its "row" is ours, so its own finish is the end. */
  isOwnReplacement?: boolean;
  /** ... and its process is gone: done if its output says it finished, else it stalls like any silent agent. */
  hasExited?: boolean;
  /** A terminal row: when this run first read it terminal (check.ts); its agent is watched a while for still running (assess). */
  terminalSinceMs?: number;
  /** A replacement the watchdog launched itself: the identity of its process (process adapter). */
  expectedProcess?: { pid: number; startTicks: number; bootId?: string };
  /** The state-file row carrying this task instance, when it differs from taskId (a row reused for a replacement). */
  rowTaskId?: string;
  /** A cancel or redispatch request about this instance waits for the orchestrator's answer (its key). */
  pendingRequestKey?: string;
  /**
   * A replacement the orchestrator was asked for and never started: the unanswered request (a failed
   * attempt), and the last instance of the ticket that was started and the row it is in: the agent to stop.
   */
  unansweredRequest?: { key: string; createdAtMs: number; answerByMs: number; startedTaskId?: string; startedRowTaskId?: string };
  /** The row as written, unknown keys included (checkpoints read e.g. `remaining_work`). */
  raw?: Record<string, unknown>;
}

export interface Wave {
  shape: 'current_wave' | 'wave_tasks' | 'waves';
  waveId?: string;
  dispatchedAtMs?: number;
  tasks: Task[];
  /** Shape C only: every wave has completed_at, so the epic itself is over. */
  isEveryWaveCompleted?: boolean;
}

const ms = (iso: string | null | undefined) => (iso ? isoToMs(iso) : undefined);
const und = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/** Normalise one row; `waveDispatchedAtMs` is the fallback start time. */
export function normalizeTask(row: TaskRow, waveDispatchedAtMs: number | undefined): Task {
  const status = row.status ?? 'dispatched';
  return {
    taskId: row.task_id ?? row.id ?? row.ticket_id,
    ticketId: row.ticket_id,
    teamName: und(row.team_name),
    status,
    statusClass: classifyStatus(status),
    dispatchedAtMs: ms(row.dispatched_at) ?? waveDispatchedAtMs,
    lastActivityMs: ms(row.last_activity_ts) ?? ms(row.last_activity),
    lastToolName: und(row.last_tool_name),
    lastToolTimeoutMs: und(row.last_tool_timeout_ms),
    lastToolCommand: und(row.last_tool_command),
    lastOutput: und(row.last_output),
    agentId: und(row.agent_id),
    agentName: und(row.agent_name),
    sessionId: und(row.session_id),
    transcriptPath: und(row.transcript_path),
    pid: und(row.pid),
    redispatchCount: und(row.redispatch_count),
    agent: und(row.agent),
    raw: row as Record<string, unknown>,
  };
}

/**
 * The rows still open in earlier waves nobody marked completed (shape C): their agents may still
 * run, so they are judged with the current wave's, never silently dropped. A finished row of an old
 * wave is history (left out), and a row the current wave lists again is the current wave's.
 */
function earlierOpenRows(waves: NonNullable<StateFile['waves']>, currentIds: Set<string>): Task[] {
  const out: Task[] = [];
  for (const w of waves) {
    const at = ms(w.dispatched_at);
    for (const row of w.tasks) {
      const t = normalizeTask(row, at);
      if (t.statusClass === 'terminal' || currentIds.has(t.taskId) || out.some((o) => o.taskId === t.taskId)) continue;
      out.push(t);
    }
  }
  return out;
}

/** Pick the current wave of a validated state file, or explain why there is none. */
export function normalizeStateFile(file: StateFile, fileName: string): ParseResult<Wave> {
  let wave: Wave;
  if (file.current_wave) {
    const w = file.current_wave;
    const at = ms(w.dispatched_at);
    wave = {
      shape: 'current_wave',
      waveId: w.wave_id == null ? undefined : String(w.wave_id),
      dispatchedAtMs: at,
      tasks: w.tasks.map((t) => normalizeTask(t, at)),
    };
  } else if (file.wave_tasks) {
    const at = ms(file.dispatched_at);
    wave = { shape: 'wave_tasks', dispatchedAtMs: at, tasks: file.wave_tasks.map((t) => normalizeTask(t, at)) };
  } else if (file.waves) {
    // epic-team: the current wave is the last one without completed_at; none means the epic is done.
    const openWaves = file.waves.filter((w) => !w.completed_at);
    const open = openWaves.at(-1);
    const at = ms(open?.dispatched_at);
    const tasks = open ? open.tasks.map((t) => normalizeTask(t, at)) : [];
    wave = {
      shape: 'waves',
      waveId: open?.wave_id == null ? undefined : String(open.wave_id),
      dispatchedAtMs: at,
      tasks: [...earlierOpenRows(openWaves.slice(0, -1), new Set(tasks.map((t) => t.taskId))), ...tasks],
      ...(open || file.waves.length === 0 ? {} : { isEveryWaveCompleted: true }),
    };
  } else {
    return {
      ok: false,
      error: new InputError('no_wave', 'no wave found: expected a `current_wave`, `wave_tasks` or `waves` key.', {
        location: { file: fileName },
        hint: 'Write the dispatched tasks under one of those keys (docs/state-files.md shows each shape).',
      }),
    };
  }
  const seen = new Set<string>();
  for (const [i, t] of wave.tasks.entries()) {
    if (seen.has(t.taskId)) {
      return {
        ok: false,
        error: new InputError('wrong_type', `task id ${JSON.stringify(t.taskId)} appears twice in the wave (task ${i + 1}).`, {
          location: { file: fileName },
          hint: 'Give every dispatched task its own task_id (a replacement is usually "<id>-r1").',
        }),
      };
    }
    seen.add(t.taskId);
  }
  return { ok: true, value: wave };
}

/** Longest line a state file may have: a row's field is a line; a longer one is not a state file (and would cost the parser ~80× its size). */
export const MAX_STATE_LINE_CHARS = 256 * 1024;

/** The 1-based number of the first line longer than `max`, if any. */
function firstLongLine(text: string, max: number): number | undefined {
  let start = 0;
  for (let line = 1; start <= text.length; line++) {
    const end = text.indexOf('\n', start);
    const stop = end < 0 ? text.length : end;
    if (stop - start > max) return line;
    if (end < 0) return undefined;
    start = end + 1;
  }
  return undefined;
}

/** A state file written as JSON (`JSON.stringify`, valid YAML) read by JSON.parse: one long line costs no YAML parser. */
function parseJsonStateFile(text: string, fileName: string): ParseResult<Wave> | undefined {
  if (!/^\s*\{/.test(text)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined; // not JSON after all: YAML reads it (and says where it is wrong)
  }
  const r = StateFileSchema.safeParse(data);
  if (r.success) return normalizeStateFile(r.data, fileName);
  // One line holds every row: the field path is the position.
  const issue = r.error.issues[0]!;
  return {
    ok: false,
    error: new InputError('wrong_type', `${issueMessage(issue, valueAt(data, issue.path))}.`, {
      location: { file: fileName, path: formatPath(issue.path) },
      hint: 'Fix that field in the state file (docs/state-files.md lists every field and its type).',
    }),
  };
}

/** Parse and normalise the text of an epic state file. */
export function parseStateFile(text: string, fileName: string): ParseResult<Wave> {
  const deep = checkNesting(text, fileName);
  if (deep) return { ok: false, error: deep };
  const rows = countKeys(text, 'ticket_id');
  if (rows > MAX_STATE_ROWS) {
    return {
      ok: false,
      error: new InputError('input_too_large', `${rows} task rows (ticket_id keys), over the ${MAX_STATE_ROWS}-row limit; nothing was parsed.`, {
        location: { file: fileName },
        hint: `Dispatch at most ${MAX_STATE_ROWS} tasks per wave, or point --epic-id at the epic state file, not an export of many.`,
      }),
    };
  }
  const json = parseJsonStateFile(text, fileName);
  if (json) return json;
  const long = firstLongLine(text, MAX_STATE_LINE_CHARS);
  if (long !== undefined) {
    return {
      ok: false,
      error: new InputError('unreadable_file', `line ${long} is longer than ${MAX_STATE_LINE_CHARS} characters.`, {
        location: { file: fileName, line: long },
        hint: 'Keep each field short (last_output is an excerpt, not the whole output). A whole wave on one line is fine as valid JSON (JSON.stringify), which is read as JSON.',
      }),
    };
  }
  const parsed = parseYaml(text, StateFileSchema, {
    file: fileName,
    isNestingChecked: true,
    typeHint: 'Fix that field in the state file (docs/state-files.md lists every field and its type).',
  });
  return parsed.ok ? normalizeStateFile(parsed.value, fileName) : parsed;
}
