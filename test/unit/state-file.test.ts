import { describe, expect, it } from 'vitest';
import { parseStateFile } from '../../src/contracts/state-file.js';
import { parseConfig } from '../../src/contracts/config.js';
import type { ParseResult } from '../../src/contracts/parse-yaml.js';

const T = '2026-04-02T10:00:00Z';
const ms = Date.parse(T);

/** Parse and return the user-facing error text (or fail the test). */
function errorOf(text: string, parse: (t: string, f: string) => ParseResult<unknown> = parseStateFile): string {
  const r = parse(text, 'state.yaml');
  if (r.ok) throw new Error('expected an error');
  return r.error.describe();
}

describe('state file: the three accepted shapes', () => {
  it('A: current_wave, with the wave dispatch time as fallback', () => {
    const r = parseStateFile(`current_wave:\n  wave_id: 3\n  dispatched_at: "${T}"\n  tasks:\n    - ticket_id: P-1\n      status: in_progress\n`, 'state.yaml');
    expect(r).toMatchObject({
      ok: true,
      value: { shape: 'current_wave', waveId: '3', tasks: [{ taskId: 'P-1', ticketId: 'P-1', dispatchedAtMs: ms, statusClass: 'in_flight' }] },
    });
  });

  it('B: wave_tasks, with aliases id and last_activity', () => {
    const r = parseStateFile(`wave_tasks:\n  - id: t-9\n    ticket_id: P-9\n    status: running\n    last_activity: "${T}"\n`, 'state.yaml');
    expect(r).toMatchObject({ ok: true, value: { shape: 'wave_tasks', tasks: [{ taskId: 't-9', lastActivityMs: ms }] } });
  });

  it('C: waves, the current wave is the last without completed_at', () => {
    const text = [
      'waves:',
      `  - { wave_id: 0, dispatched_at: "${T}", completed_at: "${T}", tasks: [ { ticket_id: OLD-1, status: merged } ] }`,
      `  - { wave_id: 1, dispatched_at: "${T}", tasks: [ { ticket_id: NEW-1, status: dispatched } ] }`,
    ].join('\n');
    const r = parseStateFile(text, 'state.yaml');
    expect(r).toMatchObject({ ok: true, value: { shape: 'waves', waveId: '1', tasks: [{ ticketId: 'NEW-1' }] } });
  });

  it('C: an earlier wave left open keeps its unfinished rows in the wave judged (not silently ignored)', () => {
    const T2 = '2026-04-02T11:00:00Z';
    const text = [
      'waves:',
      `  - { wave_id: 0, dispatched_at: "${T}", tasks: [ { ticket_id: OLD-1, status: in_progress }, { ticket_id: OLD-2, status: merged }, { ticket_id: BOTH-1, status: in_progress } ] }`,
      `  - { wave_id: 1, dispatched_at: "${T2}", tasks: [ { ticket_id: NEW-1, status: dispatched }, { ticket_id: BOTH-1, status: running } ] }`,
    ].join('\n');
    const r = parseStateFile(text, 'state.yaml');
    expect(r).toMatchObject({
      ok: true,
      value: {
        shape: 'waves',
        waveId: '1',
        tasks: [
          { ticketId: 'OLD-1', dispatchedAtMs: ms },
          { ticketId: 'NEW-1', dispatchedAtMs: Date.parse(T2) },
          { ticketId: 'BOTH-1', status: 'running' },
        ],
      },
    });
    if (r.ok) expect(r.value.tasks).toHaveLength(3);
  });

  it('C: every wave completed means nothing is in flight', () => {
    const r = parseStateFile(`waves:\n  - { wave_id: 0, completed_at: "${T}", tasks: [ { ticket_id: A-1 } ] }\n`, 'state.yaml');
    expect(r).toMatchObject({ ok: true, value: { tasks: [] } });
  });

  it('keeps unknown keys and accepts nulls as absent', () => {
    const r = parseStateFile(`wave_tasks:\n  - ticket_id: P-1\n    pr_url: null\n    custom: { a: 1 }\n    last_activity_ts: null\n`, 'state.yaml');
    expect(r.ok).toBe(true);
  });

  it.each([
    ['in_progress', 'in_flight'],
    ['running', 'in_flight'],
    ['dispatched', 'in_flight'],
    [undefined, 'in_flight'],
    ['completed', 'terminal'],
    ['merged', 'terminal'],
    ['failed', 'terminal'],
    ['cancelled', 'terminal'],
    ['timeout', 'terminal'],
    ['blocked', 'blocked'],
    ['stalled', 'unknown'],
  ])('status %s is %s', (status, cls) => {
    const r = parseStateFile(`wave_tasks:\n  - ticket_id: P-1\n${status ? `    status: ${status}\n` : ''}`, 'state.yaml');
    expect(r.ok && r.value.tasks[0]!.statusClass).toBe(cls);
  });
});

describe('state file: bad input names file, line, column and field', () => {
  it('malformed YAML', () => {
    expect(errorOf('current_wave:\n  tasks:\n    - ticket_id: P-1\n   status: x\n  bad: [\n')).toMatchInlineSnapshot(
      `"state.yaml:4:1: invalid YAML: All mapping items must start at the same column. Fix the YAML syntax at that position; if an orchestrator is writing the file right now, the next check reads it again."`,
    );
  });

  it('a wrong type', () => {
    expect(errorOf(`current_wave:\n  tasks:\n    - ticket_id: P-1\n      last_tool_timeout_ms: "ten minutes"\n`)).toMatchInlineSnapshot(
      `"state.yaml:4:29 current_wave.tasks[0].last_tool_timeout_ms: expected number, got "ten minutes". Fix that field in the state file (docs/state-files.md lists every field and its type)."`,
    );
  });

  it('a timestamp that is not ISO-8601', () => {
    expect(errorOf(`current_wave:\n  dispatched_at: yesterday\n  tasks: []\n`)).toMatchInlineSnapshot(
      `"state.yaml:2:18 current_wave.dispatched_at: expected an ISO-8601 timestamp with a zone, e.g. "2026-04-02T10:00:00Z", got "yesterday". Fix that field in the state file (docs/state-files.md lists every field and its type)."`,
    );
  });

  it('a missing ticket_id', () => {
    expect(errorOf(`wave_tasks:\n  - task_id: t1\n`)).toMatchInlineSnapshot(
      `"state.yaml:2:5 wave_tasks[0].ticket_id: expected string, got nothing. Fix that field in the state file (docs/state-files.md lists every field and its type)."`,
    );
  });

  it('an id that would escape the state dir', () => {
    expect(errorOf(`wave_tasks:\n  - ticket_id: ../../etc/passwd\n`)).toMatchInlineSnapshot(
      `"state.yaml:2:16 wave_tasks[0].ticket_id: expected an id of 1-128 letters, digits, ".", "_", "@" or "-", starting with a letter or digit, got "../../etc/passwd". Fix that field in the state file (docs/state-files.md lists every field and its type)."`,
    );
  });

  it('no wave at all', () => {
    expect(errorOf(`epic_id: E-1\n`)).toMatchInlineSnapshot(
      `"state.yaml: no wave found: expected a \`current_wave\`, \`wave_tasks\` or \`waves\` key. Write the dispatched tasks under one of those keys (docs/state-files.md shows each shape)."`,
    );
  });

  it('a duplicated task id', () => {
    expect(errorOf(`wave_tasks:\n  - { ticket_id: P-1, task_id: t1 }\n  - { ticket_id: P-2, task_id: t1 }\n`)).toMatchInlineSnapshot(
      `"state.yaml: task id "t1" appears twice in the wave (task 2). Give every dispatched task its own task_id (a replacement is usually "<id>-r1")."`,
    );
  });

  it('YAML aliases are refused (no alias bombs)', () => {
    expect(errorOf(`a: &x [1]\nb: *x\nwave_tasks: []\n`)).toMatchInlineSnapshot(
      `"state.yaml: YAML aliases (*name) are not allowed. Write the values out in full instead of using anchors and aliases."`,
    );
  });
});

describe('config file', () => {
  it('a key that does not exist names the key and where it is', () => {
    expect(errorOf('exemptions:\n  bash_long_timout_ms: 1\n', parseConfig)).toMatchInlineSnapshot(
      `"state.yaml:2:3 exemptions.bash_long_timout_ms: unknown key "bash_long_timout_ms". Remove that key or fix its spelling (docs/state-files.md lists every key)."`,
    );
  });

  it('a wrong value names the field', () => {
    expect(errorOf('action: nuke\n', parseConfig)).toMatchInlineSnapshot(
      `"state.yaml:1:9 action: expected one of "report"|"cancel"|"redispatch", got "nuke". Fix that key in the config file (docs/state-files.md lists every key)."`,
    );
  });

  it('an empty file is an empty config', () => {
    expect(parseConfig('', 'c.yaml')).toEqual({ ok: true, value: {} });
  });
});
