// A steady check costs in proportion to what changed (issue 12, DESIGN §12): the state file is
// parsed again only when it changed, an unchanged transcript is stat'ed but never opened, a
// parent transcript shared by many subagents is read once per check, and agents without a
// hook activity file cost no failing open.
import { appendFileSync, mkdirSync, promises as fsp, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DispatchLog } from '../../src/journal/dispatch-log.js';
import { newCheckMemory, runCheck, type CheckEnv } from '../../src/check.js';
import { rememberingCheck } from '../helpers/check-memory.js';
import { emptyHistory } from '../../src/core/history.js';
import { StatePaths } from '../../src/files/paths.js';
import { createClaudeObserver } from '../../src/agents/claude-code/read/claude-observer.js';
import { stateFileReader } from '../../src/observe/read/state-file-reader.js';
import { TailReader } from '../../src/observe/read/tail-file.js';
import { TailStore } from '../../src/observe/read/tail-store.js';
import { TailTracker } from '../../src/observe/read/tail-tracker.js';
import { parseTranscriptLine } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { emptyTranscriptState, isTranscriptState, type TranscriptState } from '../../src/agents/claude-code/parse/transcript-state.js';
import { resolveOptions } from '../../src/options.js';
import { assistant, at, jsonl, ms, text, toolUse } from '../helpers/claude-lines.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const AGENTS = 20;
const HOUR_AGO = (Date.now() - 3600_000) / 1000;

async function setup() {
  const root = tempDir();
  const stateDir = path.join(root, 'state');
  const claudeDir = path.join(root, 'claude');
  const sessionDir = path.join(claudeDir, 'projects', '-p', 'sess-1');
  mkdirSync(path.join(sessionDir, 'subagents'), { recursive: true });
  const parent = path.join(claudeDir, 'projects', '-p', 'sess-1.jsonl');
  writeFileSync(parent, jsonl(assistant(0, [text('dispatching')])));
  const sub = (k: number) => path.join(sessionDir, 'subagents', `agent-a${k}.jsonl`);
  for (let k = 0; k < AGENTS; k++)
    writeFileSync(sub(k), jsonl(assistant(10, [toolUse(`u${k}`, 'Read', { file_path: '/x' })], { agentId: `a${k}`, isSidechain: true })));
  const tasks = Array.from({ length: AGENTS }, (_, k) => ({
    task_id: `t${k}`,
    ticket_id: `P-${k}`,
    status: 'in_progress',
    agent_id: `a${k}`,
    session_id: 'sess-1',
  }));
  const stateFile = writeWave(stateDir, 'E-1', at(0), tasks);
  // An old file: stat can vouch that it did not change since it was parsed.
  utimesSync(stateFile, HOUR_AGO, HOUR_AGO);
  const paths = new StatePaths(stateDir);
  const opts = await resolveOptions({ epicId: 'E-1', stateDir, action: 'report', dryRun: true }, {}, root);
  const observer = createClaudeObserver({ paths, claudeConfigDir: claudeDir, env: {}, isPersistent: false });
  const env: CheckEnv = { paths, opts, observers: [observer], history: emptyHistory(), runId: 'r', version: 'v', pid: process.pid };
  return { env, observer, stateFile, sub, parent, paths, tasks, stateDir, check: rememberingCheck() };
}

describe('a steady check', () => {
  it('parses the state file once, reads only what grew (through descriptors kept since the last read), reads a shared parent once, and never opens missing activity files', async () => {
    const s = await setup();
    const parses0 = stateFileReader.parses;
    const first = await s.check(s.env, ms(20));
    expect(first.ok && first.verdicts.map((v) => v.kind)).toEqual(Array(AGENTS).fill('healthy'));
    expect(stateFileReader.parses - parses0).toBe(1);
    // Cold: every subagent file, and the parent once (not once per child).
    expect(s.observer.stats().opens).toBe(AGENTS + 1);

    const quiet = s.observer.stats().opens;
    await s.check(s.env, ms(21));
    expect(s.observer.stats().opens - quiet).toBe(0);
    expect(stateFileReader.parses - parses0).toBe(1);

    appendFileSync(s.sub(3), jsonl(assistant(21, [text('more')], { agentId: 'a3', isSidechain: true })));
    appendFileSync(s.sub(7), jsonl(assistant(21, [text('more')], { agentId: 'a7', isSidechain: true })));
    appendFileSync(s.parent, jsonl(assistant(21, [text('still dispatching')])));
    const before = s.observer.stats();
    const r = await s.check(s.env, ms(22));
    expect(r.ok).toBe(true);
    expect(s.observer.stats().reads - before.reads).toBe(3);
    // Written since their last read, under watched directories: read through the descriptors kept open (issue 37).
    expect(s.observer.stats().opens - before.opens).toBe(0);

    // A hook activity file that appears is read from the next check on.
    const activity = s.paths.activityFile('a5');
    mkdirSync(path.dirname(activity), { recursive: true });
    writeFileSync(
      activity,
      JSON.stringify({ ts: at(22), event: 'PreToolUse', session_id: 'sess-1', agent_id: 'a5', tool_name: 'Bash', tool_use_id: 'b1' }) + '\n',
    );
    const withHook = s.observer.stats().opens;
    await s.check(s.env, ms(23));
    expect(s.observer.stats().opens - withHook).toBe(1);
  });

  it('parses the state file again when it changes, however small the change', async () => {
    const s = await setup();
    const parses0 = stateFileReader.parses;
    await s.check(s.env, ms(20));
    await s.check(s.env, ms(21));
    expect(stateFileReader.parses - parses0).toBe(1);
    writeWave(
      s.stateDir,
      'E-1',
      at(0),
      s.tasks.map((t, k) => (k === 0 ? { ...t, status: 'completed' } : t)),
    );
    const r = await s.check(s.env, ms(22));
    expect(stateFileReader.parses - parses0).toBe(2);
    expect(r.ok && r.verdicts[0]!.kind).toBe('terminal');
  });
});

describe('journaling a check', () => {
  it("writes all of a check's log lines with one open, one write and one fsync", async () => {
    const s = await setup();
    const log = new DispatchLog(s.paths, 'E-1', 'r', () => ms(20));
    const env: CheckEnv = { ...s.env, log };
    const open = vi.spyOn(fsp, 'open');
    try {
      const r = await runCheck(env, newCheckMemory(), ms(20));
      expect(r.ok && r.plan.events.length).toBe(AGENTS);
      const logOpens = open.mock.calls.filter(([f]) => String(f).includes('dispatch-log'));
      expect(logOpens).toHaveLength(1);
    } finally {
      open.mockRestore();
    }
    const lines = readFileSync(s.paths.dispatchLog('2026-02-12'), 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l).event)).toEqual(Array(AGENTS).fill('healthy'));
  });
});

describe('read positions across a restart', () => {
  it('keeps a position for every agent of a wave (not 128), saves only what changed, and a restart reads only what was appended', async () => {
    const dir = tempDir();
    const files = Array.from({ length: 300 }, (_, k) => path.join(dir, `agent-a${k}.jsonl`));
    for (const f of files) writeFileSync(f, jsonl(assistant(0, [text('start')]), assistant(1, [text('working')])));
    const storeFile = path.join(dir, 'observe', 'transcripts.json');
    const make = () => {
      const reader = new TailReader();
      const store = new TailStore(storeFile, isTranscriptState);
      return { reader, store, t: new TailTracker<TranscriptState>(reader, { empty: emptyTranscriptState, line: parseTranscriptLine }, store) };
    };
    const first = make();
    for (const f of files) await first.t.read(f, ms(10));
    await first.t.flush(ms(10));
    const compactions = first.store.compactions;
    const size0 = statSync(storeFile).size;

    // Two files grew: the save appends two entries, it does not rewrite the file.
    const grow = jsonl(assistant(20, [text('more')]));
    appendFileSync(files[5]!, grow);
    appendFileSync(files[250]!, grow);
    for (const f of files) await first.t.read(f, ms(20));
    await first.t.flush(ms(20));
    expect(first.store.compactions).toBe(compactions);
    const appended = statSync(storeFile).size - size0;
    expect(appended).toBeGreaterThan(0);
    expect(appended).toBeLessThan((size0 / 300) * 3);

    // Down for a while; three files grew. A restart reads those bytes and nothing else.
    appendFileSync(files[0]!, grow);
    appendFileSync(files[200]!, grow);
    appendFileSync(files[299]!, grow);
    const second = make();
    const states = [];
    for (const f of files) {
      const r = await second.t.read(f, ms(30));
      if (!r.ok) throw new Error(r.reason);
      expect(r.reset).toBeUndefined();
      states.push(r.state);
    }
    expect(second.reader.bytesRead).toBe(3 * (grow.length + 1));
    expect(second.reader.opens).toBe(3);
    expect(states[200]).toMatchObject({ records: 3, lastOutput: 'more' });
    expect(states[201]).toMatchObject({ records: 2, lastOutput: 'working' });
  });
});

/** A Map that counts walks over all of it (iteration, values, keys, entries, forEach, copies). */
class WalkCountingMap<K, V> extends Map<K, V> {
  walks = 0;
  override [Symbol.iterator]() {
    this.walks++;
    return super[Symbol.iterator]();
  }
  override entries() {
    this.walks++;
    return super.entries();
  }
  override values() {
    this.walks++;
    return super.values();
  }
  override keys() {
    this.walks++;
    return super.keys();
  }
  override forEach(...args: Parameters<Map<K, V>['forEach']>) {
    this.walks++;
    super.forEach(...args);
  }
}

describe('saving read positions', () => {
  const isState = (v: unknown): v is { n: number } => typeof (v as { n?: unknown })?.n === 'number';
  const cursor = (k: number) => ({ dev: 1, ino: k, offset: 10, size: 10, mtimeMs: 0 });
  const entry = (k: number, usedAtMs: number) => ({ cursor: cursor(k), state: { n: k }, usedAtMs });
  /** A store of `n` entries as a restarted watchdog finds it, its index counting whole walks. */
  async function loaded(n: number, opts: { retainMs?: number } = {}) {
    const file = path.join(tempDir(), 'observe', 'transcripts.json');
    const all = new Map(Array.from({ length: n }, (_, k) => [`/p/agent-a${k}.jsonl`, entry(k, ms(k % 7))] as const));
    await new TailStore(file, isState, { maxEntries: n, ...opts }).save(all, ms(10), n);
    const store = new TailStore(file, isState, { maxEntries: n, ...opts });
    expect((await store.load()).size).toBe(n);
    const disk = (store as unknown as { disk: { entries: Map<string, unknown> } }).disk;
    const index = new WalkCountingMap(disk.entries);
    disk.entries = index;
    return { file, store, index };
  }

  it('costs the entries saved, not the entries on disk: an append never walks the index (1,000 entries)', async () => {
    const { file, store, index } = await loaded(1000);
    const before = statSync(file).size;
    for (let round = 1; round <= 5; round++) {
      const ours = new Map([
        [`/p/agent-a${round * 3}.jsonl`, entry(round * 3 + 5000, ms(10 + round))],
        [`/p/new-${round}.jsonl`, entry(round, ms(10 + round))],
      ]);
      await store.save(ours, ms(10 + round), 1000 + round);
    }
    expect(index.walks).toBe(0);
    expect(store.compactions).toBe(0);
    expect(statSync(file).size).toBeGreaterThan(before);
    // What a restart finds: every saved entry, the last line of a file winning.
    const back = await new TailStore(file, isState).load();
    expect(back.size).toBe(1005);
    expect(back.get('/p/agent-a6.jsonl')).toEqual(entry(5006, ms(12)));
    expect(back.get('/p/new-5.jsonl')).toEqual(entry(5, ms(15)));
    expect(back.get('/p/agent-a7.jsonl')).toEqual(entry(7, ms(0)));
  });

  it('still prunes an entry past retainMs, walking the index only when its oldest use time says one may be due', async () => {
    const retainMs = 100_000;
    const { file, store, index } = await loaded(50, { retainMs });
    // All entries used within retainMs: appends, no walk.
    await store.save(new Map([['/p/agent-a6.jsonl', entry(6, ms(50))]]), ms(50), 50);
    expect(index.walks).toBe(0);
    expect(store.compactions).toBe(0);
    // The oldest (used at ms(0)) refreshed: past retainMs from ms(0) the index is walked once,
    // nothing is due, and the next saves do not walk it again until ms(1) + retainMs.
    const oldest = [0, 7, 14, 21, 28, 35, 42, 49].map((k) => [`/p/agent-a${k}.jsonl`, entry(k, ms(60))] as const);
    await store.save(new Map(oldest), ms(60), 50);
    await store.save(new Map([['/p/agent-a2.jsonl', entry(2, ms(100.5))]]), ms(100.5), 50);
    const walks = index.walks;
    expect(walks).toBeGreaterThan(0);
    await store.save(new Map([['/p/agent-a2.jsonl', entry(2, ms(100.9))]]), ms(100.9), 50);
    expect(index.walks).toBe(walks);
    expect(store.compactions).toBe(0);
    // Past retainMs for the oldest now (used at ms(1)): the save compacts and drops them.
    await store.save(new Map([['/p/agent-a2.jsonl', entry(2, ms(101.5))]]), ms(101.5), 0);
    expect(store.compactions).toBe(1);
    const back = await new TailStore(file, isState).load();
    expect(back.has('/p/agent-a1.jsonl')).toBe(false);
    expect(back.has('/p/agent-a8.jsonl')).toBe(false);
    expect(back.get('/p/agent-a0.jsonl')).toEqual(entry(0, ms(60)));
    expect(back.get('/p/agent-a2.jsonl')).toEqual(entry(2, ms(101.5)));
    expect(back.has('/p/agent-a6.jsonl')).toBe(true);
  });
});
