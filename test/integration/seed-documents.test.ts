// The seed's documents read as the seed wrote them (issue 33 item 5): its own watchdog.json (the
// skill's example: schema_version "1.1" without our additive keys) is accepted by `status` and the
// API; its dispatch-log lines (no epic_id, run_id or task_id) are taken by `friction` for what they
// are: no "(epic , E7)", no blank epic row, a kill before a redispatch is the redispatch's, and no
// `timeline --epic-id ` command that cannot run.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseWatchdogJson } from '../../src/index.js';
import { runMain } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/** seeds/dispatch-watchdog.md "State File Schema": the document the seed's skill writes. */
const SEED_WATCHDOG_JSON = {
  schema_version: '1.1',
  epic_id: 'PROJ-1000',
  check_timestamp: '2026-04-02T10:00:00Z',
  stalls_detected: [
    {
      task_id: 'task-abc123',
      ticket_id: 'PROJ-1001',
      last_activity: '2026-04-02T09:58:00Z',
      elapsed_seconds: 145,
      bash_timeout_exemption: false,
      action_taken: 'redispatch',
      redispatch_attempt: 1,
      recovery_task_id: 'task-xyz789',
    },
  ],
  healthy_tasks: ['task-def456', 'task-ghi789'],
  blocked_tasks: ['PROJ-1003'],
  summary: { total_tasks: 5, healthy: 3, stalled: 1, blocked: 1, redispatched: 1 },
};

describe("the seed's watchdog.json", () => {
  it('status prints it (was: not a schema_version "1.1" document), as a table and as JSON', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'epics', 'PROJ-1000'), { recursive: true });
    writeFileSync(path.join(dir, 'epics', 'PROJ-1000', 'watchdog.json'), JSON.stringify(SEED_WATCHDOG_JSON));
    const table = await runMain(['status', '--state-dir', dir, '--epic-id', 'PROJ-1000']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('written by the onex skill');
    expect(table.stdout).toMatch(/task-abc123\s+PROJ-1001\s+STALLED/);
    expect(table.stdout).toContain('task-def456');
    const json = await runMain(['status', '--state-dir', dir, '--epic-id', 'PROJ-1000', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ schema_version: '1.1', summary: { total_tasks: 5, healthy: 3, stalled: 1 } });
    const all = await runMain(['status', '--state-dir', dir]);
    expect(all.code).toBe(0);
  });

  it('the API reads it, our keys filled from its lists', () => {
    const doc = parseWatchdogJson(SEED_WATCHDOG_JSON);
    expect(doc.tasks.map((t) => [t.task_id, t.verdict])).toEqual([
      ['task-abc123', 'stalled'],
      ['task-def456', 'healthy'],
      ['task-ghi789', 'healthy'],
      ['PROJ-1003', 'blocked'],
    ]);
    expect(doc.watchdog.version).toBe('seed');
    expect(doc.summary).toMatchObject({ total_tasks: 5, redispatched: 1, cancelled: 0, escalated: 0 });
  });
});

describe("the seed's dispatch-log lines in friction", () => {
  it('count for their ticket without an epic of their own', async () => {
    const dir = tempDir();
    const day = new Date().toISOString().slice(0, 10);
    const t = (s: number) => new Date(Date.now() - 3_600_000 + s * 1000).toISOString();
    // The seed's own lines (its schema: no epic_id, run_id, task_id), then ours for the same ticket in epic E7.
    const lines = [
      {
        timestamp_utc: t(0),
        event: 'stall_detected',
        ticket_id: 'PROJ-7',
        agent_id: 'task-a',
        stall_reason: 'inactivity',
        idle_seconds: 145,
        bash_timeout_exemption: false,
        redispatch_attempt: 1,
        max_redispatches: 2,
        action_taken: 'redispatch',
      },
      { timestamp_utc: t(1), event: 'agent_killed', ticket_id: 'PROJ-7', agent_id: 'task-a' },
      { timestamp_utc: t(2), event: 'redispatch', ticket_id: 'PROJ-7', redispatch_attempt: 1, remaining_tasks: ['finish'] },
      {
        timestamp_utc: t(10),
        epic_id: 'E7',
        run_id: 'r1',
        event: 'stall_detected',
        ticket_id: 'PROJ-7',
        task_id: 't7',
        agent_id: 't7',
        stall_reason: 'inactivity',
        idle_seconds: 200,
        bash_timeout_exemption: false,
        redispatch_attempt: 2,
        max_redispatches: 2,
        action_taken: 'report',
      },
    ];
    mkdirSync(path.join(dir, 'dispatch-log'), { recursive: true });
    writeFileSync(path.join(dir, 'dispatch-log', `${day}.ndjson`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await runMain(['friction', '--state-dir', dir, '--since', '1d']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('(epic , E7)');
    expect(r.stdout).toContain('PROJ-7 (epic E7)');
    expect(r.stdout).not.toMatch(/--epic-id\s+--svg|--epic-id {2}/);
    const json = JSON.parse((await runMain(['friction', '--state-dir', dir, '--since', '1d', '--json'])).stdout);
    expect(json.epics.map((e: { epic_id: string }) => e.epic_id)).toEqual(['E7']);
    expect(json.tickets[0]).toMatchObject({ ticket_id: 'PROJ-7', epics: ['E7'], stalls: 2, redispatches: 1, cancels: 0 });
  });
});
