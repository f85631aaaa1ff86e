// Rate-limit backoffs on real sessions (issue 17 item 1): Claude Code 2.1.197 writes its retries
// only to the `claude -p --output-format stream-json` output (`system/api_retry`, no timestamp
// before 2.1.337, which stamps it `written_at`).
// A row whose transcript_path is that file is never stalled while Claude Code waits out a
// `retry-after` longer than the window, nor during 529 retries without one; the give-up is acted
// on at once (`api_gave_up`).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { ALL_VERSIONS, describeVersions, NEWEST, startClaude } from '../helpers/claude-session.js';
import { runCli, until } from '../helpers/cli.js';
import { startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

/** Judge the wave once, as of `aheadMs` from now (then nothing is journaled), with a 5 s window. */
async function judge(stateDir: string, claudeDir: string, aheadMs = 0) {
  const args = ['--epic-id', 'E-RL', '--state-dir', stateDir, '--action', 'report', '--json', '--timeout', '5'];
  const r = await runCli(aheadMs ? [...args, '--now', new Date(Date.now() + aheadMs).toISOString()] : [...args, '--once'], {
    env: { CLAUDE_CONFIG_DIR: claudeDir },
  });
  return { code: r.code, task: JSON.parse(r.stdout).tasks[0] as Record<string, any> };
}

/** The stream file's size and mtime, and the judged row as of `aheadMs` from its mtime, taken while the file did not change. */
async function stableJudge(stateDir: string, claudeDir: string, file: string, aheadMs: number) {
  for (let i = 0; ; i++) {
    const before = statSync(file);
    const { task } = await judge(stateDir, claudeDir, before.mtimeMs + aheadMs - Date.now());
    const after = statSync(file);
    if ((before.size === after.size && before.mtimeMs === after.mtimeMs) || i >= 20) return { task, mtimeMs: after.mtimeMs };
  }
}

describeVersions(
  ALL_VERSIONS,
  'API retries of a real claude -p session, from its stream-json output',
  (version) => {
    it('a retry-after longer than the window is waited out, and the run goes on', async () => {
      const marker = `RETRYAFTER-${version}`;
      server.script(marker, [[{ status: 429, retryAfter: 8 }, { status: 429, retryAfter: 8 }, { blocks: [text('Done after the limit lifted.')] }]]);
      const s = startClaude({ server, prompt: `${marker}: summarise`, env: { CLAUDE_CODE_MAX_RETRIES: '3' }, version });
      const stateDir = tempDir();
      writeWave(stateDir, 'E-RL', new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', transcript_path: s.streamPath }]);
      await until(() => s.stream().some((r) => r.type === 'system' && r.subtype === 'api_retry'), 60_000, 'the first api_retry line');
      // The retry, the newest line, is the agent's last activity: dated by its own `written_at`
      // (2.1.337 stamps every undated stream-json record), else by the file's mtime (its last write).
      const retryRecord = s.stream().find((r) => r.subtype === 'api_retry')!;
      if (version === NEWEST) expect(typeof retryRecord.written_at).toBe('string');
      const later = await stableJudge(stateDir, s.claudeDir, s.streamPath, 4_000);
      const lastLine = s.stream().at(-1)!;
      expect(lastLine.subtype).toBe('api_retry');
      const lastMs = typeof lastLine.written_at === 'string' ? Date.parse(lastLine.written_at) : later.mtimeMs;
      expect(Math.abs(later.mtimeMs - lastMs)).toBeLessThan(1_000);
      expect(later.task.idle_seconds, JSON.stringify(later.task)).toBe(Math.round((later.mtimeMs + 4_000 - lastMs) / 1000));
      // 6 s into an 8 s wait, past the 5 s window: backing off, not stalled.
      const waiting = await judge(stateDir, s.claudeDir, 6_000);
      expect(waiting.task, JSON.stringify(waiting.task)).toMatchObject({ verdict: 'healthy', exemptions: ['rate_limit'] });
      // The window is the wait announced plus 60 s grace: 2.1.197 waits the retry-after exactly
      // (8000 ms), 2.1.332 adds its own margin (8000–10500 ms measured).
      const delay = Number(s.stream().find((r) => r.subtype === 'api_retry')?.retry_delay_ms);
      if (version === '2.1.197') expect(delay).toBe(8000);
      else expect(delay).toBeGreaterThanOrEqual(8000);
      expect(Math.abs(waiting.task.effective_timeout_seconds - (delay + 60_000) / 1000)).toBeLessThanOrEqual(1);
      expect(await s.exited).toEqual({ code: 0, signal: null });
      expect(
        s
          .stream()
          .filter((r) => r.subtype === 'api_retry')
          .map((r) => [r.attempt, r.error_status]),
      ).toEqual([
        [1, 429],
        [2, 429],
      ]);
      expect(server.of(marker)).toHaveLength(3);
    });

    it('529s without retry-after are backoff while retried; the give-up is acted on at once', async () => {
      const marker = `OVERLOADED-${version}`;
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      // The second retry is held until the test has judged the wait; every attempt is a 529.
      server.script(marker, [(req) => (req.attempt === 2 ? { status: 529, hold: gate } : { status: 529 })]);
      const s = startClaude({ server, prompt: `${marker}: summarise`, env: { CLAUDE_CODE_MAX_RETRIES: '2' }, version });
      const stateDir = tempDir();
      writeWave(stateDir, 'E-RL', new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', transcript_path: s.streamPath }]);
      await server.waitFor((r) => r.agent === marker && r.attempt === 2, 60_000, 'the second retry');
      const retrying = await judge(stateDir, s.claudeDir, 6_000);
      expect(retrying.task, JSON.stringify(retrying.task)).toMatchObject({ verdict: 'healthy', exemptions: ['rate_limit'] });
      release();
      expect((await s.exited).code).toBe(1);
      expect(s.stream().at(-1)).toMatchObject({ type: 'result', is_error: true, api_error_status: 529 });
      const gaveUp = await judge(stateDir, s.claudeDir);
      expect(gaveUp.code).toBe(3);
      expect(gaveUp.task, JSON.stringify(gaveUp.task)).toMatchObject({ verdict: 'stalled' });
      expect(gaveUp.task.reason).toMatch(/gave up on an API error \(overloaded\)/);
    });
  },
  { timeout: 120_000 },
);
