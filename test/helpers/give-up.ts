// A real Claude Code session that gives up on its first request, with this checkout's plugin
// installed, run to its end: the state dir its hooks wrote to, and their StopFailure line.
//
//   const { s, stateDir, stopFailure } = await runToGiveUp({ server, version, prompt: `${marker}: go` });
//
// The prompt comes on stdin, as an SDK program's session: 2.1.33x runs a plugin's hooks for it
// (a `-p` prompt's run that gives up at once ends before they load: only SessionEnd is written).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readRecords, startClaude, type ClaudeSession, type ClaudeVersion } from './claude-session.js';
import { REPO_ROOT, until } from './cli.js';
import type { ModelServer } from './model-server.js';
import { tempDir } from './temp-dir.js';

export async function runToGiveUp(o: {
  server: ModelServer;
  version: ClaudeVersion;
  prompt: string;
  env?: Record<string, string>;
}): Promise<{ s: ClaudeSession; stateDir: string; stopFailure: Record<string, any> }> {
  const stateDir = tempDir();
  const s = startClaude({ ...o, streamInput: true, pluginDir: REPO_ROOT, env: { ...o.env, ONEX_STATE_DIR: stateDir } });
  const activity = path.join(stateDir, 'activity', `${s.sessionId}.ndjson`);
  const stopFailure = await until(() => existsSync(activity) && readRecords(activity).find((l) => l.event === 'StopFailure'), 60_000, 'the StopFailure line');
  s.endInput();
  await s.exited;
  return { s, stateDir, stopFailure };
}
