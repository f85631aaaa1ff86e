// A generated dispatch log for benches and tests: `events` lines over `days` UTC days, for our
// epic and two others, with every event kind the fold looks at (verdicts, write-ahead actions and
// their outcomes, failed tracker steps and their retries, recovery summaries with orphans, mass
// stalls), plus corrupt, foreign, blank and CRLF lines, most in the key order DispatchLog writes. Deterministic (seeded), written one day
// file at a time so memory stays at one day's text.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface GenLogOptions {
  events: number;
  days: number;
  /** The first day, as epoch ms at 00:00 UTC. @defaultValue 2026-01-01 */
  startMs?: number;
  /** A corrupt, a foreign and a blank line every this many lines. @defaultValue 5000 */
  junkEvery?: number;
  seed?: number;
}

const EPICS = ['E-1', 'E-2', 'E-3'];

/** Write dispatch-log/<day>.ndjson files under `stateDir`; returns the day file names and total bytes. */
export function generateLog(stateDir: string, o: GenLogOptions): { names: string[]; bytes: number } {
  const dir = path.join(stateDir, 'dispatch-log');
  mkdirSync(dir, { recursive: true });
  let seed = o.seed ?? 12;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const start = o.startMs ?? Date.parse('2026-01-01T00:00:00Z');
  const perDay = Math.ceil(o.events / o.days);
  const junkEvery = o.junkEvery ?? 5000;
  const names: string[] = [];
  let bytes = 0;
  let n = 0;
  let attempt = 0;
  for (let d = 0; d < o.days && n < o.events; d++) {
    const day = new Date(start + d * 86_400_000).toISOString().slice(0, 10);
    const lines: string[] = [];
    for (let i = 0; i < perDay && n < o.events; i++, n++) {
      const ts = new Date(start + d * 86_400_000 + Math.floor((i / perDay) * 86_399_000)).toISOString();
      const epic_id = rnd() < 0.6 ? 'E-1' : pick(EPICS);
      const k = Math.floor(rnd() * 3000);
      const task = { ticket_id: `P-${k % 1500}`, task_id: `t${k}-${d % 7}`, agent_id: `a${k}` };
      const env = { timestamp_utc: ts, epic_id, run_id: `r${d}` };
      const key = (kind: string) => `${epic_id}:${task.task_id}:${kind}`;
      const r = rnd();
      let e: Record<string, unknown>;
      if (r < 0.5) e = { ...env, event: 'healthy', ...task, idle_seconds: Math.floor(rnd() * 300), recovered: rnd() < 0.2 };
      else if (r < 0.68)
        e = {
          ...env,
          event: 'stall_detected',
          ...task,
          stall_reason: pick(['inactivity', 'open_tool_overrun', 'api_gave_up']),
          idle_seconds: 700,
          bash_timeout_exemption: false,
          redispatch_attempt: attempt % 3,
          max_redispatches: 2,
          action_taken: 'redispatch',
          last_tool: pick(['Bash', 'Read', 'Edit']),
        };
      else if (r < 0.73) e = { ...env, event: pick(['truth_inconsistent', 'looping_detected', 'waiting_human', 'task_unknown']), ...task, reason: 'generated' };
      else if (r < 0.8) {
        const action = pick(['cancel', 'redispatch', 'escalate'] as const);
        e = {
          ...env,
          event: 'action_started',
          ...task,
          key: key(action),
          action,
          adapter: 'mailbox',
          redispatch_attempt: attempt++ % 3,
          recovery_task_id: `${task.task_id}-r${attempt}`,
        };
      } else if (r < 0.85)
        e = { ...env, event: 'agent_killed', ...task, key: key(pick(['cancel', 'redispatch', 'escalate'])), adapter: 'mailbox', step: 'cancel' };
      else if (r < 0.91)
        e = {
          ...env,
          event: 'redispatch',
          ...task,
          key: key('redispatch'),
          redispatch_attempt: attempt % 3,
          max_redispatches: 2,
          recovery_task_id: `${task.task_id}-r${attempt}`,
          adapter: 'mailbox',
          ...(rnd() < 0.3 ? { pid: 100 + k } : {}),
        };
      else if (r < 0.95)
        e = {
          ...env,
          event: 'escalated_to_blocked',
          ...task,
          key: key('escalate'),
          attempt_count: 3,
          friction_path: `friction/${day}-x.md`,
          tracker: pick(['updated', 'failed', 'skipped', 'already_blocked']),
          ...(rnd() < 0.3 ? { is_retry: true } : {}),
        };
      else if (r < 0.97)
        e = {
          ...env,
          event: 'action_failed',
          ...task,
          key: key(pick(['cancel', 'redispatch', 'escalate'])),
          action: pick(['cancel', 'redispatch', 'escalate']),
          error: 'adapter refused',
          retryable: rnd() < 0.5,
        };
      else if (r < 0.985) {
        const orphans = Array.from({ length: Math.floor(rnd() * 4) }, () => `${epic_id}:t${Math.floor(rnd() * 3000)}:cancel`);
        e = { ...env, event: 'recovery_summary', done: [], finished: [], orphans, orphan_count: orphans.length };
      } else if (r < 0.99) e = { ...env, event: 'mass_stall', stalled: 3, in_flight: 4, task_ids: [`t${k}`, `t${k + 1}`, `t${k + 2}`] };
      else
        e = {
          ...env,
          event: pick(['watchdog_started', 'watchdog_stopped']),
          pid: 42,
          version: '0.1.0',
          action: 'report',
          timeout_seconds: 600,
          check_interval_seconds: 30,
          max_redispatches: 2,
          reason: 'signal',
        };
      // Most lines in the order DispatchLog writes them (timestamp, event, epic, run: what start-up's
      // prefilter reads from the bytes); one in seven in another order, parsed the slow way.
      const { timestamp_utc, event, epic_id: epic, run_id, ...rest } = e as Record<string, unknown>;
      lines.push(n % 7 === 3 ? JSON.stringify(e) : JSON.stringify({ timestamp_utc, event, epic_id: epic, run_id, ...rest }));
      if ((n + 1) % junkEvery === 0)
        lines.push(
          '{"event":"healthy","oops',
          JSON.stringify({ event: 'seed_skill_event', foo: 1 }),
          '',
          JSON.stringify({ ...env, event: 'healthy', ...task, idle_seconds: 1 }) + '\r',
        );
    }
    const text = lines.join('\n') + '\n';
    writeFileSync(path.join(dir, `${day}.ndjson`), text);
    names.push(`${day}.ndjson`);
    bytes += Buffer.byteLength(text);
  }
  return { names, bytes };
}
