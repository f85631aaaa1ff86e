// Start-up's byte-level prefilter (journal/log-prefilter.ts) and the per-ticket references it keeps
// (journal/ticket-refs.ts) give the history a whole fold of the log gives, on a log that looks like
// real waves (60 epics, the key order DispatchLog writes): another epic's line is skipped only when
// it cannot change this epic's history, and another epic's stall or redispatch is checked when read
// back, so an invalid one counts no more than in a fold. What differs, by design: another epic's
// skipped or deferred lines are not checked for corruption here (their own epic's watchdog is).
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateLog } from '../../bench/gen-log.js';
import { generateWavesLog, wavesEpic } from '../../bench/gen-waves.js';
import { EVENT_NAMES, type DispatchEvent } from '../../src/contracts/events.js';
import { CROSS_EPIC_EVENTS, foldHistory } from '../../src/core/history.js';
import { StatePaths } from '../../src/files/paths.js';
import { readDispatchLog } from '../../src/journal/dispatch-log.js';
import { CROSS_REF, LinePrefilter, PARSE, SKIP } from '../../src/journal/log-prefilter.js';
import { loadHistory } from '../../src/journal/log-summary.js';
import { MAX_SCAN_WORKERS } from '../../src/journal/log-scan-start.js';
import { comparableHistory } from '../../bench/history-compare.js';
import { tempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/cli.js';

const json = comparableHistory;

describe('LinePrefilter', () => {
  const f = new LinePrefilter('E-1');
  const line = (s: string) => {
    const b = Buffer.from(`xx${s}yy`);
    return f.classify(b, 2, b.length - 2);
  };
  const ts = '2026-01-01T00:00:00.000Z';
  const w = (event: string, epic: string, rest = ',"ticket_id":"P-1","task_id":"t1"}') =>
    `{"timestamp_utc":"${ts}","event":"${event}","epic_id":"${epic}","run_id":"r1"${rest}`;

  it("skips another epic's line of an event that cannot change this epic's history", () => {
    expect(line(w('healthy', 'E-2'))).toBe(SKIP);
    expect(line(w('action_started', 'E-11'))).toBe(SKIP);
    expect(line(w('a_newer_event', 'E-2'))).toBe(SKIP);
  });

  it("keeps another epic's stall or redispatch by reference, with its ticket", () => {
    expect(line(w('stall_detected', 'E-2'))).toBe(CROSS_REF);
    expect(f.isStall).toBe(true);
    expect(line(w('redispatch', 'E-2', ',"ticket_id":"PROJ-ü9","x":1}'))).toBe(CROSS_REF);
    expect(f.isStall).toBe(false);
    const b = Buffer.from(w('redispatch', 'E-2', ',"ticket_id":"PROJ-ü9","x":1}'));
    f.classify(b, 0, b.length);
    expect(b.toString('utf8', f.ticketStart, f.ticketEnd)).toBe('PROJ-ü9');
  });

  it("parses this epic's lines and every line it cannot read from its bytes alone", () => {
    expect(line(w('healthy', 'E-1'))).toBe(PARSE);
    expect(line(w('healthy', 'E-1', '}'))).toBe(PARSE);
    // A torn line (no closing brace), escapes where the fields are read, another key order.
    expect(line(w('healthy', 'E-2', ',"ticket_id":"P-1'))).toBe(PARSE);
    expect(line(w('healthy', 'E\\u002d1'))).toBe(PARSE);
    expect(line(w('heal\\"thy', 'E-2'))).toBe(PARSE);
    expect(line(`{"timestamp_utc":"${ts}","epic_id":"E-2","run_id":"r1","event":"healthy"}`)).toBe(PARSE);
    expect(line(`{"timestamp_utc":"2026-01-01T00:00:00Z","event":"healthy","epic_id":"E-2","run_id":"r1"}`)).toBe(PARSE);
    // A stall or redispatch whose ticket is not where DispatchLog writes it.
    expect(line(w('stall_detected', 'E-2', ',"task_id":"t1","ticket_id":"P-1"}'))).toBe(PARSE);
    expect(line(w('redispatch', 'E-2', ',"ticket_id":"P\\"1"}'))).toBe(PARSE);
    expect(line('{"event":"healthy"}')).toBe(PARSE);
    expect(line('')).toBe(PARSE);
  });
});

describe('CROSS_EPIC_EVENTS', () => {
  it('names every event of another epic that changes the history', async () => {
    const dir = tempDir();
    generateLog(dir, { events: 3000, days: 3, junkEvery: 0 });
    const events = (await readDispatchLog(new StatePaths(dir))).events;
    const base = json(foldHistory(events, 'E-1'));
    const acted = events.find((e) => e.event === 'action_started' && e.epic_id === 'E-1') as DispatchEvent & {
      key: string;
      task_id: string;
      ticket_id: string;
    };
    for (const name of EVENT_NAMES) {
      // Another epic's line with this epic's ids and action key in every field a fold might read.
      const other = {
        ...acted,
        event: name,
        epic_id: 'E-2',
        key: acted.key,
        reason: 'x',
        kind: 'human_wait',
        orphans: [acted.key],
        done: [],
        finished: [],
        orphan_count: 1,
        requests: [acted.key],
        unanswered: [],
        escalations: [],
        task_ids: [acted.task_id],
        stalled: 1,
        in_flight: 1,
        held_seconds: 1,
        how: 'row',
        recovery_task_id: 'x-r1',
        redispatch_attempt: 1,
        stall_reason: 'inactivity',
        idle_seconds: 1,
        bash_timeout_exemption: false,
        max_redispatches: 2,
        action_taken: 'report',
        attempt_count: 1,
        friction_path: 'f.md',
        tracker: 'failed',
      } as unknown as DispatchEvent;
      const changed = JSON.stringify(json(foldHistory([...events, other], 'E-1'))) !== JSON.stringify(base);
      expect({ name, changed }).toEqual({ name, changed: CROSS_EPIC_EVENTS.has(name) });
    }
  });
});

describe('start-up over a log of real-looking waves', () => {
  it('gives the history of a whole fold, rebuilt and resumed, with invalid lines of other epics counted as a fold counts them', async () => {
    const dir = tempDir();
    const paths = new StatePaths(dir);
    const epic = wavesEpic(7);
    const { names } = generateWavesLog(dir, { events: 30_000, days: 6, junkEvery: 2000 });
    const whole = async () => {
      const all = await readDispatchLog(paths);
      return { history: foldHistory(all.events, epic), diagnostics: all.diagnostics };
    };
    const expectSame = async (from: 'summary' | 'rebuilt') => {
      const full = await whole();
      const got = await loadHistory(paths, epic, { isWritable: true });
      expect(got.stats.from).toBe(from);
      expect(json(got.history)).toEqual(json(full.history));
      return { got, full };
    };
    const first = await expectSame('rebuilt');
    // The waves share tickets across epics: other epics' stalls and redispatches reach this epic's history.
    const h = first.full.history;
    const own = new Set([...h.actions.values()].map((r) => r.started.ticket_id));
    expect([...h.redispatchCount.keys()].filter((t) => !own.has(t)).length).toBeGreaterThan(100);
    expect([...h.stalls.values()].some((l) => l.some((e) => e.epic_id !== epic))).toBe(true);
    // The torn and corrupt lines are reported; another tool's line is not.
    expect(first.got.diagnosticCount).toBe(first.full.diagnostics.length);
    expect(first.got.diagnostics.slice(0, 5)).toEqual(first.full.diagnostics.slice(0, 5));

    // Lines of another epic, as DispatchLog lays them out but invalid: a redispatch without its
    // recovery id and a stall with an unknown reason, on a ticket of this epic. A fold leaves both
    // out; so does start-up, when it reads them back. And an invalid healthy line, never read here.
    const ticket = [...own][0]!;
    const last = path.join(dir, 'dispatch-log', names.at(-1)!);
    const env = (event: string) =>
      `{"timestamp_utc":"2026-01-06T23:59:00.000Z","event":"${event}","epic_id":"${wavesEpic(8)}","run_id":"r-x","ticket_id":"${ticket}","task_id":"t-x","agent_id":"a-x"`;
    const countBefore = h.redispatchCount.get(ticket);
    appendFileSync(
      last,
      `${env('redispatch')},"key":"k","redispatch_attempt":1}\n${env('stall_detected')},"stall_reason":"bored","idle_seconds":1,"bash_timeout_exemption":false,"redispatch_attempt":1,"max_redispatches":2,"action_taken":"report"}\n${env('healthy')},"idle_seconds":"soon"}\n`,
    );
    const second = await expectSame('summary');
    expect(second.got.history.redispatchCount.get(ticket)).toBe(countBefore);
    expect(second.full.diagnostics.length - first.full.diagnostics.length).toBe(3);
    expect(second.got.diagnosticCount).toBe(first.got.diagnosticCount);

    // Rebuilt from nothing, the same again (the references now point into every day file).
    for (const n of readdirSync(path.join(dir, 'observe', 'history'))) appendFileSync(path.join(dir, 'observe', 'history', n), 'torn');
    await expectSame('rebuilt');
  });

  it('reads a day file of several chunks (the next one read while this one is scanned) as a whole fold does, to the line', async () => {
    const dir = tempDir();
    const paths = new StatePaths(dir);
    const epic = wavesEpic(7);
    const { names } = generateWavesLog(dir, { events: 30_000, days: 1, junkEvery: 1500 });
    // Over two of start-up's 4 MB read chunks: lines cross both boundaries.
    expect(statSync(path.join(dir, 'dispatch-log', names[0]!)).size).toBeGreaterThan(8 * 1024 * 1024);
    const all = await readDispatchLog(paths);
    const got = await loadHistory(paths, epic, { isWritable: false });
    expect(got.stats.from).toBe('rebuilt');
    expect(json(got.history)).toEqual(json(foldHistory(all.events, epic)));
    expect(got.diagnosticCount).toBe(all.diagnostics.length);
    expect(got.diagnostics).toEqual(all.diagnostics.slice(0, got.diagnostics.length));
    expect(got.diagnostics.at(-1)!.line).toBeGreaterThan(15_000);
  });

  it('gives the same history, summary and diagnostics when a worker thread scans the later days, and when the worker fails', async () => {
    // The worker's own file, as npm test builds it beside the suite's CLI (dist/bundle/).
    const built = path.join(REPO_ROOT, 'dist', 'bundle', 'log-scan.cjs');
    expect(existsSync(built), `${built} is missing: run npm test (it builds dist/bundle/ before the suite)`).toBe(true);
    const dir = tempDir();
    const paths = new StatePaths(dir);
    const epic = wavesEpic(7);
    const { names } = generateWavesLog(dir, { events: 30_000, days: 6, junkEvery: 0 });
    // A corrupt line in the last day, the worker's: reported with its file and line all the same.
    const lastDay = path.join(dir, 'dispatch-log', names.at(-1)!);
    const lastLine = readFileSync(lastDay, 'utf8').split('\n').length;
    appendFileSync(lastDay, '{"timestamp_utc":"2026-01-06T23:59:59.000Z","event":"healthy","epic_id":"torn\n');
    const summaryFile = path.join(dir, 'observe', 'history', `${epic}.json`);
    const load = async (scanWorker: URL | null) => {
      rmSync(summaryFile, { force: true });
      const got = await loadHistory(paths, epic, { isWritable: true, scanWorker, parallelMinBytes: 0 });
      return { got, summary: readFileSync(summaryFile, 'utf8') };
    };
    const here = await load(null);
    expect(here.got.stats.workerDays).toBe(0);
    const split = await load(pathToFileURL(built));
    // The worker took the later days (about half the bytes), this thread the first ones.
    expect(split.got.stats.workerDays).toBeGreaterThanOrEqual(2);
    expect(split.got.stats.workerDays).toBeLessThan(6);
    expect(split.summary).toBe(here.summary);
    expect(json(split.got.history)).toEqual(json(here.got.history));
    expect(json(split.got.history)).toEqual(json(foldHistory((await readDispatchLog(paths)).events, epic)));
    expect([split.got.diagnosticCount, split.got.diagnostics, split.got.stats.bytesRead]).toEqual([
      here.got.diagnosticCount,
      here.got.diagnostics,
      here.got.stats.bytesRead,
    ]);
    expect(split.got.diagnostics).toEqual([{ file: lastDay, line: lastLine, message: expect.stringContaining('not valid JSON') }]);
    // A worker that throws at once: its days are folded here, the same history again.
    const broken = path.join(dir, 'broken-worker.cjs');
    writeFileSync(broken, "throw new Error('no scan today');\n");
    const failed = await load(pathToFileURL(broken));
    expect(failed.got.stats.workerDays).toBe(0);
    expect(failed.summary).toBe(here.summary);
    // A worker that dies after sending its first day: that day is folded as sent, the rest here.
    const dying = path.join(dir, 'dying-worker.cjs');
    writeFileSync(
      dying,
      `const { parentPort } = require('node:worker_threads');
const post = parentPort.postMessage.bind(parentPort);
let days = 0;
parentPort.postMessage = (m) => { if (m.file && ++days > 1) throw new Error('died after a day'); post(m); };
require(${JSON.stringify(built)});
`,
    );
    const died = await load(pathToFileURL(dying));
    expect(died.got.stats.workerDays).toBe(1);
    expect(died.summary).toBe(here.summary);
    expect(died.got.diagnostics).toEqual(here.got.diagnostics);
    // Starts at once (serve starts every epic together): no more workers than MAX_SCAN_WORKERS; the others fold on this thread.
    rmSync(summaryFile, { force: true });
    const together = await Promise.all(
      Array.from({ length: MAX_SCAN_WORKERS + 1 }, () =>
        loadHistory(paths, epic, { isWritable: false, scanWorker: pathToFileURL(built), parallelMinBytes: 0 }),
      ),
    );
    const withWorker = together.filter((t) => t.stats.workerDays > 0).length;
    expect(withWorker).toBeGreaterThanOrEqual(1);
    expect(withWorker).toBeLessThanOrEqual(MAX_SCAN_WORKERS);
    for (const t of together) expect(json(t.history)).toEqual(json(here.got.history));
  });
});
