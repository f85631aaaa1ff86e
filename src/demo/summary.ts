// The demo's verdict on itself: what the watchdog detected and did (from its dispatch log), checked
// against what the scenario expects, and rendered as the closing summary. Pure.
import type { DispatchEvent } from '../contracts/events.js';
import { renderEvent } from '../core/format.js';
import { DEMO_TIMING, REPLACEMENT_TASK_ID, STALLED_TASK_ID, type AgentRole } from './scenario.js';

/** What became of one agent the orchestrator dispatched. */
export interface RunFacts {
  taskId: string;
  role: AgentRole;
  label: string;
  pid: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null; atMs: number };
  /** Tool calls in its transcript. */
  toolCalls?: number;
  /** When its transcript's last record was written. */
  lastRecordMs?: number;
}

export interface DemoFacts {
  epicId: string;
  t0Ms: number;
  endMs: number;
  /** runWatch's exit code; undefined when it threw (`watchError`). */
  watchExitCode?: number;
  watchError?: string;
  /** The demo hit its own deadline, or was interrupted. */
  stopReason?: 'gave_up' | 'interrupted';
  /** This epic's dispatch-log events, oldest first. */
  events: DispatchEvent[];
  runs: RunFacts[];
  replacement?: { pid?: number; hasFinished: boolean; isGone: boolean; finishedAtMs?: number };
  /** The long Bash call as its transcript shows it. */
  bashCall?: { openedAtMs: number; closedAtMs?: number; timeoutMs: number };
  /** The widest window the live view saw on the long-Bash task, and the exemptions behind it. */
  bashWindowSeen?: { windowSeconds: number; exemptions: string[] };
}

export interface Check {
  ok: boolean;
  text: string;
}

/** `+6.4s`: time since the demo started. */
export const elapsed = (ms: number) => `+${(Math.max(0, ms) / 1000).toFixed(1)}s`;

const UNEXPECTED = new Set([
  'action_failed',
  'escalated_to_blocked',
  'mass_stall',
  'truth_inconsistent',
  'looping_detected',
  'waiting_human',
  'task_unknown',
  'input_error',
  'recovery_summary',
]);

const ofKind = <E extends DispatchEvent['event']>(f: DemoFacts, e: E) => f.events.filter((x): x is Extract<DispatchEvent, { event: E }> => x.event === e);
const byRole = (f: DemoFacts, role: AgentRole) => f.runs.find((r) => r.role === role);

/** Every expectation of the scenario, each with whether it held. */
export function checkDemo(f: DemoFacts): Check[] {
  const stalls = ofKind(f, 'stall_detected');
  const kills = ofKind(f, 'agent_killed');
  const redispatches = ofKind(f, 'redispatch');
  const stopped = ofKind(f, 'watchdog_stopped').at(-1);
  const unexpected = f.events.filter((e) => UNEXPECTED.has(e.event));
  const exitedClean = (role: AgentRole) => byRole(f, role)?.exit?.code === 0;
  const stalled = byRole(f, 'stalls');
  return [
    {
      ok: stalls.length === 1 && stalls[0]!.task_id === STALLED_TASK_ID,
      text: `exactly one stall detected, on ${STALLED_TASK_ID} (got ${stalls.map((s) => s.task_id).join(', ') || 'none'})`,
    },
    { ok: kills.length === 1 && kills[0]!.task_id === STALLED_TASK_ID, text: `${STALLED_TASK_ID} killed exactly once (${kills.length} agent_killed events)` },
    {
      ok: Boolean(stalled?.exit && stalled.exit.code !== 0),
      text: `${STALLED_TASK_ID}'s process is gone (${stalled?.exit ? (stalled.exit.signal ?? `exit ${stalled.exit.code}`) : 'still running'})`,
    },
    {
      ok: redispatches.length === 1 && redispatches[0]!.task_id === STALLED_TASK_ID && redispatches[0]!.recovery_task_id === REPLACEMENT_TASK_ID,
      text: `${STALLED_TASK_ID} redispatched exactly once, as ${REPLACEMENT_TASK_ID} (${redispatches.length} redispatch events)`,
    },
    { ok: Boolean(f.replacement?.hasFinished && f.replacement.isGone), text: `the replacement ${REPLACEMENT_TASK_ID} finished its work and exited` },
    { ok: exitedClean('healthy'), text: `the steady agent ${byRole(f, 'healthy')?.taskId ?? '?'} was never flagged and finished (exit 0)` },
    { ok: exitedClean('long-bash'), text: `the long-Bash agent ${byRole(f, 'long-bash')?.taskId ?? '?'} was never flagged and finished (exit 0)` },
    {
      ok: unexpected.length === 0,
      text: `no failed actions, escalations or other surprises${unexpected.length ? ` (got ${unexpected.map((e) => e.event).join(', ')})` : ''}`,
    },
    {
      ok: f.watchExitCode === 0 && stopped?.reason === 'wave_complete' && !f.stopReason,
      text: `the wave completed and the watchdog stopped by itself${f.stopReason ? ` (${f.stopReason === 'gave_up' ? `demo gave up after ${DEMO_TIMING.giveUpMs / 1000} s` : 'interrupted'})` : ''}${f.watchError ? ` (${f.watchError})` : ''}`,
    },
  ];
}

/** The "what happened" lines: when the stalled agent went quiet, every action-related event, and when the replacement was done. */
function timeline(f: DemoFacts): string[] {
  const entries: { atMs: number; lines: string[] }[] = [];
  const line = (atMs: number, text: string, ...more: string[]) =>
    entries.push({ atMs, lines: [`${elapsed(atMs - f.t0Ms).padStart(7)}  ${text}`, ...more.map((m) => `${''.padStart(7)}    ${m}`)] });
  const stalled = byRole(f, 'stalls');
  if (stalled?.lastRecordMs !== undefined)
    line(stalled.lastRecordMs, `${stalled.taskId} wrote its last record (${stalled.toolCalls ?? '?'} tool calls), then went silent`);
  for (const e of f.events) {
    if (e.event === 'healthy' || e.event === 'watchdog_started' || e.event === 'action_started') continue;
    const more: string[] = [];
    if (e.event === 'redispatch') {
      if (e.checkpoint_path) more.push(`checkpoint ${e.checkpoint_path}`);
      if (e.remaining_tasks?.length) more.push(`remaining work handed over: ${e.remaining_tasks.join('; ')}`);
    }
    line(Date.parse(e.timestamp_utc), e.event === 'watchdog_stopped' ? `watchdog ${renderEvent(e).slice(9)}` : renderEvent(e).slice(9), ...more);
  }
  if (f.replacement?.finishedAtMs !== undefined) line(f.replacement.finishedAtMs, `${REPLACEMENT_TASK_ID} wrote its last record: the remaining work is done`);
  return entries.sort((a, b) => a.atMs - b.atMs).flatMap((e) => e.lines);
}

/** Why the two silent-looking agents were left alone. */
function notFlagged(f: DemoFacts): string[] {
  const out: string[] = [];
  const bash = byRole(f, 'long-bash');
  if (bash && f.bashCall) {
    const silent = f.bashCall.closedAtMs !== undefined ? `${((f.bashCall.closedAtMs - f.bashCall.openedAtMs) / 1000).toFixed(1)} s` : 'a while';
    const seen = f.bashWindowSeen;
    const widened = seen
      ? `its window was ${seen.windowSeconds} s (${seen.exemptions.join(', ') || 'no exemption'}) instead of ${DEMO_TIMING.stallWindowSeconds} s`
      : `an open call never stalls before its own timeout plus grace (${DEMO_TIMING.bashTimeoutMs / 1000 + DEMO_TIMING.openToolGraceSeconds} s)`;
    out.push(
      `  ${bash.taskId}  sat ${silent} in an open Bash call (timeout ${f.bashCall.timeoutMs / 1000} s) writing nothing: ${widened}; finished${bash.exit ? ` at ${elapsed(bash.exit.atMs - f.t0Ms)}` : ''}.`,
    );
  }
  const healthy = byRole(f, 'healthy');
  if (healthy) {
    out.push(
      `  ${healthy.taskId}  called a tool every ${DEMO_TIMING.toolCadenceMs / 1000} s (${healthy.toolCalls ?? '?'} calls): healthy throughout; finished${healthy.exit ? ` at ${elapsed(healthy.exit.atMs - f.t0Ms)}` : ''}.`,
    );
  }
  return out;
}

/** The closing summary; `files` are [path relative to the demo dir, what it is]. */
export function renderSummary(
  f: DemoFacts,
  checks: readonly Check[],
  files: { dir: string; isKept: boolean; list: [string, string][]; columns?: number },
): string {
  const ok = checks.every((c) => c.ok);
  const secs = ((f.endMs - f.t0Ms) / 1000).toFixed(1);
  const width = Math.max(...files.list.map(([p]) => p.length));
  // Side by side when it fits the terminal, else each file's use under it.
  const isStacked = files.columns !== undefined && files.list.some(([p, what]) => 4 + width + what.length > files.columns!);
  const fileLines = files.list.flatMap(([p, what]) => (isStacked ? [`  ${p}`, `      ${what}`] : [`  ${p.padEnd(width)}  ${what}`]));
  return [
    '',
    `Summary of epic ${f.epicId} after ${secs} s: ${ok ? 'the demo went as expected.' : 'the demo did NOT go as expected.'}`,
    '',
    'What happened',
    ...timeline(f),
    '',
    'Left alone (legitimate activity or silence)',
    ...notFlagged(f),
    '',
    'Checks',
    ...checks.map((c) => `  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.text}`),
    '',
    files.isKept ? `Files (kept in ${files.dir})` : `Files (were in ${files.dir}; removed, run with --keep to look at them)`,
    ...fileLines,
    ...(files.isKept ? ['', `Look again: dispatch-watchdog status --epic-id ${f.epicId} --state-dir ${files.dir}`] : []),
    '',
  ].join('\n');
}
