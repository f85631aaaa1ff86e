// A generated dispatch log that looks like real waves (issue 23): many epics running waves of
// many tickets side by side, each wave's watchdog logging what a real one logs — its start, a
// task's first healthy line, stalls with long reasons, write-ahead actions and their outcomes
// with request files, the orchestrator's answers, `next` returns, human waits, escalations with
// tracker details, its stop — in the key order `DispatchLog` writes (timestamp, event, epic, run).
// Deterministic (seeded); written one day file at a time so memory stays at one day's text.
// `generateLog` (gen-log.ts) is the older shape: three epics, every fold-relevant kind, junk lines.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface GenWavesOptions {
  events: number;
  days: number;
  /** Epics with waves in the log. @defaultValue 60 */
  epics?: number;
  /** The first day, as epoch ms at 00:00 UTC. @defaultValue 2026-01-01 */
  startMs?: number;
  /** A torn, a corrupt and a foreign line every this many lines (0: none). @defaultValue 20000 */
  junkEvery?: number;
  seed?: number;
}

export const wavesEpic = (i: number) => `EPIC-${100 + i}`;

const REASONS = [
  'no transcript record, hook activity or process output for 912 s (window 600 s); the last tool call (Bash: npm test -- --runInBand packages/billing) had returned 640 s earlier and nothing followed it',
  'the agent repeated the same Edit of src/invoices/fetch.ts (old_string not found) 6 times in 4 minutes without reading the file again in between; its last 3 results were the identical error',
  "the row says in_progress, but the agent's transcript ended its turn 14 minutes ago with a final message and no tool call open; the orchestrator has not marked the task done",
  'a permission prompt for Bash(git push origin HEAD:refs/heads/feature/PROJ-4411) has been open for 21 minutes; no answer has reached the session',
];
const TOOLS = ['Bash', 'Read', 'Edit', 'Grep', 'Write', 'Task', 'WebFetch'];

/** Write dispatch-log/<day>.ndjson files under `stateDir`; returns the day file names and total bytes. */
export function generateWavesLog(stateDir: string, o: GenWavesOptions): { names: string[]; bytes: number; epics: string[] } {
  const dir = path.join(stateDir, 'dispatch-log');
  mkdirSync(dir, { recursive: true });
  let seed = o.seed ?? 23;
  const rnd = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const epics = Array.from({ length: o.epics ?? 60 }, (_, i) => wavesEpic(i));
  const start = o.startMs ?? Date.parse('2026-01-01T00:00:00Z');
  const perDay = Math.ceil(o.events / o.days);
  const junkEvery = o.junkEvery ?? 20_000;
  const names: string[] = [];
  let bytes = 0;
  let n = 0;
  let wave = 0;
  for (let d = 0; d < o.days && n < o.events; d++) {
    const day = new Date(start + d * 86_400_000).toISOString().slice(0, 10);
    const lines: string[] = [];
    let i = 0;
    const push = (epic: string, run: string, event: string, rest: Record<string, unknown>) => {
      const ts = new Date(start + d * 86_400_000 + Math.floor((Math.min(i, perDay - 1) / perDay) * 86_399_000)).toISOString();
      lines.push(JSON.stringify({ timestamp_utc: ts, event, epic_id: epic, run_id: run, ...rest }));
      i++;
      n++;
      if (junkEvery > 0 && n % junkEvery === 0) {
        lines.push(`{"timestamp_utc":"${ts}","event":"healthy","epic_id":"${epic}","run_id":"${run}","ticket_id":"PRO`); // torn by a crash, then appended to
        lines.push('{"event":"stall_detected","ticket_id":"PROJ-1",,}'); // corrupt
        lines.push(JSON.stringify({ timestamp_utc: ts, event: 'orchestrator_note', epic_id: epic, run_id: run, text: 'from another tool' }));
      }
    };
    while (i < perDay && n < o.events) {
      // One wave of one epic: 10–60 tickets, its watchdog's lines from start to stop.
      const epic = pick(epics);
      const run = `run-${d}-${wave++}`;
      const size = 10 + Math.floor(rnd() * 50);
      const adapter = pick(['mailbox', 'process', 'claude-team']);
      push(epic, run, 'watchdog_started', {
        pid: 4000 + (wave % 30000),
        version: '0.1.0',
        action: 'redispatch',
        timeout_seconds: 600,
        check_interval_seconds: 30,
        max_redispatches: 2,
        adapter,
      });
      for (let t = 0; t < size && i < perDay; t++) {
        const ticket = `PROJ-${1000 + Math.floor(rnd() * 40_000)}`;
        const task = `${ticket.toLowerCase()}-w${wave}`;
        const tf = { ticket_id: ticket, task_id: task, agent_id: `agent-${task}` };
        push(epic, run, 'healthy', { ...tf, idle_seconds: Math.floor(rnd() * 40), effective_timeout_seconds: 600 });
        const r = rnd();
        if (r < 0.55) continue; // finished without trouble (terminal rows log nothing)
        if (r < 0.62) {
          push(epic, run, 'waiting_human', { ...tf, reason: REASONS[3] });
          push(epic, run, 'attention_needed', {
            ...tf,
            key: `${epic}:${task}:human_wait`,
            kind: 'human_wait',
            since: new Date(start + d * 86_400_000).toISOString(),
            reason: REASONS[3],
          });
          push(epic, run, 'healthy', { ...tf, idle_seconds: 3, recovered: true });
          continue;
        }
        if (r < 0.66) {
          push(epic, run, 'looping_detected', { ...tf, reason: REASONS[1] });
          continue;
        }
        // A stall, recovered by a redispatch through a request the orchestrator answers.
        const reason = pick(['inactivity', 'open_tool_overrun', 'api_gave_up', 'never_started']);
        const tool = pick(TOOLS);
        push(epic, run, 'stall_detected', {
          ...tf,
          stall_reason: reason,
          idle_seconds: 600 + Math.floor(rnd() * 900),
          bash_timeout_exemption: false,
          redispatch_attempt: 1,
          max_redispatches: 2,
          action_taken: 'redispatch',
          effective_timeout_seconds: 600,
          reason: REASONS[0],
          last_tool: tool,
          last_tool_open: rnd() < 0.4,
        });
        const key = `${epic}:${task}:redispatch`;
        const recovery = `${task}-r1`;
        const answerBy = new Date(start + d * 86_400_000 + 3_600_000).toISOString();
        push(epic, run, 'action_started', {
          ...tf,
          key,
          action: 'redispatch',
          adapter,
          redispatch_attempt: 1,
          recovery_task_id: recovery,
          stall_reason: reason,
          idle_seconds: 700,
          session_id: `sess-${task}`,
        });
        push(epic, run, 'agent_killed', {
          ...tf,
          key,
          adapter,
          step: 'stop_before_redispatch',
          request_path: `requests/${epic}/${task}.cancel.json`,
          answer_by: answerBy,
        });
        push(epic, run, 'redispatch', {
          ...tf,
          key,
          redispatch_attempt: 1,
          max_redispatches: 2,
          recovery_task_id: recovery,
          checkpoint_path: `checkpoints/${epic}/${task}.md`,
          remaining_tasks: ['finish the invoice retry', 'run the billing tests'],
          adapter,
          request_path: `requests/${epic}/${task}.redispatch.json`,
          answer_by: answerBy,
        });
        push(epic, run, 'next_returned', { reason: 'requests', exit_code: 10, requests: [key], unanswered: [], escalations: [] });
        if (rnd() < 0.85) {
          push(epic, run, 'request_answered', {
            key,
            kind: 'redispatch',
            ticket_id: ticket,
            task_id: task,
            recovery_task_id: recovery,
            how: pick(['row', 'row_reused', 'ack']),
          });
          continue;
        }
        push(epic, run, 'request_unanswered', { key, kind: 'redispatch', ticket_id: ticket, task_id: task, recovery_task_id: recovery, answer_by: answerBy });
        const ek = `${epic}:${task}:escalate`;
        push(epic, run, 'action_started', { ...tf, key: ek, action: 'escalate', adapter });
        push(epic, run, 'escalated_to_blocked', {
          ...tf,
          key: ek,
          attempt_count: 2,
          friction_path: `friction/${day}-${task}.md`,
          tracker: pick(['updated', 'failed', 'skipped']),
          tracker_detail: 'Linear: moved to Blocked with a comment linking the friction note',
        });
      }
      push(epic, run, 'watchdog_stopped', { reason: pick(['wave_complete', 'next', 'signal']), checks: 40 + Math.floor(rnd() * 400) });
    }
    const text = lines.join('\n') + '\n';
    writeFileSync(path.join(dir, `${day}.ndjson`), text);
    names.push(`${day}.ndjson`);
    bytes += Buffer.byteLength(text);
  }
  return { names, bytes, epics };
}
