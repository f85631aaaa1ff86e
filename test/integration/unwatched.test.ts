// No silent unwatched agent (issue 21 item 1): a row the watchdog cannot judge is said on stderr,
// with a did-you-mean for a near-miss status, and --once does not exit 0 ("no stall") for it.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/in-process-cli.js';
import { startWatch } from '../helpers/watch-harness.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const recent = () => new Date(Date.now() - 5_000).toISOString();

describe('a row the watchdog cannot judge', () => {
  it("a typo'd status: stderr names it with a did-you-mean, and --once exits 4", async () => {
    const dir = tempDir('dw-unwatched-');
    writeWave(dir, 'E-1', recent(), [
      { task_id: 't1', ticket_id: 'P-1', status: 'in-progress', last_activity_ts: recent() },
      { task_id: 't2', ticket_id: 'P-2', status: 'in_progress', last_activity_ts: recent() },
    ]);
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--action', 'report']);
    expect(r.stderr).toBe(
      'dispatch-watchdog: warning: t1 (P-1) cannot be judged: status "in-progress" is not one the watchdog knows (did you mean "in_progress"? expected in_progress, running, dispatched, blocked or a terminal status): this agent is NOT watched\n',
    );
    expect(r.code).toBe(4);
  });

  it('a wave whose every row is unknown is not "all good" either', async () => {
    const dir = tempDir('dw-unwatched-');
    writeWave(dir, 'E-1', recent(), [
      { task_id: 't1', ticket_id: 'P-1', status: 'runing' },
      { task_id: 't2', ticket_id: 'P-2', status: 'wip' },
    ]);
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--action', 'report']);
    expect(r.code).toBe(4);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(2);
    expect(r.stderr).toContain('status "wip" is not one the watchdog knows (expected');
  });

  it('a stall still exits 3 when another row cannot be judged, and the unjudged row is still said', async () => {
    const dir = tempDir('dw-unwatched-');
    const old = new Date(Date.now() - 600_000).toISOString();
    writeWave(dir, 'E-1', old, [
      { task_id: 't1', ticket_id: 'P-1', status: 'in_progres', last_activity_ts: recent() },
      { task_id: 't2', ticket_id: 'P-2', status: 'in_progress', last_activity_ts: old },
    ]);
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--action', 'report']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('t1 (P-1) cannot be judged');
  });

  it('a healthy wave exits 0 with nothing on stderr', async () => {
    const dir = tempDir('dw-unwatched-');
    writeWave(dir, 'E-1', recent(), [{ task_id: 't1', ticket_id: 'P-1', status: 'running', last_activity_ts: recent() }]);
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--action', 'report']);
    expect([r.code, r.stderr]).toEqual([0, '']);
  });

  it('the loop says it on stderr once, when the row becomes unjudgeable, not at every check', async () => {
    const dir = tempDir('dw-unwatched-');
    const t0 = Date.parse('2026-04-02T10:00:00Z');
    writeWave(dir, 'E-1', new Date(t0).toISOString(), [
      { task_id: 't1', ticket_id: 'P-1', status: 'in-progress', last_activity_ts: new Date(t0).toISOString() },
    ]);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', checkInterval: 30 }, t0 + 1000);
    await h.advance(30_000);
    await h.advance(30_000);
    h.stop();
    expect(await h.done).toBe(0);
    expect(h.err.filter((l) => l.includes('cannot be judged'))).toEqual([
      'dispatch-watchdog: warning: t1 (P-1) cannot be judged: status "in-progress" is not one the watchdog knows (did you mean "in_progress"? expected in_progress, running, dispatched, blocked or a terminal status): this agent is NOT watched\n',
    ]);
  });
});

describe('--once exits with the code its action implies', () => {
  it('a loop acted on (looping.act) is exit 3, like a stall: the agent was stopped and replaced', async () => {
    const dir = tempDir('dw-unwatched-');
    const claude = tempDir('dw-unwatched-claude-');
    const transcript = path.join(claude, 'loop.jsonl');
    const now = Date.now();
    const at = (s: number) => new Date(now - 60_000 + s * 1000).toISOString();
    const call = (i: number) =>
      JSON.stringify({
        type: 'assistant',
        timestamp: at(i * 2),
        sessionId: 's1',
        uuid: `a${i}`,
        message: { role: 'assistant', content: [{ type: 'tool_use', id: `tu${i}`, name: 'Bash', input: { command: 'npm test' } }] },
      });
    const result = (i: number) =>
      JSON.stringify({
        type: 'user',
        timestamp: at(i * 2 + 1),
        sessionId: 's1',
        uuid: `u${i}`,
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu${i}`, content: 'FAIL' }] },
      });
    writeFileSync(transcript, [0, 1, 2, 3, 4].flatMap((i) => [call(i), result(i)]).join('\n') + '\n');
    writeWave(dir, 'E-1', at(0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: at(0), transcript_path: transcript }]);
    writeFileSync(path.join(dir, 'watchdog.config.yaml'), 'looping:\n  act: true\n');
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once']);
    expect(readEvents(dir).map((e) => e.event)).toEqual(expect.arrayContaining(['looping_detected', 'action_started', 'redispatch']));
    expect(r.code).toBe(3);
  });
});

describe('an earlier epic-team wave left open', () => {
  it('is judged with the current one: its agent still in progress stalls (exit 3), the wave is not over', async () => {
    const dir = tempDir('dw-unwatched-');
    const old = new Date(Date.now() - 3_600_000).toISOString();
    mkdirSync(path.join(dir, 'epics', 'E-1'), { recursive: true });
    const file = path.join(dir, 'epics', 'E-1', 'state.yaml');
    writeFileSync(
      file,
      [
        'waves:',
        `  - { wave_id: 0, dispatched_at: "${old}", tasks: [ { task_id: w0, ticket_id: P-0, status: in_progress, last_activity_ts: "${old}" }, { task_id: w0b, ticket_id: P-9, status: merged } ] }`,
        `  - { wave_id: 1, dispatched_at: "${recent()}", tasks: [ { task_id: w1, ticket_id: P-1, status: running, last_activity_ts: "${recent()}" } ] }`,
      ].join('\n') + '\n',
    );
    utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--action', 'report', '--json']);
    const doc = JSON.parse(r.stdout);
    expect(doc.tasks.map((t: { task_id: string; verdict: string }) => [t.task_id, t.verdict])).toEqual([
      ['w0', 'stalled'],
      ['w1', 'healthy'],
    ]);
    expect(r.code).toBe(3);
  });
});
