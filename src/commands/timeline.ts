// `dispatch-watchdog timeline --epic-id ID [--svg FILE]`: the wave as a picture. Reads the
// dispatch log (every day, this epic), the state file's rows, and the times each agent made
// progress as its own files recorded them (transcript records, hook lines); draws with
// core/timeline*. Nothing is inferred: a moment not recorded is not drawn.
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { InputError } from '../contracts/errors.js';
import { parseStateFile } from '../contracts/state-file.js';
import { didYouMean } from '../core/did-you-mean.js';
import { buildTimeline, type Timeline, type TimelineRow } from '../core/timeline.js';
import { renderTimelineSvg } from '../core/timeline-svg.js';
import { renderTimelineText } from '../core/timeline-text.js';
import type { Output } from '../deps.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { readDispatchLog } from '../journal/dispatch-log.js';
import { assertSafeId, StatePaths } from '../files/paths.js';
import { expandHome } from '../agents/claude-code/read/find-transcript.js';
import { knownEpicIds } from '../observe/read/known-epics.js';
import type { Command } from 'commander';
import { existingStateDir } from '../options.js';
import { teach } from '../cli-help.js';
import { stateDirOption, type CliContext } from './command.js';

/** Bytes read from the end of one transcript or activity file for its times. @defaultValue 33554432 (32 MB) */
export const MAX_ACTIVITY_BYTES = 32 * 1024 * 1024;

/** Record types that are the agent doing something (not metadata lines). */
const PROGRESS_TYPES = new Set(['assistant', 'user', 'progress', 'system']);

/** The times of the progress records of one JSONL file (`timestamp`, or a hook line's `ts`); [] when it is not there. */
export async function readActivityTimes(file: string): Promise<number[]> {
  let size: number;
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) return [];
    size = st.size;
  } catch {
    return [];
  }
  const out: number[] = [];
  if (size === 0) return out;
  const start = Math.max(0, size - MAX_ACTIVITY_BYTES);
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8', start, end: size - 1 }), crlfDelay: Infinity });
  let isFirst = start > 0; // a tail starts mid-line
  for await (const line of rl) {
    if (isFirst) {
      isFirst = false;
      continue;
    }
    if (!line.includes('"t')) continue;
    try {
      const rec = JSON.parse(line) as { type?: unknown; timestamp?: unknown; ts?: unknown; event?: unknown };
      const at =
        typeof rec.timestamp === 'string' && PROGRESS_TYPES.has(String(rec.type))
          ? rec.timestamp
          : typeof rec.ts === 'string' && typeof rec.event === 'string'
            ? rec.ts
            : undefined;
      const ms = at === undefined ? NaN : Date.parse(at);
      if (Number.isFinite(ms)) out.push(ms);
    } catch {
      // a torn or foreign line: not a recorded moment
    }
  }
  return out;
}

/** Read everything the picture of one epic is drawn from. */
export async function readTimeline(paths: StatePaths, epicId: string, nowMs: number): Promise<Timeline> {
  const log = await readDispatchLog(paths, (e) => e.epic_id === epicId);
  const rows: TimelineRow[] = [];
  const files = new Map<string, Set<string>>();
  const addFile = (taskId: string, file: string | undefined) => {
    if (file) files.set(taskId, (files.get(taskId) ?? new Set()).add(file));
  };
  const activity = new Map<string, number[]>();
  let hasStateFile = false;
  try {
    const text = await fs.readFile(paths.stateFile(epicId), 'utf8');
    hasStateFile = true;
    const parsed = parseStateFile(text, paths.stateFile(epicId));
    if (parsed.ok) {
      for (const t of parsed.value.tasks) {
        rows.push({ taskId: t.taskId, ticketId: t.ticketId, status: t.status, statusClass: t.statusClass, dispatchedAtMs: t.dispatchedAtMs });
        if (t.transcriptPath) addFile(t.taskId, path.resolve(paths.root, expandHome(t.transcriptPath)));
        for (const id of [t.agentId, t.sessionId]) if (id && /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/.test(id)) addFile(t.taskId, paths.activityFile(id));
        if (t.lastActivityMs !== undefined) activity.set(t.taskId, [t.lastActivityMs]);
      }
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (!hasStateFile && log.events.length === 0) {
    const known = await knownEpicIds(paths);
    const guess = didYouMean(epicId, known);
    throw new InputError('missing_file', `no epic ${JSON.stringify(epicId)} here: no state file and no dispatch-log line names it.`, {
      location: { file: paths.stateFile(epicId) },
      hint: guess
        ? `Did you mean --epic-id ${guess}?`
        : known.length
          ? `Epics in this state dir: ${known.slice(0, 10).join(', ')}.`
          : 'Check --epic-id and --state-dir (or $ONEX_STATE_DIR).',
    });
  }
  // A replacement the watchdog launched writes where its redispatch line says.
  for (const e of log.events) if (e.event === 'redispatch' && e.output_path) addFile(e.recovery_task_id, path.resolve(paths.root, e.output_path));
  for (const [taskId, set] of files) {
    for (const file of set) {
      const times = await readActivityTimes(file);
      if (times.length) activity.set(taskId, [...(activity.get(taskId) ?? []), ...times]);
    }
  }
  const lastCheck = await fs.readFile(paths.watchdogJson(epicId), 'utf8').then(
    (t) => Date.parse((JSON.parse(t) as { check_timestamp?: string }).check_timestamp ?? ''),
    () => NaN,
  );
  return buildTimeline({ epicId, events: log.events, rows, activity, nowMs, ...(Number.isFinite(lastCheck) ? { lastCheckMs: lastCheck } : {}) });
}

export interface TimelineFlags {
  epicId: string;
  /** Write the SVG here (a path the user chose, relative to cwd). */
  svgFile?: string;
  columns?: number;
  hasColor: boolean;
  nowMs: number;
  cwd: string;
}

/** Print the timeline (and write the SVG when asked); resolves to the exit code. */
export async function runTimeline(paths: StatePaths, flags: TimelineFlags, output: Output): Promise<number> {
  const tl = await readTimeline(paths, flags.epicId, flags.nowMs);
  output.out(renderTimelineText(tl, { columns: flags.columns, hasColor: flags.hasColor }).join('\n') + '\n');
  if (flags.svgFile !== undefined) {
    const file = path.resolve(flags.cwd, flags.svgFile);
    await writeFileAtomic(file, renderTimelineSvg(tl), { mode: 0o644 });
    output.out(`wrote ${file} (open it in a browser, or attach it to the ticket)\n`);
  }
  return 0;
}

export function registerTimeline(program: Command, { env, setCode, flags: parsers }: CliContext): void {
  const cmd = program
    .command('timeline')
    .description(
      "the wave as a picture: one lane per task instance over time, with its activity, stalls, redispatches, requests, escalations and human waits, from the dispatch log and the agents' own records; --svg writes it as a self-contained SVG file",
    )
    .requiredOption('--epic-id <id>', 'epic id')
    .option('--svg <file>', 'also write the picture as an SVG file (open it in a browser, attach it to a ticket)')
    .option('--width <columns>', "terminal width to draw in (default: the terminal's, else 100)", parsers.count('--width'));
  stateDirOption(cmd).action(async (flags: { epicId: string; svg?: string; width?: number; stateDir?: string }) => {
    const paths = new StatePaths(existingStateDir(flags.stateDir, env.env, env.cwd));
    const terminal = env.watchDeps.terminal;
    const columns = flags.width ?? (terminal?.isTty ? terminal.columns() : undefined);
    const opts = {
      epicId: assertSafeId(flags.epicId, 'epic id'),
      svgFile: flags.svg,
      columns,
      hasColor: Boolean(terminal?.hasColor),
      nowMs: env.watchDeps.clock.nowMs(),
      cwd: env.cwd,
    };
    setCode(await runTimeline(paths, opts, env.output));
  });
  teach(cmd, {
    examples: [
      ['dispatch-watchdog timeline --epic-id PROJ-1000', 'the wave in the terminal: ▇ activity, ✗ stall, ↻ redispatch, ⛔ escalated, ? waiting on a human'],
      ['dispatch-watchdog timeline --epic-id PROJ-1000 --svg proj-1000.svg', 'the same, and an SVG file to open or attach to the ticket'],
    ],
    exitCodes: [
      ['ok', 'drawn'],
      ['input', 'no such epic (no state file and no log line), or bad input or usage'],
      ['failure', 'the SVG file could not be written'],
    ],
  });
}
