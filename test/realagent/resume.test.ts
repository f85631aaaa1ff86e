// Resume instead of restart, on the real thing: a real `claude -p` session whose stream freezes after
// a completed Bash call is stalled with a transport cause (frozen_stream); the watchdog (process
// adapter, agents.resume_argv) kills the real pid and runs `claude --resume <session_id> -p
// <resume prompt>` in the session's own cwd, and the resumed run's first request to the API carries
// the whole prior conversation (the Bash result included), then the resume prompt. The watchdog runs
// elsewhere, with another HOME and Claude Code's config dir given only as claude.config_dir.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { CLAUDE_BIN, claudeEnv, claudeSkip, startClaude } from '../helpers/claude-session.js';
import { runCli, until } from '../helpers/cli.js';
import { bash, contentText, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

describe.skipIf(claudeSkip !== undefined)('resume a real claude -p session', { timeout: 120_000 }, () => {
  it("a frozen stream is resumed in the agent's own session: the resumed run's first request carries the prior conversation", async () => {
    const marker = 'RESUME-REAL-1';
    // Turn 0: a Bash call that completes. Turn 1: the stream freezes mid-message (Claude Code
    // would abandon it only after ~300 s). The resumed run's turn 1 answers and ends.
    let frozen = true;
    server.script(marker, [
      { blocks: [bash('echo step-one-done')] },
      (r) => (frozen && r.attempt === 0 ? { blocks: [text('half an answ')], freeze: 'mid_message' } : { blocks: [text('Finished after the resume.')] }),
    ]);
    const stateDir = tempDir();
    const dispatchedAt = new Date(Date.now() - 1000).toISOString();
    const s = startClaude({ server, prompt: `${marker}: do the work` });
    await server.waitFor((r) => r.agent === marker && r.turn === 1, 60_000, 'the request that freezes');
    frozen = false;
    const resumeArgv = [
      CLAUDE_BIN,
      '--resume',
      '{session_id}',
      '-p',
      '{prompt}',
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
    ];
    // Claude Code's config dir comes from the config file alone (the watchdog's HOME is another):
    // the resume must get it as CLAUDE_CONFIG_DIR to find the session, and run in the session's cwd.
    writeFileSync(
      path.join(stateDir, 'watchdog.config.yaml'),
      JSON.stringify({
        agents: { adapter: 'process', kill_grace_ms: 500, redispatch_argv: ['false'], resume_argv: resumeArgv },
        claude: { config_dir: s.claudeDir },
      }),
    );
    writeWave(stateDir, 'E-RS', dispatchedAt, [
      { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: dispatchedAt, session_id: s.sessionId, pid: s.pid },
    ]);
    // The resumed claude is launched by the watchdog, not by the helper: kill it when the test ends.
    onTestFinished(() => {
      for (const e of readEvents(stateDir))
        if (e.event === 'redispatch' && typeof e.pid === 'number')
          try {
            process.kill(e.pid, 'SIGKILL');
          } catch {
            /* gone */
          }
    });
    const env = claudeEnv(server, tempDir('dw-watchdog-home-'));
    // One check once the window (2 s) has passed since the Bash result: stalled, transport cause, resumed.
    await new Promise((r) => setTimeout(r, 2_500));
    const r = await runCli(['--epic-id', 'E-RS', '--state-dir', stateDir, '--timeout', '2', '--once', '--json'], { env });
    expect(r.code, r.stderr).toBe(3);
    expect(readEvents(stateDir).find((e) => e.event === 'action_started')).toMatchObject({
      action: 'redispatch',
      mode: 'resume',
      transport_cause: 'frozen_stream',
    });
    expect(await s.exited).not.toEqual({ code: 0, signal: null }); // the frozen run was stopped
    const resumed = await server.waitFor(
      (q) => q.agent === marker && contentText(q.body.messages.at(-1)?.content).includes('Continue where you left off'),
      60_000,
      "the resumed run's first request",
    );
    const conversation = JSON.stringify(resumed.body.messages);
    expect(conversation).toContain(`${marker}: do the work`);
    expect(conversation).toContain('step-one-done'); // the Bash result of the first run
    expect(readEvents(stateDir).find((e) => e.event === 'redispatch')).toMatchObject({ mode: 'resume', recovery_task_id: 't1-r1', pid: expect.any(Number) });
    await until(() => server.requests.some((q) => q === resumed && q.outcome === 'complete'), 30_000, 'the resumed answer');
    // The resumed run wrote on in the session's own transcript (found under the configured dir), where the watchdog reads it.
    await until(
      () => s.transcript().some((q) => q.type === 'last-prompt' && String(q.lastPrompt).startsWith('Continue where you left off')),
      30_000,
      'the resumed run in the session transcript',
    );
  });
});
