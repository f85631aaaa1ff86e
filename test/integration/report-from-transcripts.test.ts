// End to end from transcripts: four real agent processes write Claude Code transcripts; the real CLI in
// report mode, fed only their transcript paths, flags exactly the one that stopped, in time.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { REPO_ROOT, exited, spawnCli, until } from '../helpers/cli.js';
import { readEvents, readWatchdogJson, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const AGENT = path.join(REPO_ROOT, 'test/fixtures/procs/claude-agent.mjs');

function startAgent(mode: string, file: string, agentId: string): Promise<void> {
  const child = spawn(process.execPath, [AGENT, mode, file, agentId], { stdio: ['ignore', 'pipe', 'inherit'] });
  onTestFinished(() => void child.kill('SIGKILL'));
  return new Promise((resolve) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()));
}

describe('report mode on real Claude-Code-style agents', () => {
  it('flags only the agent that stopped, at its deadline (not at the check interval)', async () => {
    const dir = tempDir();
    const modes = ['busy', 'stopped', 'bash-open', 'api-retry'] as const;
    const rows = [];
    for (const [i, mode] of modes.entries()) {
      const transcript = path.join(dir, `agent-a${i}.jsonl`);
      await startAgent(mode, transcript, `a${i}`);
      rows.push({ task_id: `t-${mode}`, ticket_id: `P-${i + 1}`, status: 'in_progress', agent_id: `a${i}`, transcript_path: transcript });
    }
    writeWave(dir, 'E-2E', new Date().toISOString(), rows);
    const watchdog = spawnCli(['--epic-id', 'E-2E', '--state-dir', dir, '--action', 'report', '--timeout', '2', '--check-interval', '120']);
    onTestFinished(() => void watchdog.kill('SIGKILL'));

    const stall = await until(() => readEvents(dir).find((e) => e.event === 'stall_detected'), 90_000, 'a stall');
    expect(stall.task_id).toBe('t-stopped');
    // Deadline-driven: seen after (last record + 2 s), long before the 120 s interval would have
    // brought the next check. The bound is the interval, not the machine's speed.
    const lines = readFileSync(path.join(dir, 'agent-a1.jsonl'), 'utf8').trim().split('\n');
    const lastRecordMs = Date.parse(JSON.parse(lines.at(-1)!).timestamp);
    const seenAt = Date.parse(String(stall.timestamp_utc));
    expect(seenAt - (lastRecordMs + 2000)).toBeGreaterThan(0);
    expect(seenAt - (lastRecordMs + 2000)).toBeLessThan(60_000);

    // Keep watching well past the others' would-be deadlines: the open 10-minute Bash call and
    // the API backoff are legitimate silence, the busy agent is busy.
    await new Promise((r) => setTimeout(r, 5000));
    const stalls = readEvents(dir)
      .filter((e) => e.event === 'stall_detected')
      .map((e) => e.task_id);
    expect(stalls).toEqual(['t-stopped']);
    const doc = readWatchdogJson(dir, 'E-2E');
    const byTask = Object.fromEntries(doc.tasks.map((t: { task_id: string }) => [t.task_id, t]));
    expect(byTask['t-bash-open']).toMatchObject({
      verdict: 'healthy',
      exemptions: ['bash_long_timeout', 'open_tool_call'],
      sources: expect.arrayContaining(['transcript']),
    });
    expect(byTask['t-api-retry']).toMatchObject({ verdict: 'healthy', exemptions: ['rate_limit'] });
    expect(byTask['t-busy'].verdict).toBe('healthy');
    watchdog.kill('SIGTERM');
    expect((await exited(watchdog)).code).toBe(0);
  }, 150_000);
});
