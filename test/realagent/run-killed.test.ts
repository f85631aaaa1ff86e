// A run that ended without a SessionEnd hook (issue 38): the real `claude -p` lead, with a
// subagent at work (a background one on 2.1.332, the default since 2.1.198; a foreground one on
// 2.1.197), is killed with kill -9, so no hook fires, and no hook is installed anyway. Claude
// Code's `sessions/<pid>.json` names the process that ran the session; once that process is gone
// both rows are dead at once: the subagent's row `stalled` with `run_ended` at the first checks
// after the kill (not a 60 s window later), the lead deferred to its child's row even with its
// process gone, and `--action redispatch` asks for exactly one replacement, for the child's ticket
// (before this, both stayed `healthy` for the window, then both were redispatched: two agents on
// one ticket).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALL_VERSIONS, describeVersions, OLDEST, startClaude } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { agent, bash, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { startWatchdog } from '../helpers/real-watchdog.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

describeVersions(
  ALL_VERSIONS,
  'a run killed with -9 (no SessionEnd)',
  (version) => {
    it('its rows are dead at once (run_ended), the lead deferred to its child: one redispatch, for the child', async () => {
      const lead = `KILL9-LEAD-${version}`;
      const sub = `KILL9-SUB-${version}`;
      server.script(lead, [{ blocks: [agent(`${sub}: run the build`)] }, { blocks: [text('Waiting for the agent.')] }, { blocks: [text('Done.')] }]);
      // The subagent runs a command, then its next reply never starts: it is at work when the run dies.
      server.script(sub, [{ blocks: [bash(`node -e "setTimeout(()=>console.log('built'),300)"`)] }, { freeze: 'before_bytes' }]);
      const stateDir = tempDir();
      const home = tempDir('dw-home-');
      const sessionId = crypto.randomUUID();
      const epic = 'E-K9';
      const rows = (agentId?: string) => [
        { task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', session_id: sessionId },
        ...(agentId ? [{ task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', agent_id: agentId, session_id: sessionId }] : []),
      ];
      writeWave(stateDir, epic, new Date().toISOString(), rows());
      const s = startClaude({ server, version, prompt: `${lead}: dispatch the build`, home, sessionId });
      const [agentId] = await until(() => (s.subagentIds().length ? s.subagentIds() : undefined), 60_000, 'the subagent transcript');
      writeWave(stateDir, epic, new Date().toISOString(), rows(agentId));
      // The subagent's frozen request is on the server: it is waiting for the model, as alive as can be.
      await until(() => server.of(sub).length >= 2, 60_000, 'the subagent asking again after its command');
      const sessionFile = path.join(s.claudeDir, 'sessions', `${s.pid}.json`);
      expect(existsSync(sessionFile)).toBe(true);
      const w = startWatchdog({ stateDir, epic, claudeDir: s.claudeDir, args: ['--timeout', '60', '--action', 'redispatch'] });
      await w.waitTask('sub', (t) => t.verdict === 'healthy', 'the subagent healthy while its run lives');
      await w.waitTask('lead', (t) => t.verdict === 'healthy', 'the lead healthy while its run lives');
      const killedMs = Date.now();
      s.kill('SIGKILL');
      expect(await s.exited).toMatchObject({ signal: 'SIGKILL' });
      // kill -9 runs no cleanup: the sessions file stays, naming a pid that is gone.
      expect(existsSync(sessionFile)).toBe(true);
      const dead = await w.waitTask('sub', (t) => t.verdict === 'stalled', 'the subagent row dead', 30_000);
      expect(dead.reason, JSON.stringify(dead)).toMatch(
        /its run ended before the agent finished \(its Claude Code process \d+ is gone, its sessions file left behind/,
      );
      // At once: long before the 60 s window after its last activity.
      const stallAt = readEvents(stateDir).find((e) => e.event === 'stall_detected' && e.task_id === 'sub');
      expect(stallAt).toMatchObject({ stall_reason: 'run_ended' });
      expect(Date.parse(String(stallAt!.timestamp_utc)) - killedMs).toBeLessThan(20_000);
      const leadNow = w.tasks().find((t) => t.task_id === 'lead')!;
      expect(leadNow, JSON.stringify(leadNow)).toMatchObject({ verdict: 'healthy' });
      expect(leadNow.reason).toContain(`${agentId} is row sub, judged and recovered on its own (one action for one failure)`);
      // A few more checks: still one redispatch, for the child's ticket only.
      const after = w.checks().length;
      await until(() => w.checks().length >= after + 3, 30_000, 'three more checks');
      const started = readEvents(stateDir).filter((e) => e.event === 'action_started');
      expect(started.map((e) => [e.task_id, e.action, e.stall_reason])).toEqual([['sub', 'redispatch', 'run_ended']]);
      expect(
        readEvents(stateDir)
          .filter((e) => e.event === 'stall_detected')
          .map((e) => e.task_id),
      ).toEqual(['sub']);
      if (version !== OLDEST) expect(leadNow.reason).toContain('background subagent');
    });
  },
  { timeout: 150_000 },
);
