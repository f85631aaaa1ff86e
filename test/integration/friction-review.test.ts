import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeFriction } from '../../src/commands/friction-review.js';
import type { DispatchEvent } from '../../src/contracts/events.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const now = Date.now();
const at = (daysAgo: number) => new Date(now - daysAgo * 86_400_000).toISOString();
const env = (daysAgo: number, epic = 'E-1') => ({ timestamp_utc: at(daysAgo), epic_id: epic, run_id: 'r' });
const ids = (ticket: string, task = 't') => ({ ticket_id: ticket, task_id: task, agent_id: task });
const events: DispatchEvent[] = [
  { ...env(40), event: 'stall_detected', ...ids('OLD-1'), stall_reason: 'inactivity', idle_seconds: 200, bash_timeout_exemption: false, redispatch_attempt: 1, max_redispatches: 2, action_taken: 'report' },
  { ...env(3), event: 'stall_detected', ...ids('P-1'), stall_reason: 'inactivity', idle_seconds: 200, bash_timeout_exemption: false, redispatch_attempt: 1, max_redispatches: 2, action_taken: 'redispatch' },
  { ...env(3), event: 'redispatch', ...ids('P-1'), key: 'k1', redispatch_attempt: 1, recovery_task_id: 't-r1' },
  { ...env(2, 'E-2'), event: 'stall_detected', ...ids('P-1', 't-r1'), stall_reason: 'never_started', idle_seconds: 300, bash_timeout_exemption: false, redispatch_attempt: 2, max_redispatches: 1, action_taken: 'escalate', exemptions: ['rate_limit'] },
  { ...env(2, 'E-2'), event: 'escalated_to_blocked', ...ids('P-1', 't-r1'), attempt_count: 2, friction_path: 'friction/x.md', tracker: 'skipped' },
  { ...env(1), event: 'stall_detected', ...ids('P-2'), stall_reason: 'inactivity', idle_seconds: 130, bash_timeout_exemption: false, redispatch_attempt: 1, max_redispatches: 2, action_taken: 'report' },
  { ...env(1), event: 'mass_stall', stalled: 3, in_flight: 4, task_ids: ['a', 'b', 'c'] },
] as DispatchEvent[];

describe('friction review', () => {
  it('counts per ticket since the cut-off, worst first', () => {
    const s = summarizeFriction(events, now - 30 * 86_400_000, []);
    expect(s.tickets.map((t) => [t.ticket_id, t.stalls, t.redispatches, t.escalations])).toEqual([['P-1', 2, 1, 1], ['P-2', 1, 0, 0]]);
    expect(s.tickets[0]).toMatchObject({ epics: ['E-1', 'E-2'], stall_reasons: { inactivity: 1, never_started: 1 }, exemptions_seen: { rate_limit: 1 } });
    expect(s.mass_stalls).toBe(1);
  });

  it('the CLI prints the table and the notes, or JSON; a bad duration exits 2', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'dispatch-log'));
    writeFileSync(path.join(dir, 'dispatch-log', `${at(0).slice(0, 10)}.ndjson`), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    mkdirSync(path.join(dir, 'friction'));
    writeFileSync(path.join(dir, 'friction', `${at(2).slice(0, 10)}-stall-escalation-p-1.md`), '# note\n');
    const r = await runCli(['friction', '--state-dir', dir, '--since', '7d']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^P-1 +2 +1 +0 +yes \(1\) +inactivity×1, never_started×1 /m);
    expect(r.stdout).toContain(`friction/${at(2).slice(0, 10)}-stall-escalation-p-1.md`);
    const j = await runCli(['friction', '--state-dir', dir, '--json']);
    expect(JSON.parse(j.stdout).tickets).toHaveLength(2);
    const bad = await runCli(['friction', '--state-dir', dir, '--since', 'last week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since: expected a duration (90m, 12h, 30d, 2w) or a date (2026-04-01, UTC), got "last week".');
    expect(bad.stderr).toContain('(run dispatch-watchdog friction --help for usage)');
  });
});
