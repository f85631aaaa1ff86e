// One behaviour suite for every agent-control adapter (BullMQ's adapter-conformance idea): markers are
// absent before, a step fires once however often it is called, and a redispatch carries the
// checkpoint and the full prompt to whoever starts the replacement.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentAdapter, CancelRequest, RedispatchRequest } from '../../src/act/agents/adapter.js';
import { createAdapter } from '../../src/act/agents/make-adapter.js';
import type { AdapterName } from '../../src/contracts/vocabulary.js';
import { realClock } from '../../src/deps.js';
import { cancelRequest, redispatchRequest } from '../helpers/agent-requests.js';
import { fixture, spawnFixture, waitFor, type Fixture } from '../helpers/spawn-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

interface Harness {
  adapter: AgentAdapter;
  /** A request whose target is alive and can be stopped. */
  cancelReq(): Promise<CancelRequest>;
  /** How many times the stop took effect. */
  cancelCount(req: CancelRequest): Promise<number>;
  redispatchReq(): Promise<RedispatchRequest>;
  /** The checkpoint path and prompt the replacement (or the orchestrator) received. */
  received(req: RedispatchRequest): Promise<{ checkpoint: string; prompt: string }>;
}

const readJson = async (f: string) => JSON.parse(await fs.readFile(f, 'utf8'));
const lines = async (f: string) =>
  (await fs.readFile(f, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const node = process.execPath;
const agentArgv = (out: string) => [node, fixture('fake-agent.mjs'), out, '--prompt-file', '{prompt_file}', '--checkpoint', '{checkpoint}'];

/** The request file an orchestrator reads (mailbox and claude-team redispatch). */
async function fromRequestFile(req: RedispatchRequest) {
  const dir = req.paths.requestsDir(req.epicId);
  const r = await readJson(path.join(dir, (await fs.readdir(dir)).find((f) => f.endsWith('.redispatch.json'))!));
  return { checkpoint: r.checkpoint_path as string, prompt: r.prompt as string };
}

/** What a fake agent recorded: its argv names the prompt file and the checkpoint. */
async function fromAgentArgv(out: string) {
  const first = await waitFor('the fake agent to record its argv', async () => (await lines(out))[0]);
  const argv: string[] = first.argv;
  const promptFile = argv[argv.indexOf('--prompt-file') + 1]!;
  return { checkpoint: argv[argv.indexOf('--checkpoint') + 1]!, prompt: await fs.readFile(promptFile, 'utf8') };
}

const harnesses: Record<AdapterName, () => Harness> = {
  mailbox() {
    const dir = tempDir();
    return {
      adapter: createAdapter('mailbox', undefined, { clock: realClock }),
      cancelReq: async () => cancelRequest(dir),
      cancelCount: async (req) => (await fs.readdir(req.paths.requestsDir(req.epicId))).filter((f) => f.endsWith('.cancel.json')).length,
      redispatchReq: () => redispatchRequest(dir),
      received: fromRequestFile,
    };
  },
  'claude-team'() {
    const dir = tempDir();
    const teams = path.join(dir, 'teams');
    const inbox = path.join(teams, 'wave-team', 'inboxes', 'worker-1.json');
    const task = { teamName: 'wave-team', agentName: 'worker-1' };
    return {
      adapter: createAdapter('claude-team', { teams_dir: teams }, { clock: realClock }),
      async cancelReq() {
        await fs.mkdir(path.dirname(inbox), { recursive: true });
        return cancelRequest(dir, task);
      },
      cancelCount: async (req) => (await readJson(inbox)).filter((m: { text: string }) => JSON.parse(m.text).requestId === req.key).length,
      redispatchReq: () => redispatchRequest(dir, task),
      received: fromRequestFile,
    };
  },
  process() {
    const dir = tempDir();
    const out = path.join(dir, 'agent-argv.ndjson');
    let agent: Fixture | undefined;
    return {
      adapter: createAdapter('process', { kill_grace_ms: 50, redispatch_argv: agentArgv(out) }, { clock: realClock }),
      async cancelReq() {
        agent = await spawnFixture('sleep-forever.mjs');
        return cancelRequest(dir, { pid: agent.pid, dispatchedAtMs: Date.now() });
      },
      // The exit event comes once Node has reaped the child; until then kill(pid, 0) still sees a zombie.
      cancelCount: async () => ((await agent!.exited).signal === 'SIGTERM' ? 1 : 0),
      redispatchReq: () => redispatchRequest(dir),
      received: () => fromAgentArgv(out),
    };
  },
  command() {
    const dir = tempDir();
    const cancelOut = path.join(dir, 'cancel.ndjson');
    const out = path.join(dir, 'agent-argv.ndjson');
    const agents = { cancel_argv: [node, fixture('fake-agent.mjs'), cancelOut, 'stop', '{task_id}', '{key}'], redispatch_argv: agentArgv(out) };
    return {
      adapter: createAdapter('command', agents, { clock: realClock }, { strategy: 'redispatch' }),
      cancelReq: async () => cancelRequest(dir),
      cancelCount: async (req) => (await lines(cancelOut)).filter((l) => l.key === req.key && l.argv.includes(req.task.taskId)).length,
      redispatchReq: () => redispatchRequest(dir),
      received: () => fromAgentArgv(out),
    };
  },
};

describe.each(Object.keys(harnesses) as AdapterName[])('%s adapter conformance', (name) => {
  it('reports both markers absent before anything was done', async () => {
    const h = harnesses[name]();
    expect(await h.adapter.cancelMarker(await h.cancelReq())).toBe('absent');
    expect(await h.adapter.redispatchMarker(await h.redispatchReq())).toBe('absent');
  });

  it('cancels, and the marker then says done', async () => {
    const h = harnesses[name]();
    const req = await h.cancelReq();
    const outcome = await h.adapter.cancel(req);
    expect(outcome).toMatchObject({ kind: 'cancel', adapter: name, ok: true, retryable: false, wasForced: false, wasAlreadyDone: false });
    expect(await h.adapter.cancelMarker(req)).toBe('done');
  });

  it('fires a cancel once when called twice with the same key', async () => {
    const h = harnesses[name]();
    const req = await h.cancelReq();
    await h.adapter.cancel(req);
    const second = await h.adapter.cancel(req);
    expect(second).toMatchObject({ ok: true, wasAlreadyDone: true });
    expect(await h.cancelCount(req)).toBe(1);
  });

  it('redispatches once, carrying the checkpoint path and the full recovery prompt', async () => {
    const h = harnesses[name]();
    const req = await h.redispatchReq();
    const first = await h.adapter.redispatch(req);
    expect(first).toMatchObject({ kind: 'redispatch', adapter: name, ok: true, wasAlreadyDone: false });
    expect(await h.adapter.redispatchMarker(req)).toBe('done');
    expect(await h.received(req)).toEqual({ checkpoint: req.checkpointPath, prompt: req.prompt });
    expect(req.prompt).toContain(req.checkpointPath);
    const second = await h.adapter.redispatch(req);
    expect(second).toMatchObject({ ok: true, wasAlreadyDone: true });
  });
});
