// Start-up from the derived summary of the dispatch log (issue 12, DESIGN §12) gives exactly the
// history a fold of the whole log gives: redispatch counts, actions and their outcomes (so
// orphans and escalations), reported orphans, last logged verdicts, corrupt-line reports. The
// property is shown on a generated 20,000-event log (the bench checks the same at 1,000,000).
import { appendFileSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateLog } from '../../bench/gen-log.js';
import { foldHistory, type History } from '../../src/core/history.js';
import { readDispatchLog } from '../../src/journal/dispatch-log.js';
import { loadHistory } from '../../src/journal/log-summary.js';
import { StatePaths } from '../../src/files/paths.js';
import { StallRefMap } from '../../src/journal/ticket-refs.js';
import { comparableHistory } from '../../bench/history-compare.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';

async function wholeFold(paths: StatePaths) {
  const all = await readDispatchLog(paths);
  return { history: foldHistory(all.events, EPIC), diagnostics: all.diagnostics };
}

async function expectSame(paths: StatePaths, from: 'summary' | 'rebuilt', isWritable = true) {
  const full = await wholeFold(paths);
  const got = await loadHistory(paths, EPIC, { isWritable });
  expect(got.stats.from).toBe(from);
  // Other epics' stalls and redispatches are references into the log, read back on first use
  // (journal/ticket-refs.ts): compare them as plain Maps.
  const plain = (h: History) => ({
    ...h,
    stalls: new Map(h.stalls),
    redispatchCount: new Map(h.redispatchCount),
    lastRecoveryMode: new Map(h.lastRecoveryMode),
  });
  expect(plain(got.history)).toEqual(plain(full.history));
  // Same order too (a Map's order is its insertion order, which the planner may see).
  expect(comparableHistory(got.history)).toEqual(comparableHistory(full.history));
  expect(got.diagnosticCount).toBe(full.diagnostics.length);
  expect(got.diagnostics.slice(0, 5)).toEqual(full.diagnostics.slice(0, 5));
  return { got, full };
}

const day = (d: string) => `${d}.ndjson`;
const line = (ts: string, extra: Record<string, unknown>) => JSON.stringify({ timestamp_utc: ts, epic_id: EPIC, run_id: 'late', ...extra });

describe('start-up from the dispatch-log summary', () => {
  it('gives the same history as folding the whole log, reading only what follows the summary', async () => {
    const dir = tempDir();
    const paths = new StatePaths(dir);
    const { names, bytes } = generateLog(dir, { events: 20_000, days: 10, junkEvery: 1500 });

    const first = await expectSame(paths, 'rebuilt');
    expect(first.got.stats.summaryWritten).toBe(true);
    expect(existsSync(paths.historySummary(EPIC))).toBe(true);
    // The generated log exercises every decision the fold feeds.
    const h = first.full.history;
    expect([...h.redispatchCount.values()].some((n) => n > 1)).toBe(true);
    expect(h.reportedOrphans.size).toBeGreaterThan(0);
    expect(h.trackerPending.size).toBeGreaterThan(0);
    expect([...h.actions.values()].some((r) => !r.outcome)).toBe(true);
    expect(first.full.diagnostics.length).toBeGreaterThan(5);

    // Appends to the last day (one torn, to be completed later) and two new days.
    const last = path.join(dir, 'dispatch-log', names.at(-1)!);
    appendFileSync(
      last,
      line('2026-01-10T23:00:00.000Z', {
        event: 'redispatch',
        ticket_id: 'P-1',
        task_id: 't1-0',
        agent_id: 'a1',
        key: 'E-1:t1-0:redispatch',
        redispatch_attempt: 1,
        recovery_task_id: 'late-1',
      }) +
        '\n' +
        '{"timestamp_utc":"2026-01-10T23:30:00.000Z","event":"heal',
    );
    const more = generateLog(path.join(dir, 'more'), { events: 600, days: 2, startMs: Date.parse('2026-01-11T00:00:00Z'), seed: 7 });
    for (const n of more.names) writeFileSync(path.join(dir, 'dispatch-log', n), readFileSync(path.join(dir, 'more', 'dispatch-log', n), 'utf8'));
    const second = await expectSame(paths, 'summary');
    expect(second.got.stats.bytesRead).toBeLessThan(more.bytes + 1000);
    expect(second.got.stats.bytesRead).toBeLessThan(bytes / 10);

    // The torn line completes; the next start reads it from where it began.
    appendFileSync(last, 'thy","ticket_id":"P-2","task_id":"t2-0","agent_id":"a2","idle_seconds":1,"epic_id":"E-1","run_id":"late"}\n');
    await expectSame(paths, 'summary');
  });

  it('rebuilds when the summary no longer describes a prefix of the log', async () => {
    const dir = tempDir();
    const paths = new StatePaths(dir);
    const { names } = generateLog(dir, { events: 3000, days: 5, junkEvery: 400 });
    await expectSame(paths, 'rebuilt');
    await expectSame(paths, 'summary');

    // An earlier day grew: its new lines must fold before the later days.
    appendFileSync(
      path.join(dir, 'dispatch-log', names[1]!),
      line('2026-01-02T23:59:00.000Z', {
        event: 'redispatch',
        ticket_id: 'P-9',
        task_id: 't9-1',
        agent_id: 'a9',
        key: 'E-1:t9-1:redispatch',
        redispatch_attempt: 1,
        recovery_task_id: 'x-9',
      }) + '\n',
    );
    await expectSame(paths, 'rebuilt');
    // A day that sorts before the last covered one appeared.
    writeFileSync(
      path.join(dir, 'dispatch-log', day('2025-12-31')),
      line('2025-12-31T10:00:00.000Z', { event: 'recovery_summary', done: [], finished: [], orphans: ['E-1:t1:cancel'], orphan_count: 1 }) + '\n',
    );
    await expectSame(paths, 'rebuilt');
    // The last day was replaced (a new inode), even by a longer file.
    const lastFile = path.join(dir, 'dispatch-log', names.at(-1)!);
    const text = readFileSync(lastFile, 'utf8');
    const tmp = lastFile + '.tmp';
    writeFileSync(tmp, text.replace(/"healthy"/, '"looping_detected","reason":"x"') + '\n');
    renameSync(tmp, lastFile);
    await expectSame(paths, 'rebuilt');
    // A corrupt or foreign summary.
    writeFileSync(paths.historySummary(EPIC), '{"version":1,"epic_id":"E-1","covers":[');
    await expectSame(paths, 'rebuilt');
    writeFileSync(paths.historySummary(EPIC), JSON.stringify({ version: 1, epic_id: 'E-2', covers: [] }));
    await expectSame(paths, 'rebuilt');
    // A per-ticket text with a line that is not "ticket<TAB>refs" (or not newline-terminated): not trusted.
    const good = JSON.parse(readFileSync(paths.historySummary(EPIC), 'utf8')) as { history: { stalls: string; redispatches: string } };
    expect(good.history.stalls).toMatch(/^P-\d+\t\d+,\d+,\d+/);
    for (const bad of [
      { stalls: good.history.stalls.replace(/\t\d+,/, '\t-1,') },
      { stalls: good.history.stalls.slice(0, -1) },
      { redispatches: good.history.redispatches.replace(/\t(fresh|resume)\t/, '\tsometimes\t') },
    ]) {
      writeFileSync(paths.historySummary(EPIC), JSON.stringify({ ...good, history: { ...good.history, ...bad } }));
      await expectSame(paths, 'rebuilt');
    }
  });

  it('a read-only start never writes the summary', async () => {
    const dir = tempDir();
    const paths = new StatePaths(dir);
    generateLog(dir, { events: 500, days: 2 });
    const got = await loadHistory(paths, EPIC, { isWritable: false });
    expect(got.stats).toMatchObject({ from: 'rebuilt', summaryWritten: false });
    expect(existsSync(paths.historySummary(EPIC))).toBe(false);
    expect(statSync(path.join(dir, 'dispatch-log')).isDirectory()).toBe(true);
  });
});

describe('StallRefMap', () => {
  it('reads a stall back from its line on first use, keeps the written order, and behaves as a Map', () => {
    const dir = tempDir();
    const stall = (ticket: string, n: number) =>
      JSON.stringify({
        timestamp_utc: `2026-01-01T00:00:0${n}.000Z`,
        event: 'stall_detected',
        epic_id: 'E-2',
        run_id: 'r',
        ticket_id: ticket,
        task_id: `t${n}`,
        agent_id: `a${n}`,
        stall_reason: 'inactivity',
        idle_seconds: 700,
        bash_timeout_exemption: false,
        redispatch_attempt: 0,
        max_redispatches: 2,
        action_taken: 'redispatch',
      });
    const lines = [stall('P-1', 1), stall('P-2', 2), stall('P-1', 3)];
    writeFileSync(path.join(dir, '2026-01-01.ndjson'), lines.join('\n') + '\n');
    const at = (i: number): [number, number, number] => [0, lines.slice(0, i).join('\n').length + (i > 0 ? 1 : 0), lines[i]!.length];
    const text = (r: [number, number, number]) => r.join(',');
    // A summary's text; P-3's reference no longer reads back as its stall (the file changed): left out.
    const m = new StallRefMap(dir, () => ['2026-01-01.ndjson'], `P-1\t${text(at(0))},${text(at(2))}\nP-3\t${text(at(1))}\n`);
    m.addRef('P-2', ...at(1));
    expect([...m.keys()]).toEqual(['P-1', 'P-3', 'P-2']);
    expect(m.rawText()).toEqual({ stalls: `P-1\t${text(at(0))},${text(at(2))}\nP-3\t${text(at(1))}\nP-2\t${text(at(1))}\n`, stall_events: [] });
    const p1 = m.get('P-1')!;
    expect(p1.map((e) => e.task_id)).toEqual(['t1', 't3']);
    p1.push({ ...p1[0]!, task_id: 't9' });
    expect(m.get('P-1')!.map((e) => e.task_id)).toEqual(['t1', 't3', 't9']);
    expect(m.get('P-3')).toEqual([]);
    expect(m.get('zz')).toBeUndefined();
    // Lines read back keep their reference; an event folded from no file is kept whole (P-3 read back empty: no line).
    expect(m.rawText()).toEqual({ stalls: `P-1\t*\nP-2\t${text(at(1))}\n`, stall_events: [['P-1', [at(0), at(2), { ...p1[0]!, task_id: 't9' }]]] });
    // That text read back gives the same map.
    const again = new StallRefMap(dir, () => ['2026-01-01.ndjson'], m.rawText().stalls, m.rawText().stall_events);
    expect([...again.keys()]).toEqual(['P-1', 'P-2']);
    expect(again.get('P-1')!.map((e) => e.task_id)).toEqual(['t1', 't3', 't9']);
    expect(new Map(m).get('P-2')!.map((e) => e.task_id)).toEqual(['t2']);
  });
});
