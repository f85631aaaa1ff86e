// Claude Code's session registry read as the run's liveness (issue 38): a session whose process is
// gone is over, whether its `sessions/<pid>.json` was left behind (kill -9) or removed (a clean
// exit with no SessionEnd hook installed); a recycled pid is not the process; a session resumed by
// another process is that process's; a row's own pid decides only when no process is known.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSessionRegistry, probePid, type SessionRegistry, type SessionRun } from '../../src/agents/claude-code/read/session-registry.js';
import { createRunObserver, ROW_EXIT_GRACE_MS, runPart } from '../../src/agents/claude-code/read/run-observer.js';
import { makeTask } from '../helpers/builders.js';
import { parseProcStat } from '../../src/sys/proc-identity.js';
import { tempDir } from '../helpers/temp-dir.js';

const file = (dir: string, pid: number, sessionId: string, extra: Record<string, unknown> = {}) =>
  writeFileSync(path.join(dir, `${pid}.json`), JSON.stringify({ pid, sessionId, cwd: '/w', startedAt: 1000, procStart: '4242', version: '2.1.332', ...extra }));

function setup() {
  const dir = path.join(tempDir(), 'sessions');
  mkdirSync(dir);
  const alive = new Set<number>();
  const registry = createSessionRegistry(dir, { relistMs: 0, probeMs: 0, probe: (pid) => alive.has(pid) });
  return { dir, alive, registry };
}

describe('the session registry as the run liveness', () => {
  it('a process killed with -9: its file stays, its pid is gone: the run is over from the first probe that finds it gone', () => {
    const { dir, alive, registry } = setup();
    file(dir, 101, 's-1');
    alive.add(101);
    expect(registry.run('s-1', 1000)).toMatchObject({ pid: 101, version: '2.1.332' });
    expect(registry.run('s-1', 1000)?.goneAtMs).toBeUndefined();
    alive.delete(101);
    expect(registry.run('s-1', 2000)).toMatchObject({ goneAtMs: 2000 });
    expect(registry.run('s-1', 3000)).toMatchObject({ goneAtMs: 2000 });
    expect(runPart(registry.run('s-1', 3000), {})).toEqual({
      source: 'process',
      agentVersion: '2.1.332',
      runEnded: { atMs: 2000, detail: 'its Claude Code process 101 is gone, its sessions file left behind: killed, no SessionEnd' },
    });
  });

  it('a clean exit with no hook: its file removed, its pid gone', () => {
    const { dir, alive, registry } = setup();
    file(dir, 102, 's-2');
    alive.add(102);
    expect(registry.run('s-2', 1000)?.goneAtMs).toBeUndefined();
    rmSync(path.join(dir, '102.json'));
    alive.delete(102);
    expect(runPart(registry.run('s-2', 2000), {})?.runEnded?.detail).toBe('its Claude Code process 102 is gone, its sessions file removed');
  });

  it('a session resumed by another process is that process: alive again', () => {
    const { dir, alive, registry } = setup();
    file(dir, 103, 's-3');
    alive.add(103);
    registry.run('s-3', 1000);
    alive.delete(103);
    expect(registry.run('s-3', 2000)?.goneAtMs).toBe(2000);
    file(dir, 104, 's-3', { startedAt: 5000 });
    alive.add(104);
    const again = registry.run('s-3', 3000);
    expect(again).toMatchObject({ pid: 104 });
    expect(again?.goneAtMs).toBeUndefined();
    expect(runPart(again, {})).toEqual({ source: 'process', agentVersion: '2.1.332' });
  });

  it('a file left by a killed process never displaces the newer process of the same session', () => {
    const { dir, alive, registry } = setup();
    file(dir, 106, 's-6', { startedAt: 9000 });
    file(dir, 105, 's-6', { startedAt: 1000 });
    alive.add(106);
    expect(registry.run('s-6', 1000)).toMatchObject({ pid: 106 });
    expect(registry.run('s-6', 1000)?.goneAtMs).toBeUndefined();
  });

  it("a row's own pid gone counts only after a grace: its orchestrator marks the row once it has reaped the exit", () => {
    // Gone (a zombie not yet reaped, or just reaped) 9.999 s ago: the row may still be updated.
    expect(runPart(undefined, { pid: 77, goneAtMs: 5 }, 5 + ROW_EXIT_GRACE_MS - 1)).toBeUndefined();
    expect(runPart(undefined, { pid: 77, goneAtMs: 5 }, 5 + ROW_EXIT_GRACE_MS)?.runEnded?.atMs).toBe(5);
  });

  it("a row's own pid decides only when no process is known for its session", () => {
    expect(runPart(undefined, { pid: 77, goneAtMs: 5 })?.runEnded).toEqual({
      atMs: 5,
      detail: "its process 77 (the row's pid) is gone and no Claude Code process runs its session",
      isRowPidOnly: true,
    });
    expect(runPart({ pid: 78 }, { pid: 77, goneAtMs: 5 })).toBeUndefined();
    expect(runPart({ pid: 78, version: '2.1.197' }, {})).toEqual({ source: 'process', agentVersion: '2.1.197' });
    expect(runPart(undefined, { pid: 77 })).toBeUndefined();
  });

  it('sessionPid and the version come from the same files; an unknown session is listed again', () => {
    const { dir, registry } = setup();
    expect(registry.sessionPid('s-7', 1000)).toBeUndefined();
    file(dir, 107, 's-7', { version: '2.1.197' });
    expect(registry.sessionPid('s-7', 2000)).toBe(107);
    expect(registry.run('s-7', 2000)?.version).toBe('2.1.197');
  });
});

describe('probePid', () => {
  it('is this process with its own start ticks, someone else with another (a recycled pid), gone for a pid no process has', () => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    } catch {
      return; // no /proc: the probe says nothing there (covered by its undefined answer)
    }
    const ticks = parseProcStat(stat)!.startTicks;
    expect(probePid(process.pid, ticks)).toBe(true);
    expect(probePid(process.pid, ticks + 1)).toBe(false);
    expect(probePid(process.pid)).toBe(true);
    expect(probePid(2 ** 22 + 12345)).toBe(false);
  });
});

describe('the run observer keeps a row’s parts while what they are made from holds', () => {
  it('gives the same array check after check, and new parts when the run or the row’s own pid changes', () => {
    let run: SessionRun | undefined = { pid: 101, version: '2.1.332' };
    let gone: number | undefined;
    const registry = { run: () => run, pidGone: () => gone } as unknown as SessionRegistry;
    const o = createRunObserver({ registry });
    const row = makeTask({ taskId: 't1', sessionId: 's-1', pid: 77 });
    const first = o.observeUnchanged!(row, 1000)!;
    expect(first).toEqual([{ source: 'process', agentVersion: '2.1.332' }]);
    expect(o.observeUnchanged!(row, 2000)).toBe(first);
    // Another version, then the process gone: other parts each time, then kept again.
    run = { pid: 101, version: '2.1.333' };
    const second = o.observeUnchanged!(row, 3000)!;
    expect(second).not.toBe(first);
    expect(second).toEqual([{ source: 'process', agentVersion: '2.1.333' }]);
    run = { pid: 101, version: '2.1.333', goneAtMs: 3500 };
    const killed = o.observeUnchanged!(row, 4000)!;
    expect(killed[0]?.runEnded).toMatchObject({ atMs: 3500, detail: expect.stringContaining('left behind') });
    run = { pid: 101, version: '2.1.333', goneAtMs: 3500, isFileGone: true };
    const ended = o.observeUnchanged!(row, 4500)!;
    expect(ended[0]?.runEnded).toMatchObject({ atMs: 3500, detail: expect.stringContaining('removed') });
    expect(o.observeUnchanged!(row, 5000)).toBe(ended);
    // The session resumed by another process, which is gone too: its pid in the words.
    run = { pid: 102, version: '2.1.333', goneAtMs: 3500, isFileGone: true };
    expect(o.observeUnchanged!(row, 5500)![0]?.runEnded?.detail).toContain('process 102');
    // No run known: the row's own pid, gone, counts only after the grace.
    run = undefined;
    gone = 6000;
    const early = o.observeUnchanged!(row, 6000 + ROW_EXIT_GRACE_MS - 1)!;
    expect(early).toEqual([]);
    const late = o.observeUnchanged!(row, 6000 + ROW_EXIT_GRACE_MS)!;
    expect(late[0]?.runEnded).toMatchObject({ atMs: 6000, isRowPidOnly: true });
    expect(o.observeUnchanged!(row, 6000 + ROW_EXIT_GRACE_MS + 1000)).toBe(late);
    gone = 6500;
    expect(o.observeUnchanged!(row, 6000 + ROW_EXIT_GRACE_MS + 2000)![0]?.runEnded?.atMs).toBe(6500);
  });
});
