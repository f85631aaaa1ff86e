// Build watchdog.json (DESIGN §6) from one check's verdicts and plan. Pure.
import { OUTCOME_EVENT_OF } from '../contracts/events.js';
import type { WatchdogJson } from '../contracts/watchdog-json.js';
import type { Task } from '../contracts/state-file.js';
import { isOpenRequestStatus, type OpenRequestStatus } from '../contracts/request.js';
import { msToIso } from '../contracts/time.js';
import { VERDICT_KINDS, type VerdictKind } from '../contracts/vocabulary.js';
import { stallReasonOf, type Verdict } from './assess.js';
import type { History, RequestRecord } from './history.js';
import type { Plan } from './plan.js';
import { tasksById } from './wave-index.js';

export interface ReportMeta {
  epicId: string;
  nowMs: number;
  version: string;
  pid: number;
  runId: string;
  checkIntervalSeconds: number;
  timeoutSeconds: number;
  action: string;
  isNowOverridden: boolean;
}

const secs = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms / 1000));

/** Count completed outcomes of this epic's actions by kind. */
function outcomeCounts(history: History) {
  let redispatched = 0;
  let cancelled = 0;
  let escalated = 0;
  for (const r of history.actions.values()) {
    const e = r.outcome?.event;
    if (e !== OUTCOME_EVENT_OF[r.started.action]) continue;
    if (r.started.action === 'redispatch') redispatched++;
    else if (r.started.action === 'escalate') escalated++;
    else if (r.started.action === 'cancel') cancelled++;
  }
  return { redispatched, cancelled, escalated };
}

type TaskEntry = WatchdogJson['tasks'][number];

/**
 * One task's entry, its keys in the document's order (row_task_id and unobserved_children only
 * when present). Built for every task after every check, so made with `new`, never a literal:
 * V8 allocates a literal's objects straight into the old generation once a check's entries have
 * survived a young collection, as a cold check's do (see JudgedVerdict in assess.ts).
 */
class Entry {
  [key: string]: unknown;
  task_id: string;
  row_task_id?: string;
  ticket_id: string;
  status: string;
  verdict: VerdictKind;
  idle_seconds: number | null;
  effective_timeout_seconds: number;
  exemptions: TaskEntry['exemptions'];
  last_tool: string | null;
  sources: string[];
  reason: string;
  unobserved_children?: string[];
  agent_version?: string;

  constructor(v: Verdict, task: Task | undefined) {
    this.task_id = v.taskId;
    if (task?.rowTaskId) this.row_task_id = task.rowTaskId;
    this.ticket_id = v.ticketId;
    this.status = task?.status ?? 'unknown';
    this.verdict = v.kind;
    this.idle_seconds = v.kind === 'terminal' || v.kind === 'blocked' ? null : secs(v.idleMs);
    this.effective_timeout_seconds = secs(v.effectiveTimeoutMs) ?? 0;
    this.exemptions = v.exemptions;
    this.last_tool = v.lastTool ?? null;
    this.sources = v.sources;
    this.reason = v.reason;
    if (v.unobservedChildren) this.unobserved_children = v.unobservedChildren;
    if (v.agentVersion !== undefined) this.agent_version = v.agentVersion;
  }
}

const J = JSON.stringify;
const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((x, i) => x === b[i]));

/** One row's text around the two values a steady check changes (idle_seconds, reason), and what it was made from. */
interface RowText {
  entry: TaskEntry;
  head: string;
  mid: string;
  tail: string;
  seen: number;
}

/**
 * The JSON text of watchdog.json's rows, kept between checks: exactly `JSON.stringify(entry)`
 * (the keys in Entry's order), with the text around `idle_seconds` and `reason` made again only
 * when another field of the row changed. A steady check changes those two values of every row
 * and nothing else. Rows gone from the wave are forgotten.
 */
export class RowTexts {
  private readonly rows = new Map<string, RowText>();
  private checks = 0;

  /** Call once per document written. */
  beginCheck(): void {
    if (++this.checks % 64 === 0) for (const [id, r] of this.rows) if (this.checks - r.seen > 64) this.rows.delete(id);
  }

  /** `JSON.stringify(e)` of one row of `buildWatchdogJson(…).tasks`. */
  text(e: TaskEntry): string {
    let r = this.rows.get(e.task_id);
    if (r === undefined || !isSameFrame(r.entry, e)) {
      r = {
        entry: e,
        head: `{"task_id":${J(e.task_id)}${e.row_task_id !== undefined ? `,"row_task_id":${J(e.row_task_id)}` : ''},"ticket_id":${J(e.ticket_id)},"status":${J(e.status)},"verdict":${J(e.verdict)},"idle_seconds":`,
        mid: `,"effective_timeout_seconds":${J(e.effective_timeout_seconds)},"exemptions":${J(e.exemptions)},"last_tool":${J(e.last_tool)},"sources":${J(e.sources)},"reason":`,
        tail: `${e.unobserved_children !== undefined ? `,"unobserved_children":${J(e.unobserved_children)}` : ''}${e.agent_version !== undefined ? `,"agent_version":${J(e.agent_version)}` : ''}}`,
        seen: this.checks,
      };
      this.rows.set(e.task_id, r);
    }
    r.seen = this.checks;
    return `${r.head}${J(e.idle_seconds)}${r.mid}${J(e.reason)}${r.tail}`;
  }
}

/** Every field of a row but idle_seconds and reason is the same. */
function isSameFrame(a: TaskEntry, b: TaskEntry): boolean {
  return (
    a.task_id === b.task_id &&
    a.row_task_id === b.row_task_id &&
    a.ticket_id === b.ticket_id &&
    a.status === b.status &&
    a.verdict === b.verdict &&
    a.effective_timeout_seconds === b.effective_timeout_seconds &&
    sameList(a.exemptions, b.exemptions) &&
    a.last_tool === b.last_tool &&
    sameList(a.sources, b.sources) &&
    sameList(a.unobserved_children, b.unobserved_children) &&
    a.agent_version === b.agent_version
  );
}

/** The whole watchdog.json document for one check. */
export function buildWatchdogJson(tasks: readonly Task[], verdicts: readonly Verdict[], plan: Plan, history: History, meta: ReportMeta): WatchdogJson {
  // A check's verdicts are in the order of its tasks: the map is asked only of a verdict that is not.
  const taskOf = (v: Verdict, i: number) => (tasks[i]?.taskId === v.taskId ? tasks[i] : tasksById(tasks).get(v.taskId));
  // One pass counts every kind (a filter per kind made a list per kind of every task).
  const counts = Object.fromEntries(VERDICT_KINDS.map((k) => [k, 0])) as Record<VerdictKind, number>;
  for (const v of verdicts) counts[v.kind]++;
  const { healthy, stalled, blocked, ...otherCounts } = counts;
  const stalls = verdicts
    .filter((v) => v.kind === 'stalled')
    .map((v) => {
      const d = plan.stalls.get(v.taskId);
      return {
        task_id: v.taskId,
        ticket_id: v.ticketId,
        last_activity: v.lastProgressMs === undefined ? null : msToIso(v.lastProgressMs),
        elapsed_seconds: secs(v.idleMs) ?? 0,
        bash_timeout_exemption: v.hasShellTimeoutExemption,
        action_taken: d?.actionTaken ?? meta.action,
        redispatch_attempt: d?.redispatchAttempt ?? 1,
        recovery_task_id: d?.recoveryTaskId ?? null,
        effective_timeout_seconds: secs(v.effectiveTimeoutMs) ?? 0,
        exemptions: v.exemptions,
        stall_reason: stallReasonOf(v),
      };
    });
  const openRequests = [...history.requests.values()]
    .filter((r): r is RequestRecord & { status: OpenRequestStatus } => isOpenRequestStatus(r.status))
    .map((r) => ({
      key: r.key,
      kind: r.kind,
      task_id: r.taskId,
      ticket_id: r.ticketId,
      ...(r.recoveryTaskId ? { recovery_task_id: r.recoveryTaskId } : {}),
      status: r.status,
      answer_by: msToIso(r.answerByMs),
      path: r.path,
    }));
  return {
    schema_version: '1.1',
    epic_id: meta.epicId,
    check_timestamp: msToIso(meta.nowMs),
    stalls_detected: stalls,
    healthy_tasks: verdicts.filter((v) => v.kind === 'healthy').map((v) => v.taskId),
    blocked_tasks: verdicts.filter((v) => v.kind === 'blocked').map((v) => v.ticketId),
    tasks: verdicts.map((v, i): TaskEntry => new Entry(v, taskOf(v, i))),
    summary: {
      total_tasks: verdicts.length,
      // The seed's keys first, in the seed's order; then every other verdict's count.
      healthy,
      stalled,
      blocked,
      ...outcomeCounts(history),
      ...otherCounts,
      pending_requests: openRequests.filter((r) => r.status === 'pending').length,
      unanswered_requests: openRequests.filter((r) => r.status === 'unanswered').length,
    },
    requests: openRequests,
    watchdog: {
      version: meta.version,
      pid: meta.pid,
      run_id: meta.runId,
      check_interval_seconds: meta.checkIntervalSeconds,
      action: meta.action,
      timeout_seconds: meta.timeoutSeconds,
      mass_stall: plan.isMassStall,
      ...(meta.isNowOverridden ? { evaluated_at_override: true } : {}),
    },
  };
}
