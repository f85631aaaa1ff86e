// The friction review: ranked per ticket and per epic, hypotheses from the notes, skipped lines
// counted with where the first one is, and only the days the period covers are read.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeFriction } from '../../src/commands/friction-review.js';
import { parseFrictionNote } from '../../src/commands/friction-note.js';
import { renderFrictionNote } from '../../src/act/friction/friction-render.js';
import type { DispatchEvent } from '../../src/contracts/events.js';
import { FrictionReviewSchema } from '../../src/contracts/friction-review.js';
import { runMain } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const DAY = 86_400_000;
const now = Date.now();
const today = Math.floor(now / DAY) * DAY;
const at = (daysAgo: number) => new Date(today - daysAgo * DAY + 3_600_000).toISOString(); // 01:00 UTC of that day
const date = (daysAgo: number) => at(daysAgo).slice(0, 10);
const env = (daysAgo: number, epic = 'E-1') => ({ timestamp_utc: at(daysAgo), epic_id: epic, run_id: 'r' });
const ids = (ticket: string, task = 't') => ({ ticket_id: ticket, task_id: task, agent_id: task });
const stall = (daysAgo: number, ticket: string, extra: Record<string, unknown> = {}, epic = 'E-1') => ({
  ...env(daysAgo, epic),
  event: 'stall_detected',
  ...ids(ticket),
  stall_reason: 'inactivity',
  idle_seconds: 200,
  bash_timeout_exemption: false,
  redispatch_attempt: 1,
  max_redispatches: 2,
  action_taken: 'report',
  ...extra,
});
const events = [
  stall(40, 'OLD-1'),
  stall(3, 'P-1', { action_taken: 'redispatch' }),
  { ...env(3), event: 'redispatch', ...ids('P-1'), key: 'k1', redispatch_attempt: 1, recovery_task_id: 't-r1' },
  stall(2, 'P-1', { stall_reason: 'never_started', exemptions: ['rate_limit'], action_taken: 'escalate' }, 'E-2'),
  { ...env(2, 'E-2'), event: 'escalated_to_blocked', ...ids('P-1', 't-r1'), attempt_count: 2, friction_path: 'friction/x.md', tracker: 'skipped' },
  stall(1, 'P-2'),
  stall(1, 'P-3', { action_taken: 'redispatch' }),
  { ...env(1), event: 'redispatch', ...ids('P-3'), key: 'k3', redispatch_attempt: 1, recovery_task_id: 't-r1' },
  { ...env(1), event: 'mass_stall', stalled: 3, in_flight: 4, task_ids: ['a', 'b', 'c'] },
] as DispatchEvent[];
const noLines = { corrupt: 0, corrupt_first: null, invalid: 0, invalid_first: null, foreign: 0, foreign_first: null };

function note(ticket: string, epic: string) {
  return renderFrictionNote({
    ticketId: ticket,
    attempts: 2,
    maxRedispatches: 1,
    history: [],
    evidencePaths: { dispatchLogs: [], checkpoints: [] },
    trackerOutcome: { kind: 'skipped' },
    escalatedAt: at(2),
    actionKey: `${epic}:t-r1:escalate`,
  });
}

describe('friction review (pure)', () => {
  it('counts nudges sent, and those that worked: the agent next seen healthy, or its row ended, before a reconcile or a stall', () => {
    const nudge = (task: string) => ({ ...env(1), event: 'nudge_sent', ...ids('P-9', task), key: `E-1:${task}:nudge`, route: 'resume' });
    const answered = (task: string, how: string) => ({
      ...env(1),
      event: 'request_answered',
      ...ids('P-9', task),
      key: `E-1:${task}:nudge`,
      kind: 'nudge',
      how,
    });
    const log = [
      nudge('a'),
      { ...env(1), event: 'healthy', ...ids('P-9', 'a'), idle_seconds: 1, effective_timeout_seconds: 120, recovered: false },
      nudge('b'),
      answered('b', 'terminal'),
      nudge('c'),
      answered('c', 'ack'),
      {
        ...env(1),
        event: 'reconcile_requested',
        ...ids('P-9', 'c'),
        key: 'E-1:c:reconcile',
        disagreement: 'agent_finished',
        detail: 'x',
        row_status: 'in_progress',
        request_path: 'r',
      },
      nudge('d'),
      stall(1, 'P-9', {}),
      answered('d', 'resolved'),
    ].map((e) => (e.event === 'stall_detected' ? { ...e, task_id: 'd', agent_id: 'd' } : e)) as DispatchEvent[];
    expect(summarizeFriction(log, { sinceMs: today - 30 * DAY, untilMs: now, notes: [], daysRead: [], lines: noLines }).nudges).toEqual({ sent: 4, worked: 2 });
  });

  it('ranks escalations first, then redispatches, then stalls; one row per ticket with its epics; a table per epic', () => {
    const notes = [{ ...parseFrictionNote(note('P-1', 'E-2'), 'friction/n.md') }];
    const s = summarizeFriction(events, { sinceMs: today - 30 * DAY, untilMs: now, notes, daysRead: [], lines: noLines });
    expect(s.tickets.map((t) => [t.rank, t.ticket_id, t.stalls, t.redispatches, t.escalations])).toEqual([
      [1, 'P-1', 2, 1, 1],
      [2, 'P-3', 1, 1, 0],
      [3, 'P-2', 1, 0, 0],
    ]);
    expect(s.tickets[0]).toMatchObject({
      epics: ['E-1', 'E-2'],
      stall_reasons: { inactivity: 1, never_started: 1 },
      exemptions_seen: { rate_limit: 1 },
      why_first: 'escalated (tracker skipped: not moved to Blocked; move it by hand) after 2 stall(s): needs a person',
      hypothesis_source: 'note',
      note: 'friction/n.md',
      tracker: 'skipped',
      timeline: ['dispatch-watchdog timeline --epic-id E-1 --svg e-1-timeline.svg', 'dispatch-watchdog timeline --epic-id E-2 --svg e-2-timeline.svg'],
    });
    expect(s.tickets[0]!.hypothesis).toMatch(/^No stall details were recorded/);
    expect(s.tickets[0]!.recommended_action).toMatch(/^Manual investigation required\. Check whether P-1 depends/);
    expect(s.tickets[0]!.recommended_action).toContain('then dispatch P-1 again (the tracker step was skipped: it was never moved to Blocked)');
    expect(s.tickets[1]).toMatchObject({
      why_first: 'redispatched 1 time(s): close to escalation',
      hypothesis_source: 'stall_pattern',
      note: null,
      tracker: null,
      timeline: [],
    });
    // Never blocked, its replacement took over: nothing says "move it out of Blocked".
    expect(s.tickets[1]!.recommended_action).toMatch(/^Nothing to undo: P-3 was never escalated \(its replacement t-r1 took over with no stall since\)/);
    expect(s.tickets[1]!.recommended_action).not.toContain('out of Blocked');
    expect(s.epics.map((e) => [e.epic_id, e.tickets, e.stalls, e.escalations, e.mass_stalls])).toEqual([
      ['E-2', 1, 1, 1, 0],
      ['E-1', 3, 3, 0, 1],
    ]);
    expect(FrictionReviewSchema.safeParse(s).success).toBe(true);
  });

  it('four tickets of one mass stall are each told it was the mass stall, not their own scope', () => {
    const tasks = ['m1', 'm2', 'm3', 'm4'];
    const mass = [
      ...tasks.map((t) => ({ ...stall(1, t.toUpperCase()), task_id: t, agent_id: t, last_tool: 'Read' })),
      { ...env(1), event: 'mass_stall', stalled: 4, in_flight: 4, task_ids: tasks },
    ] as DispatchEvent[];
    const s = summarizeFriction(mass, { sinceMs: today - 30 * DAY, untilMs: now, notes: [], daysRead: [], lines: noLines });
    expect(s.tickets).toHaveLength(4);
    for (const t of s.tickets) {
      expect(t.hypothesis).toMatch(/^The stall happened in a mass stall/);
      expect(`${t.hypothesis} ${t.recommended_action}`).not.toMatch(/context exhaustion|split/);
    }
  });

  it('--epic-id keeps that epic only, notes included', () => {
    const notes = [parseFrictionNote(note('P-1', 'E-2'), 'friction/a.md'), parseFrictionNote(note('P-9', 'E-1'), 'friction/b.md')];
    const s = summarizeFriction(events, { sinceMs: today - 30 * DAY, untilMs: now, epicId: 'E-2', notes, daysRead: [], lines: noLines });
    expect(s.tickets.map((t) => [t.ticket_id, t.epics, t.stalls])).toEqual([['P-1', ['E-2'], 1]]);
    expect(s.notes).toEqual(['friction/a.md']);
  });

  it('reads the ticket, epic, hypothesis and action back from a note it wrote', () => {
    expect(parseFrictionNote(note('P-7', 'E-3'), 'friction/x.md')).toMatchObject({
      ticketId: 'P-7',
      epicId: 'E-3',
      hypothesis: expect.stringContaining('no pattern'),
      action: expect.stringContaining('P-7'),
    });
  });
});

describe('friction review (CLI)', () => {
  function stateDir(): string {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'dispatch-log'));
    const byDay = new Map<string, string[]>();
    for (const e of events) byDay.set(e.timestamp_utc.slice(0, 10), [...(byDay.get(e.timestamp_utc.slice(0, 10)) ?? []), JSON.stringify(e)]);
    byDay.get(date(40))!.push('{not json'); // outside every period below: never read, never counted
    byDay.get(date(1))!.push('{"event":"stall_detected","ticket_id":3}', '{"kind":"someone else"}', '{torn');
    byDay.set(date(0), [JSON.stringify(stall(0, 'P-4')), '{"event":"from_another_tool"}']);
    for (const [d, lines] of byDay) writeFileSync(path.join(dir, 'dispatch-log', `${d}.ndjson`), lines.join('\n') + '\n');
    mkdirSync(path.join(dir, 'friction'));
    writeFileSync(path.join(dir, 'friction', `${date(2)}-stall-escalation-p-1.md`), note('P-1', 'E-2'));
    return dir;
  }

  it('prints what to look at first, the tables and the skipped lines with the first of each kind', async () => {
    const dir = stateDir();
    const r = await runMain(['friction', '--state-dir', dir, '--since', '7d']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `dispatch log: 4 day(s) read (${date(3)} to ${date(0)}); lines skipped: 1 corrupt (first dispatch-log/${date(1)}.ndjson:7), 1 invalid (first dispatch-log/${date(1)}.ndjson:5), 2 foreign (first dispatch-log/${date(1)}.ndjson:6)\n`,
    );
    expect(r.stdout).toContain(
      'look at first:\n  1. P-1 (epic E-1, E-2): escalated (tracker skipped: not moved to Blocked; move it by hand) after 2 stall(s): needs a person\n     hypothesis: No stall details',
    );
    expect(r.stdout).toContain('     see it: dispatch-watchdog timeline --epic-id E-2 --svg e-2-timeline.svg\n');
    expect(r.stdout).toContain(`     note: friction/${date(2)}-stall-escalation-p-1.md\n`);
    expect(r.stdout).toMatch(/^1 +P-1 +E-1,E-2 +2 +1 +0 +yes \(1\) +inactivity×1, never_started×1 +rate_limit×1 /m);
    expect(r.stdout).toMatch(/^per epic:\nEPIC +TICKETS/m);
  });

  it('--since 0d is today for events and notes alike; --json follows its schema', async () => {
    const dir = stateDir();
    const r = await runMain(['friction', '--state-dir', dir, '--since', '0d', '--json']);
    const review = FrictionReviewSchema.parse(JSON.parse(r.stdout));
    expect(review.days_read).toEqual([date(0)]);
    expect(review.tickets.map((t) => t.ticket_id)).toEqual(['P-4']);
    expect(review.notes).toEqual([]);
    expect(review.lines).toEqual({
      corrupt: 0,
      corrupt_first: null,
      invalid: 0,
      invalid_first: null,
      foreign: 1,
      foreign_first: { file: `dispatch-log/${date(0)}.ndjson`, line: 2 },
    });
    const e2 = FrictionReviewSchema.parse(JSON.parse((await runMain(['friction', '--state-dir', dir, '--epic-id', 'E-2', '--json'])).stdout));
    expect(e2.tickets.map((t) => t.ticket_id)).toEqual(['P-1']);
  });

  it('a bad --since exits 2 and points at the friction help', async () => {
    const bad = await runMain(['friction', '--state-dir', tempDir(), '--since', 'last week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since: expected a duration (90m, 12h, 30d, 2w) or a date (2026-04-01, UTC), got "last week".');
    expect(bad.stderr).toContain('(run dispatch-watchdog friction --help for usage)');
  });
});
