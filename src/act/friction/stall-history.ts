// One ticket's stall history as the escalation renders it (friction note, Linear comment).
// Pure: built from dispatch-log events the caller has already read.
import { escapeControls } from '../../present/safe-text.js';
import type { EventOf } from '../../contracts/events.js';
import type { StallReason } from '../../contracts/vocabulary.js';

/** One stall (or loop) of one attempt of a ticket. */
export interface StallRecord {
  /** When the stall was detected, ISO-8601 UTC (the event's `timestamp_utc`). */
  detectedAt: string;
  taskId: string;
  /** 0 for the first dispatch, n for the n-th redispatch. */
  attempt: number;
  /** Seconds without progress when the stall was detected. */
  idleSeconds: number;
  /** Why (contracts/vocabulary.ts STALL_REASONS); `looping` for a `looping_detected` event. */
  stallReason: StallReason;
  /** Exemptions that held (`bash_long_timeout`, `rate_limit`, `ci_polling`, `open_tool_call`). */
  exemptions: readonly string[];
  /** Name of the last tool call, e.g. `Bash`. */
  lastTool?: string;
  /** That call had no result yet when the stall was detected (undefined: not recorded). */
  isLastToolOpen?: boolean;
  /** The verdict's human-readable reason. */
  reason?: string;
  /** It stalled in a mass stall (a circuit-breaker check listed it with much of the wave). */
  isMassStall?: boolean;
  /** Its cause was the link to the API (a frozen stream, a give-up on overload or connection): it was resumed. */
  isResumed?: boolean;
}

type StallEvent = EventOf<'stall_detected'> | EventOf<'looping_detected'>;

/** The StallRecord of a `stall_detected` or `looping_detected` event (an optional `last_tool` field is read too). */
export function stallRecordFromEvent(ev: StallEvent): StallRecord {
  const lastTool = (ev as { last_tool?: unknown }).last_tool;
  const base = {
    detectedAt: ev.timestamp_utc,
    taskId: ev.task_id,
    ...(typeof lastTool === 'string' && lastTool ? { lastTool } : {}),
  };
  if (ev.event === 'looping_detected') {
    return { ...base, attempt: attemptOfTaskId(ev.task_id), idleSeconds: 0, stallReason: 'looping', exemptions: [], reason: ev.reason };
  }
  return {
    ...base,
    ...(ev.last_tool_open !== undefined ? { isLastToolOpen: ev.last_tool_open } : {}),
    attempt: ev.redispatch_attempt,
    idleSeconds: ev.idle_seconds,
    stallReason: ev.stall_reason,
    exemptions: ev.exemptions ?? (ev.bash_timeout_exemption ? ['bash_long_timeout'] : []),
    ...(ev.reason !== undefined ? { reason: ev.reason } : {}),
    ...(ev.action_taken.endsWith(':resume') ? { isResumed: true } : {}),
  };
}

/** `t1` → 0, `t1-r2` → 2 (DESIGN §8 replacement ids). */
export function attemptOfTaskId(taskId: string): number {
  const m = /-r(\d+)$/.exec(taskId);
  return m ? Number(m[1]) : 0;
}

/** `754` → `12m 34s`; `42` → `42s`; `3700` → `1h 01m`. */
export function formatSeconds(s: number): string {
  const total = Math.max(0, Math.round(s));
  if (total < 60) return `${total}s`;
  if (total < 3600) return `${Math.floor(total / 60)}m ${String(total % 60).padStart(2, '0')}s`;
  return `${Math.floor(total / 3600)}h ${String(Math.floor((total % 3600) / 60)).padStart(2, '0')}m`;
}

/** One markdown table cell: no pipes, links, tags or newlines inside, controls escaped, `–` when empty. */
export function cell(value: string | number | undefined): string {
  const s = value === undefined ? '' : String(value);
  return s.trim() === '' ? '–' : escapeControls(s.replace(/\r?\n/g, ' ')).replace(/[|[\]<>]/g, '\\$&');
}

/**
 * What the table leaves out, when the dispatch log holds fewer stall lines than the attempts counted
 * (a redispatch logged without its stall, as the onex skill's own lines can be): the count and the
 * table then say the same. Undefined when every stall is in the table.
 */
export function unloggedStallsLine(attempts: number, history: readonly StallRecord[]): string | undefined {
  const missing = attempts - history.length;
  if (missing <= 0 || history.length === 0) return undefined;
  return `The table lists ${history.length} of these ${attempts} stalls: ${missing === 1 ? 'one attempt was' : `${missing} attempts were`} counted from a redispatch line with no stall line of its own in the dispatch log.`;
}

/** The markdown table of a stall history (header included). */
export function renderStallTable(history: readonly StallRecord[]): string {
  const rows = history.map(
    (h, i) =>
      `| ${i + 1} | ${cell(h.detectedAt)} | ${cell(h.taskId)} | ${h.attempt} | ${formatSeconds(h.idleSeconds)} | ${cell(h.stallReason)} | ${cell(h.exemptions.join(', '))} | ${cell(h.lastTool)} |`,
  );
  return ['| # | detected (UTC) | task | attempt | idle | stall reason | exemptions | last tool |', '|---|---|---|---|---|---|---|---|', ...rows].join('\n');
}
