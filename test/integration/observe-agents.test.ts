// Four real agent processes write Claude-Code-format transcripts on a simulated timeline
// (record timestamps and file mtimes from BASE); the observer + assess flag only the one that
// stopped. Each child prints `ready` once its lines are on disk; nothing sleeps.
import { spawn } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { assess } from '../../src/core/assess.js';
import type { Task } from '../../src/contracts/state-file.js';
import { StatePaths } from '../../src/files/paths.js';
import { createClaudeObserver } from '../../src/agents/claude-code/read/claude-observer.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { tempDir } from '../helpers/temp-dir.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

// argv: mode, transcript file, BASE ms, agent id. stdin "advance <s>" moves the simulated clock
// to BASE + s seconds: the agent writes its records up to then and answers "ok <s>".
// Lines are modelled on shared/fixtures/claude-code (2.1.39).
const AGENT = `
import { appendFileSync, utimesSync } from 'node:fs';
import { createInterface } from 'node:readline';
const [mode, file, baseArg, agentId] = process.argv.slice(2);
const base = Number(baseArg);
const plan = [];
const rec = (s, body) => plan.push([s, body]);
const call = (s, id, name, input) => rec(s, { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } });
const result = (s, id) => rec(s, { type: 'user', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: 'ok' }] } });
rec(0, { type: 'user', message: { role: 'user', content: 'Implement the ticket.' } });
if (mode === 'busy') for (let s = 10; s < 1000; s += 20) { call(s, 'r' + s, 'Read', { file_path: '/src/f' + s + '.ts' }); result(s + 1, 'r' + s); }
if (mode === 'stopped') { call(10, 'r1', 'Read', { file_path: '/src/a.ts' }); result(11, 'r1'); call(25, 'r2', 'Grep', { pattern: 'TODO' }); result(30, 'r2'); }
if (mode === 'bash-open') call(20, 'b1', 'Bash', { command: 'npm run test:e2e 2>&1 | tail -40', timeout: 600000 });
if (mode === 'api-retry') for (let s = 100; s <= 150; s += 10) rec(s, { type: 'system', subtype: 'api_error', level: 'error', retryAttempt: s / 10 - 9, maxRetries: 10, retryInMs: 10000, error: { status: 529, message: 'overloaded' } });
createInterface({ input: process.stdin }).on('line', (line) => {
  const until = Number(line.split(' ')[1]);
  let last;
  while (plan.length && plan[0][0] <= until) {
    const [s, body] = plan.shift();
    last = base + s * 1000;
    appendFileSync(file, JSON.stringify({ isSidechain: true, agentId, sessionId: 'sess-1', version: '2.1.39', timestamp: new Date(last).toISOString(), ...body }) + '\\n');
  }
  if (last !== undefined) utimesSync(file, new Date(last), new Date(last));
  process.stdout.write('ok ' + until + '\\n');
});
`;

interface Agent {
  advance(s: number): Promise<void>;
}

/** Start one agent process; `advance` resolves once its lines up to that second are on disk. */
function startAgent(script: string, mode: string, file: string, baseMs: number, agentId: string): Agent {
  const child = spawn(process.execPath, [script, mode, file, String(baseMs), agentId], { stdio: ['pipe', 'pipe', 'inherit'] });
  onTestFinished(() => void child.kill('SIGKILL'));
  let waiting: { s: number; resolve: () => void } | undefined;
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    if (waiting && out.includes(`ok ${waiting.s}\n`)) waiting.resolve();
  });
  return {
    advance: (s) =>
      new Promise<void>((resolve, reject) => {
        waiting = { s, resolve };
        child.once('exit', (code) => reject(new Error(`${mode} agent exited ${code}`)));
        child.stdin!.write(`advance ${s}\n`);
      }),
  };
}

describe('four real agents, one stopped mid-task', () => {
  it('flags exactly the agent that stopped, at the first check after its window', async () => {
    const root = tempDir();
    const script = path.join(root, 'agent.mjs');
    writeFileSync(script, AGENT);
    const subagents = path.join(root, 'claude', 'projects', '-work-repo', 'sess-1', 'subagents');
    mkdirSync(subagents, { recursive: true });
    mkdirSync(path.join(root, 'state'));
    const BASE = Date.parse('2026-04-02T10:00:00Z');
    const modes = ['busy', 'stopped', 'bash-open', 'api-retry'] as const;
    const agents = modes.map((m, i) => startAgent(script, m, path.join(subagents, `agent-a${i}.jsonl`), BASE, `a${i}`));
    const observer = createClaudeObserver({ paths: new StatePaths(path.join(root, 'state')), claudeConfigDir: path.join(root, 'claude'), env: {} });
    const tasks: Task[] = modes.map((m, i) => ({
      taskId: m,
      ticketId: `PROJ-${i}`,
      status: 'in_progress',
      statusClass: 'in_flight',
      dispatchedAtMs: BASE,
      agentId: `a${i}`,
      sessionId: 'sess-1',
    }));
    /** Let every agent reach second `s`, then judge every task at BASE + s seconds (+ extraMs). */
    const checkAt = async (s: number, extraMs = 0) => {
      await Promise.all(agents.map((a) => a.advance(s)));
      const nowMs = BASE + s * 1000 + extraMs;
      const out: Record<string, string> = {};
      for (const t of tasks) out[t.taskId] = assess(t, mergeObservations([observeRow(t), ...(await observer.observe(t, nowMs))]), DEFAULT_POLICY, nowMs).kind;
      return out;
    };
    const allHealthy = { busy: 'healthy', stopped: 'healthy', 'bash-open': 'healthy', 'api-retry': 'healthy' };
    expect(await checkAt(60)).toEqual(allHealthy);
    // The stopped agent's last result was at +30 s: its 120 s window ends at +150 s exactly.
    expect(await checkAt(150)).toEqual(allHealthy);
    expect(await checkAt(150, 1)).toEqual({ ...allHealthy, stopped: 'stalled' });
    // Later: the open Bash call is inside its own 600 s + 60 s; the retrying agent (last retry
    // at +150 s) is 125 s quiet, inside the doubled 240 s window.
    expect(await checkAt(275)).toEqual({ ...allHealthy, stopped: 'stalled' });
    expect(await checkAt(650)).toEqual({ ...allHealthy, stopped: 'stalled', 'api-retry': 'stalled' });
    // Six checks read each transcript byte once (plus a 1-byte newline check per resumed read),
    // and found the four files with one listing and four stats, never searching again.
    const total = modes.reduce((n, _m, i) => n + statSync(path.join(subagents, `agent-a${i}.jsonl`)).size, 0);
    expect(observer.stats().bytesRead).toBeGreaterThanOrEqual(total);
    expect(observer.stats().bytesRead).toBeLessThanOrEqual(total + 6 * 4);
    // Four files, the listing, and one stat of the projects dir (a new project dir is listed again at once).
    expect(observer.stats().findStatCalls).toBe(6);
  });
});
