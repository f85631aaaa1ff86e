// A wrong pid in a row (issue 8 item 4): a process that is not the agent is never signalled, and a
// process group is signalled only when it is the agent's own.
import { describe, expect, it, onTestFinished } from 'vitest';
import { createAdapter } from '../../src/act/agents/make-adapter.js';
import { decideGroupIsOurs } from '../../src/act/agents/process.js';
import { realClock } from '../../src/deps.js';
import { cancelRequest } from '../helpers/agent-requests.js';
import { probeProcess, processStartMs, readProcessIdentity } from '../../src/sys/proc-identity.js';
import { isRunning, spawnFixture } from '../helpers/spawn-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

// The grace only matters to a process that ignores SIGTERM: one that stops on it is given 10 s, so a
// loaded machine cannot turn 'stopped after SIGTERM' into 'killed with SIGKILL' (50 ms lost at load 29).
const adapter = (graceMs = 50) => createAdapter('process', { kill_grace_ms: graceMs }, { clock: realClock });

describe('a pid that is not the agent', () => {
  it('a process started long before the task was dispatched (a shell, a daemon) is never signalled', async () => {
    const other = await spawnFixture('sleep-forever.mjs');
    // The row says the task was dispatched 10 minutes after this process started.
    const req = cancelRequest(tempDir(), { pid: other.pid, dispatchedAtMs: Date.now() + 600_000 });
    expect(await adapter().cancelMarker(req)).toBe('unknown');
    const outcome = await adapter().cancel(req);
    expect(outcome).toMatchObject({ ok: false, code: 'identity_unknown' });
    expect(outcome.detail).toContain('long before the task was dispatched');
    expect(isRunning(other.pid)).toBe(true);
  });
});

describe('never the wrong process', () => {
  /** A row that names `pid`, dispatched when that process started (so its start time matches). */
  const rowFor = async (pid: number) => cancelRequest(tempDir(), { pid, dispatchedAtMs: (await processStartMs((await readProcessIdentity(pid))!))! });

  it.each([
    ['the watchdog itself', () => process.pid, 'this watchdog itself'],
    ["the watchdog's parent", () => process.ppid, 'an ancestor of this watchdog'],
  ])('a row naming %s is refused, never signalled', async (_name, pidOf, says) => {
    const outcome = await adapter().cancel(await rowFor(pidOf()));
    expect(outcome).toMatchObject({ ok: false, code: 'identity_unknown', retryable: false });
    expect(outcome.detail).toContain(says);
    expect(isRunning(pidOf())).toBe(true);
  });

  it('a group whose leader merely has the named pid: only the leader is signalled, not a member it is no parent of', async () => {
    const leader = await spawnFixture('group-with-orphan.mjs', [], { detached: true });
    const stranger = Number(leader.readyLine.split(' ')[1]);
    onTestFinished(() => {
      if (isRunning(stranger)) process.kill(stranger, 'SIGKILL');
    });
    const probe = await probeProcess(stranger);
    expect(probe).toMatchObject({ kind: 'alive', pgrp: leader.pid });
    const outcome = await adapter(10_000).cancel(await rowFor(leader.pid));
    expect(outcome).toMatchObject({ ok: true, wasForced: false });
    expect((await leader.exited).signal).toBe('SIGTERM');
    expect(isRunning(stranger)).toBe(true);
  });
});

describe('decideGroupIsOurs', () => {
  const leader = { pid: 100, startTicks: 5000 };
  const self = { pid: 100, ppid: 1, startTicks: 5000 };
  it.each([
    ['the leader and its later tools', [self, { pid: 101, ppid: 100, startTicks: 5010 }, { pid: 102, ppid: 101, startTicks: 5020 }], true],
    ['a member older than the leader (not its tool)', [self, { pid: 50, ppid: 100, startTicks: 10 }], false],
    ['the watchdog itself', [self, { pid: 7, ppid: 100, startTicks: 6000 }], false],
    ["the watchdog's parent", [self, { pid: 8, ppid: 100, startTicks: 6000 }], false],
    ['a later member that does not descend from the leader (it merely has the pid)', [self, { pid: 300, ppid: 299, startTicks: 6000 }], false],
    ['a tool orphaned to init', [self, { pid: 101, ppid: 1, startTicks: 5010 }], false],
  ])('%s → %s', (_name, members, ours) => {
    expect(decideGroupIsOurs(leader, members, 7, 8)).toBe(ours);
  });
});
