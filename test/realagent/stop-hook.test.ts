// The plugin's Stop hook ends a `claude -p` agent's row at once, on the real Claude Code 2.1.197:
// the plugin loaded with --plugin-dir (this checkout: hooks/hooks.json runs bundle/hook.cjs), its
// hook writing activity/ into the watchdog's state dir. 2.1.197's `-p` transcripts have no turn-end
// record, so without the hook the end is inferred from the final answer and counts only once a
// whole window has passed; with it, the watchdog sees the definite finish on its next check. The
// same session without the plugin, run beside it, is still "healthy" then, or finished at once when
// the watchdog saw its run end (sessions/<pid>.json), never stalled.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALL_VERSIONS, describeVersions, startClaude } from '../helpers/claude-session.js';
import type { ClaudeVersion } from '../helpers/claude-session.js';
import { REPO_ROOT, until } from '../helpers/cli.js';
import { bash, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { startWatchdog } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const WINDOW_S = 60;

/** A -p agent that runs one Bash call and answers, watched by a watchdog with a long window; `plugin`: loaded with --plugin-dir. */
async function finishingAgent(version: ClaudeVersion, name: string, plugin: boolean) {
  server.script(name, [{ blocks: [bash('echo implemented')] }, { blocks: [text('P-1 is done.')] }]);
  const stateDir = tempDir();
  const home = tempDir('dw-home-');
  const sessionId = crypto.randomUUID();
  writeWave(stateDir, `E-${name}`, new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: sessionId }]);
  const w = startWatchdog({ stateDir, epic: `E-${name}`, claudeDir: `${home}/.claude`, args: ['--timeout', String(WINDOW_S)] });
  const s = startClaude({
    server,
    version,
    prompt: `${name}: implement P-1`,
    home,
    sessionId,
    ...(plugin ? { pluginDir: REPO_ROOT, env: { ONEX_STATE_DIR: stateDir } } : {}),
  });
  return { w, s, stateDir, sessionId };
}

describeVersions(
  ALL_VERSIONS,
  "the plugin's Stop hook on a real claude -p agent",
  (version) => {
    it('ends the row at the next check, not a window after the final answer; without the plugin it is still healthy then', async () => {
      const [hooked, bare] = await Promise.all([
        finishingAgent(version, `STOP-HOOKED-${version}`, true),
        finishingAgent(version, `STOP-BARE-${version}`, false),
      ]);
      expect(await hooked.s.exited).toEqual({ code: 0, signal: null });
      expect(await bare.s.exited).toEqual({ code: 0, signal: null });
      const bareEndedMs = Date.now();
      const activity = path.join(hooked.stateDir, 'activity', `${hooked.sessionId}.ndjson`);
      const stop = await until(
        () => {
          try {
            return readFileSync(activity, 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as { ts: string; event: string })
              .find((l) => l.event === 'Stop');
          } catch {
            return undefined;
          }
        },
        30_000,
        'the Stop line in activity/',
      );
      const finished = await hooked.w.waitTask('t1', (t) => t.verdict === 'inconsistent', 'the hooked agent seen finished', 30_000);
      expect(finished.reason).toMatch(/^agent finished/);
      expect(finished.sources).toEqual(expect.arrayContaining(['hooks', 'transcript']));
      // The first check after the Stop line says so (checks are a second apart at --check-interval 1).
      // 2.1.197 has only the hook's line; 2.1.332 also writes `stop_hook_summary` into the transcript
      // when a Stop hook is configured, whichever of the two is read first names the finish.
      expect(finished.reason).toMatch(version === '2.1.197' ? /\(Stop\)/ : /\((Stop|turn ended)\)/);
      const first = await until(() => hooked.w.checks().find((c) => c.tasks[0]?.verdict === 'inconsistent'), 30_000, 'the check on stdout');
      const checks = hooked.w.checks();
      const lateMs = Date.parse(first.check_timestamp) - Date.parse(stop.ts);
      expect(lateMs, `seen ${lateMs} ms after the Stop line`).toBeLessThan(WINDOW_S * 1000);
      if (os.loadavg()[0]! <= 8) {
        expect(lateMs, `seen ${lateMs} ms after the Stop line`).toBeLessThan(2_000);
        expect(checks.filter((c) => Date.parse(c.check_timestamp) > Date.parse(stop.ts) + 1_500 && c.tasks[0]?.verdict !== 'inconsistent')).toEqual([]);
      }
      // The same session without the hook: its end is inferred from the final answer, and counts only
      // after the window, unless the watchdog saw the run end (its sessions/<pid>.json came and went
      // between two checks: issue 38), when the final answer is a finish at once. Never a stall.
      await until(() => bare.w.checks().some((c) => Date.parse(c.check_timestamp) > bareEndedMs + 1_000), 30_000, 'a check of the bare agent after its end');
      const bareAfter = bare.w.checks().filter((c) => Date.parse(c.check_timestamp) > bareEndedMs);
      for (const t of bareAfter.map((c) => c.tasks[0]))
        expect(t?.verdict === 'healthy' || (t?.verdict === 'inconsistent' && /^agent finished/.test(t.reason)), `${t?.verdict}: ${t?.reason}`).toBe(true);
    });
  },
  { timeout: 120_000 },
);
