// The seed skill's own dispatch-log lines (seeds/dispatch-watchdog.md): its five events without our
// envelope (no epic_id, run_id or task_id; a redispatch without key or recovery_task_id). They are
// read, not rejected, so they count toward a ticket's redispatch cap; we keep writing our superset.
// Pure.
import { recoveryTaskId } from './ids.js';

export const SEED_EVENT_NAMES = ['stall_detected', 'agent_killed', 'redispatch', 'escalated_to_blocked', 'healthy'] as const;

const isSeedEvent = (e: unknown): e is (typeof SEED_EVENT_NAMES)[number] => (SEED_EVENT_NAMES as readonly unknown[]).includes(e);

/**
 * A seed-shaped line filled up to our schema (every real field kept), or undefined when it is not
 * one: ours always carry run_id. Such a line belongs to no epic (epic_id ""), so it counts only
 * toward per-ticket totals, never as an action of ours.
 */
export function fillSeedLine(json: unknown): Record<string, unknown> | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const j = json as Record<string, unknown>;
  if ('run_id' in j || !isSeedEvent(j.event) || typeof j.ticket_id !== 'string') return undefined;
  const agent = typeof j.agent_id === 'string' ? j.agent_id : j.ticket_id;
  const attempt = typeof j.redispatch_attempt === 'number' ? j.redispatch_attempt : 1;
  const base = { epic_id: '', run_id: 'seed', task_id: agent, agent_id: agent, seed_shape: true };
  const defaults: Record<string, unknown> = {
    stall_detected: {
      stall_reason: 'inactivity',
      idle_seconds: 0,
      bash_timeout_exemption: false,
      redispatch_attempt: 1,
      max_redispatches: 2,
      action_taken: 'report',
    },
    agent_killed: { key: `seed:${agent}:cancel` },
    redispatch: { key: `seed:${agent}:redispatch`, redispatch_attempt: attempt, recovery_task_id: recoveryTaskId(agent, attempt) },
    escalated_to_blocked: { attempt_count: 0, friction_path: '' },
    healthy: { idle_seconds: 0 },
  }[j.event] as Record<string, unknown>;
  return { ...base, ...defaults, ...j };
}
