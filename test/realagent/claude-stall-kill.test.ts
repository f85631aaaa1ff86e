// Claude Code's own stall kill on a real 2.1.332 session (issue 38 item 2): a background subagent
// whose next reply never starts is aborted by Claude Code's async-agent stall watchdog
// (CLAUDE_ASYNC_AGENT_STALL_TIMEOUT_MS, shortened to 10 s; 600 s by default). It writes
// `[Request interrupted by user]` marked `rowSource: "harness"` into the subagent's transcript and
// tells the lead "failed: Agent stalled: no progress for 10s". With a window (60 s) longer than
// Claude Code's timer, the watchdog must say so at the first check after the record: the subagent
// `stalled` with `stall_reason: runtime_killed` and a reason naming the kill, never `healthy`
// ("active 26s ago" before this), never `waiting_human`; the lead, woken by the failure and
// answering it, is never stalled. 2.1.197 has no such record to read (its watchdog is 600 s
// fixed): the rule is 2.1.332's.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeVersions, NEWEST, startClaude } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { agent, bash, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { startWatchdog } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

describeVersions(
  [NEWEST],
  "Claude Code's own stall kill",
  (version) => {
    it('the killed subagent is stalled (runtime_killed) at the next check, the lead never', async () => {
      const lead = `KILL-LEAD-${version}`;
      const sub = `KILL-SUB-${version}`;
      server.script(lead, [
        { blocks: [agent(`${sub}: run the build`)] },
        { blocks: [text('Waiting for the agent.')] },
        { blocks: [text('The agent failed; reporting it.')] },
      ]);
      server.script(sub, [{ blocks: [bash(`node -e "setTimeout(()=>console.log('built'),500)"`)] }, { freeze: 'before_bytes' }]);
      const stateDir = tempDir();
      const home = tempDir('dw-home-');
      const sessionId = crypto.randomUUID();
      const epic = 'E-KILL';
      const rows = (agentId?: string) => [
        { task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', session_id: sessionId },
        ...(agentId ? [{ task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', agent_id: agentId, session_id: sessionId }] : []),
      ];
      writeWave(stateDir, epic, new Date().toISOString(), rows());
      const w = startWatchdog({ stateDir, epic, claudeDir: `${home}/.claude`, args: ['--timeout', '60'] });
      const s = startClaude({ server, version, prompt: `${lead}: dispatch the build`, home, sessionId, env: { CLAUDE_ASYNC_AGENT_STALL_TIMEOUT_MS: '10000' } });
      const [agentId] = await until(() => (s.subagentIds().length ? s.subagentIds() : undefined), 60_000, 'the subagent transcript');
      writeWave(stateDir, epic, new Date().toISOString(), rows(agentId));
      await w.waitTask('sub', (t) => t.verdict === 'healthy', 'the subagent seen at work');
      const subFile = path.join(s.subagentsDir, `agent-${agentId}.jsonl`);
      const kill = await until(
        () => {
          const last = readFileSync(subFile, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as Record<string, any>)
            .at(-1);
          return last?.rowSource === 'harness' ? last : undefined;
        },
        60_000,
        "Claude Code's interruption record",
      );
      expect(JSON.stringify(kill.message)).toContain('[Request interrupted by user]');
      const stalled = await w.waitTask('sub', (t) => t.verdict === 'stalled', 'the killed subagent stalled', 30_000);
      expect(stalled.reason, JSON.stringify(stalled)).toMatch(/killed by Claude Code's own stall watchdog/);
      expect(await s.exited).toEqual({ code: 0, signal: null });
      const notice = s.transcript().find((r) => r.type === 'user' && JSON.stringify(r.message).includes('<task-notification>'));
      expect(JSON.stringify(notice?.message)).toMatch(/Agent stalled: no progress for 10s/);
      const exitedMs = Date.now();
      await until(() => w.checks().some((c) => Date.parse(c.check_timestamp) > exitedMs + 1_000), 30_000, 'a check after the run ended');
      const checks = w.checks();
      const killMs = Date.parse(kill.timestamp);
      const sub0 = checks.filter((c) => Date.parse(c.check_timestamp) > killMs + 1_500).map((c) => c.tasks.find((t) => t.task_id === 'sub')?.verdict);
      // Never healthy nor waiting_human after the kill was on disk (a check a second apart).
      if (os.loadavg()[0]! <= 8) expect(sub0.filter((v) => v !== 'stalled')).toEqual([]);
      expect(checks.flatMap((c) => c.tasks).filter((t) => t.task_id === 'lead' && (t.verdict === 'stalled' || t.verdict === 'waiting_human'))).toEqual([]);
      // One stall for the subagent, none for the lead.
      const stalls = checks.flatMap((c) => c.stalls_detected ?? []);
      expect(stalls.filter((x) => x.task_id === 'lead')).toEqual([]);
      expect(stalls.filter((x) => x.task_id === 'sub').map((x) => x.stall_reason)).toContain('runtime_killed');
    });
  },
  { timeout: 120_000 },
);
