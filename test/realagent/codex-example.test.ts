// examples/codex-wave.sh as a user runs it (issue 35 item 4): real `codex exec` 0.171.0 agents
// against the scripted Responses server, recorded as the Codex rows docs/codex.md describes, and
// judged by the real CLI.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { CODEX_BIN, codexEnv, codexSkip, processesOfHome, writeCodexConfig } from '../helpers/codex-session.js';
import { say, startResponsesServer, type ResponsesServer } from '../helpers/responses-server.js';
import { readWatchdogJson } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const HAS_JQ = spawnSync('jq', ['--version']).status === 0;

describe.skipIf(codexSkip !== undefined || !HAS_JQ)(`examples/codex-wave.sh (skipped: ${codexSkip ?? (HAS_JQ ? 'no' : 'no jq')})`, () => {
  let server: ResponsesServer;
  beforeAll(async () => (server = await startResponsesServer()));
  afterAll(() => server.close());

  it('launches each ticket, records agent codex with its thread, pid, rollout and stdout, and the watchdog reads them', async () => {
    server.script('EX-CX-1', [{ items: [say('done one')] }]);
    server.script('EX-CX-2', [{ items: [say('done two')] }]);
    const dir = tempDir('dw-cxwave-');
    const home = path.join(dir, 'codex-home');
    mkdirSync(path.join(home, 'home'), { recursive: true });
    writeCodexConfig(home, server);
    onTestFinished(() => {
      for (const p of processesOfHome(home)) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    });
    writeFileSync(path.join(dir, 'tickets.tsv'), 'PROJ-1\tEX-CX-1 do one\nPROJ-2\tEX-CX-2 do two\n');
    const env = { ...codexEnv(path.join(home, 'home'), home), ONEX_STATE_DIR: path.join(dir, 'state'), CODEX: CODEX_BIN };
    const run = spawnSync('bash', [path.join(REPO_ROOT, 'examples', 'codex-wave.sh'), 'CXW-1', path.join(dir, 'tickets.tsv')], {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/recorded 2 agents/);
    const state = JSON.parse(readFileSync(path.join(dir, 'state', 'epics', 'CXW-1', 'state.yaml'), 'utf8'));
    const rows = state.current_wave.tasks;
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r).toMatchObject({ agent: 'codex', status: 'in_progress' });
      expect(r.transcript_path).toMatch(new RegExp(`/sessions/\\d{4}/\\d{2}/\\d{2}/rollout-.*-${r.session_id}\\.jsonl$`));
      expect(readFileSync(r.output_path, 'utf8')).toContain(r.session_id);
    }
    // Both answer at once: once each has written its task_complete, the watchdog sees them finished.
    const done = () => rows.every((r: Record<string, string>) => readFileSync(r.transcript_path!, 'utf8').includes('"task_complete"'));
    for (let i = 0; i < 600 && !done(); i++) await new Promise((res) => setTimeout(res, 50));
    const cli = await runCli(['--epic-id', 'CXW-1', '--state-dir', path.join(dir, 'state'), '--once', '--action', 'report', '--json'], {
      env: { CODEX_HOME: home },
    });
    expect(cli.code, cli.stderr).toBe(0);
    const verdicts = readWatchdogJson(path.join(dir, 'state'), 'CXW-1').tasks.map((t: Record<string, string>) => t.verdict);
    expect(verdicts).toEqual(['inconsistent', 'inconsistent']); // finished; the rows still say in progress
  });
});
