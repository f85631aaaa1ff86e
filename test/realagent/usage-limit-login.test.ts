// The plan's usage limit with a claude.ai login (CLAUDE_CODE_OAUTH_TOKEN: what a subscriber's
// agents run on), measured on every version: a 429 with Anthropic's unified rate-limit headers is
// given up on at once, without a retry, in the main session and in a subagent alike. 2.1.33x names
// the limit in the give-up record (`apiError: "usage_limit_reached"`, `quotaLimits`: the window and
// its reset); 2.1.197 only in words ("You've hit your session limit · resets …"). Either way it is
// a `usage_limit` stall (escalated: a replacement would hit the same wall until the reset), not an
// API give-up to resume or redispatch into it, as it was judged before. The plugin's StopFailure
// hook fires for the same give-up just after the record: the record, which names more, tells it;
// the hook alone says usage_limit from its message. (With an API key, Claude Code retries instead,
// and the retries name the limit: api-request-retry.test.ts.)
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALL_VERSIONS, describeVersions, OLDEST, readRecords, startClaude } from '../helpers/claude-session.js';
import { agent, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { runToGiveUp } from '../helpers/give-up.js';
import { judge, judgeHooksAlone } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import path from 'node:path';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

/** A claude.ai login instead of an API key (the token is never checked by the scripted server). */
const LOGIN = { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-scripted', ANTHROPIC_API_KEY: '' };

/** A 429 to a subscription past its 5-hour window, resetting at `resetsAt` (epoch s). */
const pastFiveHourWindow = (resetsAt: number) => ({
  status: 429,
  headers: {
    'anthropic-ratelimit-unified-status': 'rejected',
    'anthropic-ratelimit-unified-reset': String(resetsAt),
    'anthropic-ratelimit-unified-representative-claim': 'five_hour',
  },
});

/** What each version's give-up record says of the limit, and so what the reason adds to its words. */
function expectNamedLimit(giveUp: Record<string, any> | undefined, version: string, resetsAt: number): string {
  expect(giveUp, 'the give-up record').toBeDefined();
  expect(giveUp!.message.content[0].text).toMatch(/^You've hit your (session|5-hour) limit · resets /);
  if (version === OLDEST) {
    expect(giveUp!.quotaLimits).toBeUndefined();
    return "(the plan's usage limit)";
  }
  expect(giveUp).toMatchObject({ apiError: 'usage_limit_reached', quotaLimits: { status: 'rejected', resetsAt, rateLimitType: 'five_hour' } });
  return `(the plan's five hour usage limit, resets at ${new Date(resetsAt * 1000).toISOString()})`;
}

describeVersions(
  ALL_VERSIONS,
  "a claude.ai login at the plan's usage limit",
  (version) => {
    it('the main session gives up at once; the session and its stream-json output are both a usage_limit stall', async () => {
      const marker = `LOGINLIMIT-${version}`;
      const resetsAt = Math.floor(Date.now() / 1000) + 3600;
      server.script(marker, [[pastFiveHourWindow(resetsAt), { blocks: [text('never reached')] }]]);
      // With this checkout's plugin: its StopFailure hook fires for the same give-up, after the record.
      const { s, stateDir, stopFailure } = await runToGiveUp({ server, version, prompt: `${marker}: summarise`, env: LOGIN });
      writeWave(stateDir, 'E-LL', new Date().toISOString(), [
        { task_id: 'session', ticket_id: 'P-1', status: 'in_progress', session_id: s.sessionId },
        { task_id: 'stream', ticket_id: 'P-2', status: 'in_progress', transcript_path: s.streamPath },
      ]);
      // No retry: one request, and no retry record.
      expect(server.of(marker)).toHaveLength(1);
      expect(s.transcript().some((r) => r.type === 'system' && r.subtype === 'api_error')).toBe(false);
      const words = expectNamedLimit(
        s.transcript().find((r) => r.type === 'assistant' && r.isApiErrorMessage === true),
        version,
        resetsAt,
      );
      expect(stopFailure).toMatchObject({ error: 'rate_limit', last_message: expect.stringMatching(/^You've hit your (session|5-hour) limit/) });
      // The transcript (with the hook beside it) and the stream: the record's own words and reset.
      const tasks = await judge({ stateDir, epic: 'E-LL', claudeDir: s.claudeDir, args: ['--timeout', '60'] });
      for (const t of tasks) {
        expect(t, JSON.stringify(t)).toMatchObject({ verdict: 'stalled' });
        expect(t.reason).toMatch(/^the agent hit its usage limit: You've hit your (session|5-hour) limit · resets /);
        expect(t.reason).toContain(words);
      }
      // The hook alone (a watchdog out of reach of the transcripts): its message names the limit too.
      const fromHook = await judgeHooksAlone({ sessionId: s.sessionId, lines: [stopFailure!], args: ['--timeout', '60'] });
      expect(fromHook, JSON.stringify(fromHook)).toMatchObject({ verdict: 'stalled' });
      expect(fromHook!.reason).toMatch(/^the agent hit its usage limit: StopFailure: rate_limit \(You've hit your (session|5-hour) limit · resets /);
    });

    it("a subagent gives up at once too: its row is a usage_limit stall, its lead's is not", async () => {
      const lead = `LOGINLEAD-${version}`;
      const sub = `LOGINSUB-${version}`;
      const resetsAt = Math.floor(Date.now() / 1000) + 3600;
      server.script(lead, [{ blocks: [agent(`${sub}: summarise`)] }, { blocks: [text('The subagent hit the limit.')] }, { blocks: [text('Done.')] }]);
      server.script(sub, [[pastFiveHourWindow(resetsAt), { blocks: [text('never reached')] }]]);
      const s = startClaude({ server, version, prompt: `${lead}: dispatch`, env: LOGIN });
      expect((await s.exited).code).toBe(0);
      const [agentId] = s.subagentIds();
      expect(agentId, 'the subagent transcript').toBeDefined();
      const words = expectNamedLimit(
        readRecords(path.join(s.subagentsDir, `agent-${agentId}.jsonl`)).find((r) => r.type === 'assistant' && r.isApiErrorMessage === true),
        version,
        resetsAt,
      );
      const stateDir = tempDir();
      writeWave(stateDir, 'E-LS', new Date().toISOString(), [
        { task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', agent_id: agentId, session_id: s.sessionId },
        { task_id: 'stream', ticket_id: 'P-2', status: 'in_progress', transcript_path: s.streamPath },
      ]);
      const [subRow, streamRow] = await judge({ stateDir, epic: 'E-LS', claudeDir: s.claudeDir, args: ['--timeout', '60'] });
      expect(subRow, JSON.stringify(subRow)).toMatchObject({ verdict: 'stalled' });
      expect(subRow!.reason).toMatch(/^the agent hit its usage limit: /);
      expect(subRow!.reason).toContain(words);
      // The lead answered the failure and finished (its row not yet marked done): a subagent's
      // give-up in its stream (2.1.33x streams the subagent's records) is not the lead's.
      expect(streamRow, JSON.stringify(streamRow)).toMatchObject({ verdict: 'inconsistent' });
      expect(streamRow!.reason).toMatch(/^agent finished \(result success\)/);
    });

    // Background subagents (2.1.332+; 2.1.197's Agent call waits for its subagent in the foreground).
    it.skipIf(version === OLDEST)("a `-p` lead at the limit, woken by its subagent's failure: still usage_limit, not a run that ended", async () => {
      const lead = `LOGINWOKEN-${version}`;
      const sub = `LOGINWOKENSUB-${version}`;
      const resetsAt = Math.floor(Date.now() / 1000) + 3600;
      server.script(lead, [{ blocks: [agent(`${sub}: summarise`)] }, [pastFiveHourWindow(resetsAt), { blocks: [text('never reached')] }]]);
      server.script(sub, [[pastFiveHourWindow(resetsAt), { blocks: [text('never reached')] }]]);
      const s = startClaude({ server, version, prompt: `${lead}: dispatch`, env: LOGIN });
      await s.exited;
      // The woken turn is refused without a request and without a transcript record: the
      // transcript ends on the notification that woke it (only the stream-json output has the refusal).
      expect(server.of(lead)).toHaveLength(2);
      const last = s
        .transcript()
        .filter((r) => r.type === 'user' || r.type === 'assistant')
        .at(-1);
      expect(JSON.stringify(last?.message?.content)).toContain('<task-notification>');
      const stateDir = tempDir();
      writeWave(stateDir, 'E-LW', new Date().toISOString(), [{ task_id: 'lead', ticket_id: 'P-1', status: 'in_progress', session_id: s.sessionId }]);
      const [row] = await judge({ stateDir, epic: 'E-LW', claudeDir: s.claudeDir, aheadMs: 300_000, args: ['--timeout', '60'] });
      expect(row, JSON.stringify(row)).toMatchObject({ verdict: 'stalled' });
      expect(row!.reason).toMatch(/^the agent hit its usage limit: You've hit your 5-hour limit · resets /);
    });
  },
  { timeout: 120_000 },
);
