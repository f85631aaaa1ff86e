// API retries in real 2.1.332 transcripts (issue 38 item 2): the main session writes a
// `system/api_error` record per retry with the wait it announces (`retryInMs`): healthy until the
// retry is due plus grace, though the base window is shorter. A subagent's retries write no such
// record, but every attempt is an `api-request` record: two requests with no response between them
// are a resend, and a backoff's next resend is due within about twice the gap before it (a
// constant `retry-after` or exponential backoff): healthy until then (`api_resend`), past the base
// window, and stalled once it is overdue. Never named a rate limit, since a frozen stream's resend
// looks the same (replay-real-2332.test.ts: flagged at the same bound). (2.1.197 writes neither: its retries are known only
// from `-p` stream-json, api-retry.test.ts.) A 429 that names the plan's usage limit (Anthropic's
// unified rate-limit headers) is named in each retry (`error.rateLimits`), and the give-up after
// it is `usage_limit`: escalated, never redispatched into the same wall.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALL_VERSIONS, describeVersions, NEWEST, OLDEST, readRecords, startClaude } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { agent, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { judge, startWatchdog } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import path from 'node:path';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

/** What Anthropic's API sends with a 429 to a subscription past its 5-hour window (the unified rate-limit headers), resetting at `resetsAt` (epoch s). */
const pastFiveHourWindow = (resetsAt: number) => ({
  'anthropic-ratelimit-unified-status': 'rejected',
  'anthropic-ratelimit-unified-reset': String(resetsAt),
  'anthropic-ratelimit-unified-representative-claim': 'five_hour',
});

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

    it("a subagent's 429 backoff (resends, no retry record) is healthy while its next resend is plausible, and stalled once overdue", async () => {
      const lead = `SUBRETRY-LEAD-${version}`;
      const sub = `SUBRETRY-SUB-${version}`;
      server.script(lead, [{ blocks: [agent(`${sub}: summarise`)] }, { blocks: [text('Waiting.')] }, { blocks: [text('Done.')] }]);
      // Backoff that grows: 4 s, then 14 s (past the 10 s window); then the answer.
      server.script(sub, [[{ status: 429, retryAfter: 4 }, { status: 429, retryAfter: 14 }, { blocks: [text('Summary written.')] }]]);
      const s = startClaude({ server, version, prompt: `${lead}: dispatch` });
      const [agentId] = await until(() => (s.subagentIds().length ? s.subagentIds() : undefined), 60_000, 'the subagent transcript');
      const file = path.join(s.subagentsDir, `agent-${agentId}.jsonl`);
      const stateDir = tempDir();
      writeWave(stateDir, 'E-SR', new Date().toISOString(), [
        { task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', agent_id: agentId, session_id: s.sessionId },
      ]);
      const w = startWatchdog({ stateDir, epic: 'E-SR', claudeDir: s.claudeDir, args: ['--timeout', '10'] });
      const requests = () => readRecords(file).filter((r) => r.type === 'api-request');
      await until(() => requests().length >= 2, 60_000, 'the second api-request in the subagent transcript');
      expect(readRecords(file).some((r) => r.type === 'system' && r.subtype === 'api_error')).toBe(false);
      const [first, second] = requests().map((r) => Date.parse(r.timestamp));
      const gapMs = second! - first!;
      // Its next resend is due within twice that gap plus 10 s: that is the window, not the base 10 s.
      const bound = 2 * gapMs + 10_000;
      const [overdue] = await judge({
        stateDir,
        epic: 'E-SR',
        claudeDir: s.claudeDir,
        aheadMs: second! + bound + 3_000 - Date.now(),
        args: ['--timeout', '10'],
      });
      if (requests().length === 2) {
        // No blanket exemption: once the resend is overdue it is the stream's stall.
        expect(overdue, JSON.stringify(overdue)).toMatchObject({ verdict: 'stalled' });
        expect(overdue!.reason).toMatch(/no progress for \d+s \(window \d+s\)/);
      }
      await until(() => readRecords(file).some((r) => r.type === 'assistant'), 60_000, 'the answer after the backoff');
      expect(await s.exited).toEqual({ code: 0, signal: null });
      await until(() => w.checks().some((c) => Date.parse(c.check_timestamp) > Date.now() - 500), 30_000, 'a check after the run');
      const seen = w.checks().flatMap((c) => c.tasks.filter((t) => t.task_id === 'sub'));
      // The 14 s wait (past the 10 s window) was healthy, widened by the resend's pace.
      expect(seen.filter((t) => t.verdict === 'stalled')).toEqual([]);
      const widened = seen.find((t) => t.exemptions.includes('api_resend'));
      expect(widened, JSON.stringify(seen.at(-1))).toBeDefined();
      expect(Math.abs(Number(widened!.effective_timeout_seconds) - bound / 1000)).toBeLessThanOrEqual(1);
      expect(widened!.exemptions).not.toContain('rate_limit');
    });
  },
  { timeout: 120_000 },
);

// The plan's usage limit in each retry record: 2.1.332 and 2.1.337 alike (2.1.197 writes no retry record).
describeVersions(
  ALL_VERSIONS.filter((v) => v !== OLDEST),
  "the plan's usage limit in a real transcript",
  (version) => {
    it("a 429 that names the plan's usage limit: each retry says which window and when it resets, and the give-up is a usage_limit stall", async () => {
      const marker = `PLANLIMIT-${version}`;
      const resetsAt = Math.floor(Date.now() / 1000) + 3600;
      const headers = pastFiveHourWindow(resetsAt);
      server.script(marker, [[{ status: 429, headers }, { status: 429, headers }, { status: 429, headers }, { blocks: [text('never reached')] }]]);
      // Two retries, not ten (Claude Code's own knob): the give-up comes in seconds.
      const s = startClaude({ server, version, prompt: `${marker}: summarise`, env: { CLAUDE_CODE_MAX_RETRIES: '2' } });
      const stateDir = tempDir();
      writeWave(stateDir, 'E-PL', new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: s.sessionId }]);
      expect((await s.exited).code).not.toBe(0);
      const retries = s.transcript().filter((r) => r.type === 'system' && r.subtype === 'api_error');
      expect(retries.map((r) => r.error?.rateLimits)).toEqual([
        { rateLimitType: 'five_hour', resetsAt },
        { rateLimitType: 'five_hour', resetsAt },
      ]);
      const [v] = await judge({ stateDir, epic: 'E-PL', claudeDir: s.claudeDir, args: ['--timeout', '60'] });
      // Said only of stall_reason usage_limit (core/assess.ts).
      expect(v, JSON.stringify(v)).toMatchObject({ verdict: 'stalled' });
      expect(v!.reason).toMatch(/^the agent hit its usage limit: /);
      expect(v!.reason).toContain(`(the plan's five hour usage limit, resets at ${new Date(resetsAt * 1000).toISOString()})`);
    });

    it('in unattended retry mode (CLAUDE_CODE_RETRY_WATCHDOG) the same limit is one retry announced until the reset: healthy until then', async () => {
      const marker = `PLANWAIT-${version}`;
      const resetsAt = Math.floor(Date.now() / 1000) + 3600;
      const headers = pastFiveHourWindow(resetsAt);
      server.script(marker, [[{ status: 429, headers }, { blocks: [text('after the reset')] }]]);
      const s = startClaude({ server, version, prompt: `${marker}: summarise`, env: { CLAUDE_CODE_RETRY_WATCHDOG: '1' } });
      const stateDir = tempDir();
      writeWave(stateDir, 'E-PW', new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: s.sessionId }]);
      const retry = await until(() => s.transcript().find((r) => r.type === 'system' && r.subtype === 'api_error'), 60_000, 'the api_error record');
      // Claude Code sleeps until the reset: the announced wait is the hour.
      expect(retry.retryInMs).toBeGreaterThan(3_500_000);
      expect(retry.error?.rateLimits).toEqual({ rateLimitType: 'five_hour', resetsAt });
      // Thirty minutes on, far past the 60 s window: still healthy, held by the announced wait.
      const [waiting] = await judge({ stateDir, epic: 'E-PW', claudeDir: s.claudeDir, aheadMs: 1_800_000, args: ['--timeout', '60'] });
      expect(waiting, JSON.stringify(waiting)).toMatchObject({ verdict: 'healthy', exemptions: ['rate_limit'] });
      expect(Number(waiting!.effective_timeout_seconds)).toBeGreaterThan(3_500);
    });
  },
  { timeout: 120_000 },
);
