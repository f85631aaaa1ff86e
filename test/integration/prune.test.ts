// prune removes only what the watchdog wrote and no longer needs, and says what it removed.
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { prune, renderPrune } from '../../src/commands/prune.js';
import { StatePaths } from '../../src/files/paths.js';
import { runMain } from '../helpers/in-process-cli.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const DAY = 86_400_000;
const now = Date.now();

function file(root: string, rel: string, text: string, ageDays: number) {
  const p = path.join(root, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, text);
  const t = new Date(now - ageDays * DAY);
  utimesSync(p, t, t);
}

const checkpoint = (epic: string, ticket: string) =>
  stringify({
    schema_version: '1',
    epic_id: epic,
    ticket_id: ticket,
    task_id: ticket,
    attempt: 1,
    recovery_task_id: `${ticket}-r1`,
    created_at: '2026-01-01T00:00:00Z',
    stall_reason: 'inactivity',
    idle_seconds: 300,
    completed_work: [],
    remaining_work: [],
    last_tool: null,
    last_output: null,
    supersedes: null,
  });

/** A state dir with one finished epic, one running, one finished but watched, and shared files old and new. */
function stateDir(): string {
  const root = tempDir('dw-prune-');
  writeWave(root, 'DONE', '2026-01-01T00:00:00Z', [
    { ticket_id: 'T-1', status: 'merged' },
    { ticket_id: 'T-2', status: 'blocked' },
  ]);
  file(root, 'epics/DONE/watchdog.json', '{}', 40);
  file(root, 'epics/DONE/watchdog.lock', JSON.stringify({ pid: 999_999_999, run_id: 'r', started_at: '2026-01-01T00:00:00Z' }), 40);
  file(root, 'epics/DONE/requests/DONE__T-1__redispatch.redispatch.json', '{}', 40);
  file(root, 'epics/DONE/acks/DONE__T-1__redispatch.ack.json', '{}', 40);
  file(root, 'epics/DONE/watchdog.lock.stale.123.0123abcd', '{}', 40);
  file(root, 'epics/DONE/watchdog.lock.takeover', '{}', 40);
  file(root, 'epics/DONE/agents/T-1-r1.log', 'log', 40);
  file(root, 'epics/DONE/agents/T-1-r2.log', 'recent log', 1);
  file(root, 'epics/DONE/notes.txt', "the orchestrator's own file", 40);
  writeWave(root, 'RUN', '2026-01-01T00:00:00Z', [{ ticket_id: 'T-3', status: 'in_progress' }]);
  file(root, 'epics/RUN/requests/RUN__T-3__cancel.cancel.json', '{}', 40);
  file(root, 'epics/RUN/acks/RUN__T-3__cancel.ack.json', '{}', 40);
  writeWave(root, 'HELD', '2026-01-01T00:00:00Z', [{ ticket_id: 'T-4', status: 'merged' }]);
  file(root, 'epics/HELD/watchdog.lock', JSON.stringify({ pid: process.pid, run_id: 'r', started_at: '2026-01-01T00:00:00Z' }), 40);
  file(root, 'epics/HELD/watchdog.json', '{}', 40);
  for (const e of ['DONE', 'RUN', 'HELD']) utimesSync(path.join(root, 'epics', e, 'state.yaml'), new Date(now - 40 * DAY), new Date(now - 40 * DAY));
  file(root, 'activity/old-session.ndjson', '{}\n', 31);
  file(root, 'activity/live-session.ndjson', '{}\n', 0);
  file(root, 'observe/hooks.json', '{}', 35);
  file(root, 'pipeline_checkpoints/T-1/recovery-1.yaml', checkpoint('DONE', 'T-1'), 40);
  file(root, 'pipeline_checkpoints/T-3/recovery-1.yaml', checkpoint('RUN', 'T-3'), 40);
  file(root, 'friction/2026-01-01-stall-escalation-t-1.md', '# note', 40);
  file(root, 'dispatch-log/2026-01-01.ndjson', '{}\n', 40);
  return root;
}

const REMOVED = [
  'epics/DONE/acks/DONE__T-1__redispatch.ack.json',
  'epics/DONE/agents/T-1-r1.log',
  'epics/DONE/requests/DONE__T-1__redispatch.redispatch.json',
  'epics/DONE/watchdog.json',
  'epics/DONE/watchdog.lock',
  'epics/DONE/watchdog.lock.stale.123.0123abcd',
  'epics/DONE/watchdog.lock.takeover',
  'activity/old-session.ndjson',
  'observe/hooks.json',
  'pipeline_checkpoints/T-1/recovery-1.yaml',
];

describe('prune', () => {
  it('removes old files of finished epics, old activity, read positions and checkpoints; keeps everything else', async () => {
    const root = stateDir();
    const r = await prune(new StatePaths(root), { nowMs: now, olderThanMs: 30 * DAY, olderThan: '30d', isDryRun: false });
    expect(r.removed.map((e) => e.path)).toEqual(REMOVED);
    for (const p of REMOVED) expect(existsSync(path.join(root, p)), p).toBe(false);
    for (const p of [
      'epics/DONE/state.yaml',
      'epics/DONE/agents/T-1-r2.log',
      'epics/DONE/notes.txt',
      'epics/RUN/requests/RUN__T-3__cancel.cancel.json',
      'epics/RUN/acks/RUN__T-3__cancel.ack.json',
      'epics/HELD/watchdog.json',
      'activity/live-session.ndjson',
      'pipeline_checkpoints/T-3/recovery-1.yaml',
      'friction/2026-01-01-stall-escalation-t-1.md',
      'dispatch-log/2026-01-01.ndjson',
    ]) {
      expect(existsSync(path.join(root, p)), p).toBe(true);
    }
    expect(existsSync(path.join(root, 'epics/DONE/requests'))).toBe(false); // emptied folders go too
    expect(existsSync(path.join(root, 'pipeline_checkpoints/T-1'))).toBe(false);
    expect(r.kept_epics).toEqual([
      { epic_id: 'HELD', why: `a watchdog (pid ${process.pid}) is watching it` },
      { epic_id: 'RUN', why: '1 task(s) not finished; its requests may be pending' },
    ]);
    expect(renderPrune(r)).toContain(`removed ${REMOVED.length} file(s), `);
    expect(renderPrune(r)).toContain('  epics/DONE/watchdog.json  (epic DONE: wave complete)\n');
  });

  it('status after prune says the finished epic is over, and suggests no check that would judge nothing', async () => {
    const root = stateDir();
    await prune(new StatePaths(root), { nowMs: now, olderThanMs: 30 * DAY, olderThan: '30d', isDryRun: false });
    const done = await runMain(['status', '--epic-id', 'DONE', '--state-dir', root]);
    expect(done.code).toBe(2);
    expect(done.stderr).toMatch(/its wave is over/);
    expect(done.stderr).toContain('dispatch-watchdog timeline --epic-id DONE');
    expect(done.stderr).not.toContain('--once');
    // An epic still running whose check is missing is told to run one.
    const running = await runMain(['status', '--epic-id', 'RUN', '--state-dir', root]);
    expect(running.stderr).toContain('dispatch-watchdog --epic-id RUN --once');
  });

  it('--dry-run lists the same files and removes none; the CLI says so', async () => {
    const root = stateDir();
    const r = await runMain(['prune', '--state-dir', root, '--dry-run', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).removed.map((e: { path: string }) => e.path)).toEqual(REMOVED);
    for (const p of REMOVED) expect(existsSync(path.join(root, p)), p).toBe(true);
    const text = await runMain(['prune', '--state-dir', root, '--dry-run', '--older-than', '32d']);
    // All but the 31-day-old activity file.
    expect(text.stdout).toMatch(new RegExp(`^would remove ${REMOVED.length - 1} file\\(s\\), .* older than 32d \\(dry run: nothing removed\\)\n`));
    const bad = await runMain(['prune', '--state-dir', root, '--older-than', 'a month']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--older-than: expected a duration (90m, 12h, 30d, 2w), got "a month".');
  });
});

describe('prune judges an epic as the watchdog does', () => {
  it('a finished epic whose replaced row still says in_progress is pruned: the replaced row is not in flight', async () => {
    const root = tempDir('dw-prune-');
    const t0 = Date.parse('2026-04-02T10:00:00Z');
    const clock = new ManualClock(t0);
    const at = (ms: number) => new Date(ms).toISOString();
    writeWave(root, 'E-1', at(t0), [{ task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: at(t0), last_activity_ts: at(t0) }]);
    const run = async () => {
      const s = await startSession(clock, { epicId: 'E-1', stateDir: root, timeout: 30, checkInterval: 5, json: true }, { isNext: true });
      for (let i = 0; i < 100 && !s.isDone(); i++) await s.advance(5000);
      return { code: await s.done, doc: JSON.parse(s.out.join('')) as { requests: { path: string }[] } };
    };
    const asked = await run();
    expect(asked.code).toBe(10);
    // The orchestrator launches t1-r1 as a new row, which finishes; row t1 still says in_progress.
    writeWave(root, 'E-1', at(t0), [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: at(t0), last_activity_ts: at(t0) },
      { task_id: 't1-r1', ticket_id: 'ENG-1', status: 'merged' },
    ]);
    expect((await run()).code).toBe(0);
    const later = Date.now() + 40 * DAY;
    const r = await prune(new StatePaths(root), { nowMs: later, olderThanMs: 30 * DAY, olderThan: '30d', isDryRun: false });
    expect(r.kept_epics).toEqual([]);
    expect(r.removed.map((e) => e.path)).toEqual(expect.arrayContaining(['epics/E-1/watchdog.json', asked.doc.requests[0]!.path]));
    expect(r.removed.find((e) => e.path === 'epics/E-1/watchdog.json')?.why).toBe('epic E-1: wave complete');
    expect(existsSync(path.join(root, 'epics/E-1/state.yaml'))).toBe(true);
  });

  it('keeps what a kept friction note links to: the checkpoints of an escalated ticket stay with its note', async () => {
    const root = stateDir();
    file(root, 'pipeline_checkpoints/T-2/recovery-1.yaml', checkpoint('DONE', 'T-2'), 40);
    file(root, 'pipeline_checkpoints/T-2/recovery-2.yaml', checkpoint('DONE', 'T-2'), 40);
    file(
      root,
      'friction/2026-01-01-stall-escalation-t-2.md',
      [
        '# Agent Stall Escalation: T-2',
        '',
        '## Evidence',
        '- Checkpoint: [pipeline_checkpoints/T-2/recovery-1.yaml](../pipeline_checkpoints/T-2/recovery-1.yaml)',
        `- Checkpoint: [${root}/pipeline_checkpoints/T-2/recovery-2.yaml](${root}/pipeline_checkpoints/T-2/recovery-2.yaml)`,
        '- Tracker: [T-2](https://linear.app/x/issue/T-2)',
        '',
      ].join('\n'),
      40,
    );
    const r = await prune(new StatePaths(root), { nowMs: now, olderThanMs: 30 * DAY, olderThan: '30d', isDryRun: false });
    expect(r.removed.map((e) => e.path)).toEqual(REMOVED);
    expect(r.kept_linked).toEqual(['pipeline_checkpoints/T-2/recovery-1.yaml', 'pipeline_checkpoints/T-2/recovery-2.yaml']);
    for (const n of [1, 2]) expect(existsSync(path.join(root, `pipeline_checkpoints/T-2/recovery-${n}.yaml`))).toBe(true);
    expect(renderPrune(r)).toContain('kept pipeline_checkpoints/T-2/recovery-1.yaml: a friction note links to it\n');
  });
});
