// API retries in real 2.1.332 transcripts (issue 38 item 2): the main session writes a
// `system/api_error` record per retry with the wait it announces (`retryInMs`): healthy until the
// retry is due plus grace, though the base window is shorter. A subagent's retries write no such
// record, but every attempt is an `api-request` record: a resend is the agent's activity (it is
// alive and asking again), not an announced backoff, since a frozen stream's resend looks the same
// (replay-real-2332.test.ts): it holds the agent healthy while resends come within the window, and
// neither widens it nor names a rate limit. (2.1.197 writes neither: its retries are known only
// from `-p` stream-json, api-retry.test.ts.)
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeVersions, NEWEST, startClaude } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { agent, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { judge } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const lines = (file: string) => {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
  } catch {
    return [];
  }
};

describeVersions(
  [NEWEST],
  'API retries in a real transcript',
  (version) => {
    it("the main session's api_error retryInMs holds it healthy past the window until the retry is due", async () => {
      const marker = `RETRYREC-${version}`;
      server.script(marker, [[{ status: 429, retryAfter: 8 }, { blocks: [text('Done after the limit lifted.')] }]]);
      const s = startClaude({ server, version, prompt: `${marker}: summarise` });
      const stateDir = tempDir();
      writeWave(stateDir, 'E-RR', new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: s.sessionId }]);
      const retry = await until(() => s.transcript().find((r) => r.type === 'system' && r.subtype === 'api_error'), 60_000, 'the api_error record');
      expect(retry.retryInMs).toBeGreaterThanOrEqual(8000);
      // 7 s after the record, past the 5 s window (and inside the doubled 10 s): backing off.
      const [waiting] = await judge({ stateDir, epic: 'E-RR', claudeDir: s.claudeDir, aheadMs: 7_000, args: ['--timeout', '5'] });
      expect(waiting, JSON.stringify(waiting)).toMatchObject({ verdict: 'healthy', exemptions: ['rate_limit'] });
      expect(Math.abs(Number(waiting!.effective_timeout_seconds) - (retry.retryInMs + 60_000) / 1000)).toBeLessThanOrEqual(1);
      expect(await s.exited).toEqual({ code: 0, signal: null });
    });

    it("a subagent's second request with no response since the first is its activity: healthy within the window of the resend, not widened", async () => {
      const lead = `SUBRETRY-LEAD-${version}`;
      const sub = `SUBRETRY-SUB-${version}`;
      server.script(lead, [{ blocks: [agent(`${sub}: summarise`)] }, { blocks: [text('Waiting.')] }, { blocks: [text('Done.')] }]);
      server.script(sub, [[{ status: 429, retryAfter: 6 }, { status: 429, retryAfter: 6 }, { blocks: [text('Summary written.')] }]]);
      const s = startClaude({ server, version, prompt: `${lead}: dispatch` });
      const [agentId] = await until(() => (s.subagentIds().length ? s.subagentIds() : undefined), 60_000, 'the subagent transcript');
      const file = path.join(s.subagentsDir, `agent-${agentId}.jsonl`);
      const stateDir = tempDir();
      writeWave(stateDir, 'E-SR', new Date().toISOString(), [
        { task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', agent_id: agentId, session_id: s.sessionId },
      ]);
      await until(() => lines(file).filter((r) => r.type === 'api-request').length >= 2, 60_000, 'the second api-request in the subagent transcript');
      expect(lines(file).some((r) => r.type === 'system' && r.subtype === 'api_error')).toBe(false);
      // 7 s after the resend, inside a 10 s window counted from it (the first request is 13 s back).
      const [waiting] = await judge({ stateDir, epic: 'E-SR', claudeDir: s.claudeDir, aheadMs: 7_000, args: ['--timeout', '10'] });
      expect(waiting, JSON.stringify(waiting)).toMatchObject({ verdict: 'healthy', effective_timeout_seconds: 10 });
      expect(waiting!.exemptions ?? []).not.toContain('rate_limit');
      expect(await s.exited).toEqual({ code: 0, signal: null });
    });
  },
  { timeout: 120_000 },
);
