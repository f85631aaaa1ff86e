// The walls a replacement would meet too, on every version. Refused credentials (a revoked or
// mistyped API key, an expired login): Claude Code retries a 401 (twice with
// CLAUDE_CODE_MAX_RETRIES=2) and gives up at once on a 403, writing "Failed to authenticate. API
// Error: 40x …" with `error: "authentication_failed"`, in the main session and in a subagent alike;
// the plugin's StopFailure hook says `authentication_failed`: `auth_failed`, escalated at once.
// An API key out of credits: "Credit balance is too low", `error: "billing_error"`, no retry: a
// `usage_limit`, escalated. Before, both were `api_gave_up`: redispatched up to the redispatch
// limit, each replacement refused within seconds.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALL_VERSIONS, describeVersions, startClaude } from '../helpers/claude-session.js';
import { runToGiveUp } from '../helpers/give-up.js';
import { agent, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { judge, judgeHooksAlone } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const REFUSED = /^the API refused the agent's credentials: Failed to authenticate\. API Error: 40[13] /;

describeVersions(
  ALL_VERSIONS,
  "the API refusing the agent's credentials",
  (version) => {
    it('a 403 in the main session: auth_failed from the transcript, from its stream, and from the StopFailure hook alone', async () => {
      const marker = `REFUSED-${version}`;
      server.script(marker, [[{ status: 403 }, { blocks: [text('never reached')] }]]);
      const { s, stateDir, stopFailure } = await runToGiveUp({ server, version, prompt: `${marker}: go` });
      expect(stopFailure).toMatchObject({ error: 'authentication_failed' });
      writeWave(stateDir, 'E-AR', new Date().toISOString(), [
        { task_id: 'session', ticket_id: 'P-1', status: 'in_progress', session_id: s.sessionId },
        { task_id: 'stream', ticket_id: 'P-2', status: 'in_progress', transcript_path: s.streamPath },
      ]);
      expect(server.of(marker)).toHaveLength(1);
      expect(s.transcript().find((r) => r.type === 'assistant' && r.isApiErrorMessage === true)).toMatchObject({
        error: 'authentication_failed',
        apiErrorStatus: 403,
      });
      for (const t of await judge({ stateDir, epic: 'E-AR', claudeDir: s.claudeDir, args: ['--timeout', '60'] })) {
        expect(t, JSON.stringify(t)).toMatchObject({ verdict: 'stalled' });
        expect(t.reason).toMatch(REFUSED);
      }
      const fromHook = await judgeHooksAlone({ sessionId: s.sessionId, lines: [stopFailure!], args: ['--timeout', '60'] });
      expect(fromHook, JSON.stringify(fromHook)).toMatchObject({ verdict: 'stalled' });
      expect(fromHook.reason).toBe("the API refused the agent's credentials: StopFailure: authentication_failed");
    });

    it('an API key out of credits: a usage_limit stall, from the transcript and the StopFailure hook alone', async () => {
      const marker = `NOCREDIT-${version}`;
      const errorBody = {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
        },
      };
      server.script(marker, [[{ status: 400, errorBody }, { blocks: [text('never reached')] }]]);
      const { s, stateDir, stopFailure } = await runToGiveUp({ server, version, prompt: `${marker}: go` });
      expect(stopFailure).toMatchObject({ error: 'billing_error' });
      writeWave(stateDir, 'E-NC', new Date().toISOString(), [{ task_id: 'session', ticket_id: 'P-1', status: 'in_progress', session_id: s.sessionId }]);
      expect(server.of(marker)).toHaveLength(1);
      expect(s.transcript().find((r) => r.type === 'assistant' && r.isApiErrorMessage === true)).toMatchObject({ error: 'billing_error', apiErrorStatus: 400 });
      const [row] = await judge({ stateDir, epic: 'E-NC', claudeDir: s.claudeDir, args: ['--timeout', '60'] });
      expect(row, JSON.stringify(row)).toMatchObject({ verdict: 'stalled' });
      expect(row!.reason).toBe('the agent hit its usage limit: Credit balance is too low');
      const fromHook = await judgeHooksAlone({ sessionId: s.sessionId, lines: [stopFailure!], args: ['--timeout', '60'] });
      expect(fromHook.reason).toBe('the agent hit its usage limit: StopFailure: billing_error');
    });

    it('a 401 in a subagent, after its retries: its row is auth_failed', async () => {
      const lead = `REFUSEDLEAD-${version}`;
      const sub = `REFUSEDSUB-${version}`;
      server.script(lead, [{ blocks: [agent(`${sub}: go`)] }, { blocks: [text('The subagent was refused.')] }, { blocks: [text('Done.')] }]);
      server.script(sub, [[{ status: 401 }, { status: 401 }, { status: 401 }, { blocks: [text('never reached')] }]]);
      const s = startClaude({ server, version, prompt: `${lead}: go`, env: { CLAUDE_CODE_MAX_RETRIES: '2' } });
      expect((await s.exited).code).toBe(0);
      expect(server.of(sub)).toHaveLength(3);
      const [agentId] = s.subagentIds();
      const stateDir = tempDir();
      writeWave(stateDir, 'E-AS', new Date().toISOString(), [
        { task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', agent_id: agentId, session_id: s.sessionId },
      ]);
      const [row] = await judge({ stateDir, epic: 'E-AS', claudeDir: s.claudeDir, args: ['--timeout', '60'] });
      expect(row, JSON.stringify(row)).toMatchObject({ verdict: 'stalled' });
      expect(row!.reason).toMatch(REFUSED);
    });
  },
  { timeout: 120_000 },
);
