// `hook install --codex` on a real `codex exec --json` 0.171.0 session (issue 35 item 2; docs/codex.md
// "Hooks"): the command writes our `[[hooks.<Event>]]` tables into the scratch CODEX_HOME's
// config.toml; Codex, told to trust them (--dangerously-bypass-hook-trust), runs our hook, which
// files its Claude-Code-shaped payloads under activity/<thread id>.ndjson; the Codex harness reads
// them for the row (the rollout's path, the Stop at the turn's end). Its twin without the trust
// flag: Codex runs no hook it does not trust, and nothing is filed. Needs the built bundle/hook.cjs.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexHarness } from '../../src/agents/codex/harness.js';
import { runHookInstall } from '../../src/commands/hook-install.js';
import { hookEntryPath } from '../../src/commands/hook.js';
import { normalizeTask } from '../../src/contracts/state-file.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { StatePaths } from '../../src/files/paths.js';
import { codexSkip, jsonLines, startCodex, until, writeCodexConfig } from '../helpers/codex-session.js';
import { execCommand, say, startResponsesServer, type ResponsesServer } from '../helpers/responses-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const noBundle = existsSync(hookEntryPath()) ? undefined : `no ${hookEntryPath()} (node scripts/bundle.mjs --out bundle)`;
const skip = codexSkip ?? noBundle;

/** A scratch CODEX_HOME with our hook installed by the real command, and a state dir for it to record into. */
async function installed(server: ResponsesServer) {
  const home = tempDir('dw-cxhook-home-');
  const stateDir = tempDir('dw-cxhook-state-');
  mkdirSync(stateDir, { recursive: true });
  writeCodexConfig(home, server);
  const out: string[] = [];
  const output = { out: (s: string) => void out.push(s), err: (s: string) => void out.push(s) };
  const code = await runHookInstall('install', { scope: 'local', isDryRun: false, stateDir, env: { CODEX_HOME: home }, cwd: home, isCodex: true }, output);
  expect(code).toBe(0);
  expect(out.join('')).toMatch(/--dangerously-bypass-hook-trust/);
  return { home, paths: new StatePaths(stateDir) };
}

describe.skipIf(skip !== undefined)(`Codex hooks installed with hook install --codex (skipped: ${skip ?? 'no'})`, () => {
  let server: ResponsesServer;
  beforeAll(async () => (server = await startResponsesServer()));
  afterAll(() => server.close());

  it('fire in a trusted session, are filed by thread id, and are read as evidence for the Codex row', async () => {
    server.script('CX-HOOKED', [{ items: [execCommand('sleep 1; echo hi', { yieldMs: 5000 })] }, { items: [say('done')] }]);
    const { home, paths } = await installed(server);
    expect(readFileSync(path.join(home, 'config.toml'), 'utf8')).toMatch(/\[\[hooks\.PreToolUse\.hooks\]\]/);
    const s = startCodex({ server, prompt: 'CX-HOOKED go', codexHome: home, args: ['--dangerously-bypass-hook-trust'] });
    expect((await s.exited).code).toBe(0);
    const thread = await s.threadId;
    const rollout = s.rolloutPath()!;
    const lines = await until(() => {
      const l = jsonLines(paths.activityFile(thread));
      return l.some((x) => x.event === 'SessionEnd') ? l : undefined;
    }, 'the SessionEnd hook line');
    expect(lines.map((l) => l.event)).toEqual(expect.arrayContaining(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd']));
    expect(lines.find((l) => l.event === 'PreToolUse')).toMatchObject({
      session_id: thread,
      tool_name: 'Bash',
      command: 'sleep 1; echo hi',
      tool_use_id: expect.stringMatching(/^call_/),
    });
    expect(lines.find((l) => l.event === 'SessionStart')).toMatchObject({ transcript_path: rollout });
    // The row a launching script writes (docs/codex.md), read by the Codex harness's observers.
    const task = normalizeTask({ ticket_id: 'CX-H', status: 'in_progress', agent: 'codex', session_id: thread } as never, Date.now());
    const session = codexHarness.connect({ paths, config: {}, env: { CODEX_HOME: home }, isPersistent: false, baseTimeoutMs: DEFAULT_POLICY.baseTimeoutMs });
    const parts = (await Promise.all(session.observers.map((o) => o.observe(task, Date.now())))).flat();
    const hooks = parts.find((p) => p.source === 'hooks');
    expect(hooks).toMatchObject({ transcriptFile: rollout, finished: { kind: 'Stop hook' } });
    expect(hooks!.lastProgressMs).toBeGreaterThanOrEqual(Date.parse(lines.find((l) => l.event === 'Stop')!.ts));
  });

  it('its twin without trust: Codex runs no untrusted hook, and nothing is filed', async () => {
    server.script('CX-UNTRUSTED', [{ items: [say('done')] }]);
    const { home, paths } = await installed(server);
    const s = startCodex({ server, prompt: 'CX-UNTRUSTED go', codexHome: home });
    expect((await s.exited).code).toBe(0);
    expect(existsSync(paths.activityFile(await s.threadId))).toBe(false);
  });
});
