// A wrong pid in a row (issue 8 item 4): a process that is not the agent is never signalled, and a
// process group is signalled only when it is the agent's own.
import { describe, expect, it } from 'vitest';
import { createAdapter } from '../../src/act/agents/make-adapter.js';
import { decideGroupIsOurs } from '../../src/act/agents/process.js';
import { realClock } from '../../src/deps.js';
import { cancelRequest } from '../helpers/agent-requests.js';
import { isRunning, spawnFixture } from '../helpers/spawn-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

const adapter = () => createAdapter('process', { kill_grace_ms: 50 }, { clock: realClock });

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

describe('decideGroupIsOurs', () => {
  const leader = { pid: 100, startTicks: 5000 };
  it.each([
    ['the leader and its later tools', [{ pid: 100, startTicks: 5000 }, { pid: 101, startTicks: 5010 }], true],
    ['a member older than the leader (not its tool)', [{ pid: 100, startTicks: 5000 }, { pid: 50, startTicks: 10 }], false],
    ['the watchdog itself', [{ pid: 100, startTicks: 5000 }, { pid: 7, startTicks: 6000 }], false],
    ["the watchdog's parent", [{ pid: 100, startTicks: 5000 }, { pid: 8, startTicks: 6000 }], false],
  ])('%s → %s', (_name, members, ours) => {
    expect(decideGroupIsOurs(leader, members, 7, 8)).toBe(ours);
  });
});
