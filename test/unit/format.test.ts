import { describe, expect, it } from 'vitest';
import type { DispatchEvent } from '../../src/contracts/events.js';
import { renderEvent } from '../../src/core/format.js';

const env = { timestamp_utc: '2026-04-02T10:02:01Z', epic_id: 'E-1', run_id: 'r' };
const ids = { ticket_id: 'P-1', task_id: 't1', agent_id: 't1' };

describe('renderEvent: one clear line per logged event', () => {
  it.each([
    [
      {
        event: 'stall_detected',
        ...ids,
        stall_reason: 'inactivity',
        idle_seconds: 121,
        bash_timeout_exemption: false,
        redispatch_attempt: 1,
        max_redispatches: 2,
        action_taken: 'redispatch',
        reason: 'no progress for 121s (window 120s)',
      },
      '10:02:01 t1 (P-1) STALLED: no progress for 121s (window 120s) -> redispatch',
    ],
    [
      { event: 'agent_killed', ...ids, key: 'k', adapter: 'mailbox', detail: 'cancel request written' },
      '10:02:01 t1 (P-1) stop requested: cancel request written',
    ],
    [
      { event: 'agent_killed', ...ids, key: 'k', adapter: 'process', was_forced: true, detail: 'process 42 ignored SIGTERM' },
      '10:02:01 t1 (P-1) agent stopped (SIGKILL): process 42 ignored SIGTERM',
    ],
    [
      { event: 'redispatch', ...ids, key: 'k', adapter: 'mailbox', redispatch_attempt: 1, recovery_task_id: 't1-r1' },
      '10:02:01 t1 (P-1) replacement requested as t1-r1 (attempt 1)',
    ],
    [
      { event: 'redispatch', ...ids, key: 'k', adapter: 'process', redispatch_attempt: 2, recovery_task_id: 't1-r2', pid: 4242 },
      '10:02:01 t1 (P-1) redispatched as t1-r2 (attempt 2), pid 4242',
    ],
    [{ event: 'healthy', ...ids, idle_seconds: 5, recovered: true }, '10:02:01 t1 (P-1) healthy again, idle 5s'],
    [
      { event: 'mass_stall', stalled: 3, in_flight: 4, task_ids: ['a', 'b', 'c'] },
      '10:02:01 circuit breaker: 3 of 4 tasks stalled at once; holding actions (host starved?)',
    ],
    [
      { event: 'escalated_to_blocked', ...ids, attempt_count: 3, friction_path: 'friction/x.md', tracker: 'skipped' },
      '10:02:01 t1 (P-1) escalated after 3 stalls: ticket not moved (no LINEAR_API_KEY): move it to Blocked by hand; friction note friction/x.md',
    ],
    [
      { event: 'escalated_to_blocked', ...ids, attempt_count: 3, friction_path: 'friction/x.md', tracker: 'updated' },
      '10:02:01 t1 (P-1) escalated after 3 stalls: moved to Blocked; friction note friction/x.md',
    ],
  ])('%o', (body, line) => {
    expect(renderEvent({ ...env, ...body } as DispatchEvent)).toBe(line);
  });
});
