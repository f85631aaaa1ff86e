import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DispatchLog, readDispatchLog } from '../../src/journal/dispatch-log.js';
import { StatePaths } from '../../src/files/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

const line = (o: object) => JSON.stringify({ timestamp_utc: '2026-04-02T10:00:00Z', epic_id: 'E-1', run_id: 'r', ...o }) + '\n';
const healthy = (task: string) => line({ event: 'healthy', ticket_id: 'P-1', task_id: task, agent_id: task, idle_seconds: 1 });

describe('dispatch log', () => {
  it('appends one complete line per event, in the UTC day file, with the envelope', async () => {
    const dir = tempDir();
    const log = new DispatchLog(new StatePaths(dir), 'E-1', 'run-1', () => Date.parse('2026-04-02T23:59:59.500Z'));
    await log.append({ event: 'healthy', ticket_id: 'P-1', task_id: 't1', agent_id: 't1', idle_seconds: 3 });
    const r = await readDispatchLog(new StatePaths(dir));
    expect(r.events).toEqual([
      {
        timestamp_utc: '2026-04-02T23:59:59.500Z',
        event: 'healthy',
        epic_id: 'E-1',
        run_id: 'run-1',
        ticket_id: 'P-1',
        task_id: 't1',
        agent_id: 't1',
        idle_seconds: 3,
      },
    ]);
  });

  it('reads every day in order, skips a torn last line, and reports a corrupt line with file and line number', async () => {
    const dir = tempDir();
    const logDir = path.join(dir, 'dispatch-log');
    mkdirSync(logDir);
    writeFileSync(path.join(logDir, '2026-04-01.ndjson'), healthy('a') + '{"event": "healthy", oops\n' + healthy('b'));
    writeFileSync(path.join(logDir, '2026-04-02.ndjson'), healthy('c'));
    appendFileSync(path.join(logDir, '2026-04-02.ndjson'), '{"timestamp_utc":"2026-04-02T10:00:00Z","event":"hea'); // being written
    writeFileSync(path.join(logDir, 'notes.txt'), 'not a log');
    const r = await readDispatchLog(new StatePaths(dir));
    expect(r.events.map((e) => (e as { task_id: string }).task_id)).toEqual(['a', 'b', 'c']);
    expect(r.diagnostics).toEqual([{ file: path.join(logDir, '2026-04-01.ndjson'), line: 2, message: 'not valid JSON (corrupt line); skipped' }]);
  });

  it('skips lines written by other tools, and reports a known event with a wrong field', async () => {
    const dir = tempDir();
    const logDir = path.join(dir, 'dispatch-log');
    mkdirSync(logDir);
    writeFileSync(
      path.join(logDir, '2026-04-01.ndjson'),
      line({ event: 'pr_opened', url: 'x' }) + line({ event: 'healthy', ticket_id: 'P-1', task_id: 't', agent_id: 't', idle_seconds: 'soon' }),
    );
    const r = await readDispatchLog(new StatePaths(dir));
    expect(r.events).toEqual([]);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]!.message).toBe('event "healthy": idle_seconds: expected number, got "soon"; skipped');
  });

  it('an empty or missing log is no history', async () => {
    expect(await readDispatchLog(new StatePaths(tempDir()))).toEqual({ events: [], diagnostics: [] });
  });
});

describe('dispatch log: hostile lines', () => {
  it('a line whose ids would steer a path out of the state dir is skipped and reported', async () => {
    const dir = tempDir();
    const logDir = path.join(dir, 'dispatch-log');
    mkdirSync(logDir);
    writeFileSync(
      path.join(logDir, '2026-04-01.ndjson'),
      line({ event: 'action_started', ticket_id: '../../etc', task_id: 't', agent_id: 't', key: 'k', action: 'redispatch' }),
    );
    const r = await readDispatchLog(new StatePaths(dir));
    expect(r.events).toEqual([]);
    expect(r.diagnostics[0]!.message).toContain('event "action_started": ticket_id:');
  });
});
