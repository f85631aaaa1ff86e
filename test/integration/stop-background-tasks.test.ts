// A lead whose turn ended while its background subagents run (issue 38 item 2), seen through its
// hooks alone: the real 2.1.332 Stop payload lists the subagent `running` in `background_tasks`,
// so the lead waits on it (healthy while the subagent's own hooks show it at work), never
// finished and never stalled on its own silence. The payloads are the recorded ones
// (test/fixtures/real-2.1.332/bg-agent-stall-kill/hooks.ndjson), filed by the hook's own line
// builder at moments of the test's clock. In-process watch on a manual clock.
import { mkdirSync, readFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildHookLine } from '../../src/agents/claude-code/parse/hook-line.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { readWatchdogJson, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/real-2.1.332/bg-agent-stall-kill/hooks.ndjson');
const EPIC = 'E-1';
const S = 1000;
const T0 = Date.parse('2026-04-02T10:00:00Z');
const SESSION = 'c516172b-9491-41c2-b86a-ede8c4aa912b';

/** The recorded payloads, in order, each filed as the hook files it at `T0 + secs[i]` s (undefined: skipped). */
function fileHooks(stateDir: string, secs: (number | undefined)[]): void {
  mkdirSync(path.join(stateDir, 'activity'), { recursive: true });
  const payloads = readFileSync(FIXTURE, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  payloads.forEach((p, i) => {
    const at = secs[i];
    if (at === undefined) return;
    const built = buildHookLine(p, T0 + at * S)!;
    appendFileSync(path.join(stateDir, 'activity', `${built.id}.ndjson`), `${JSON.stringify(built.line)}\n`);
  });
}

async function judgeAt(stateDir: string, atMs: number) {
  const s = await startSession(
    new ManualClock(atMs),
    { epicId: EPIC, stateDir, timeout: 60, checkInterval: 10, json: true, once: true },
    { claudeConfigDir: path.join(stateDir, 'claude') },
  );
  await s.done;
  return readWatchdogJson(stateDir, EPIC).tasks.find((t: { task_id: string }) => t.task_id === 'lead');
}

describe("a lead whose turn ended while the Stop hook's background_tasks lists a running subagent", () => {
  // SessionStart, UserPromptSubmit, PreToolUse Agent, SubagentStart, PostToolUse Agent, the
  // subagent's PreToolUse Bash, the lead's Stop (the subagent `running`), then the subagent's
  // PostToolUse Bash 50 s in; the rest (its end, the second turn, SessionEnd) not yet.
  const firstTurn = [0, 1, 2, 3, 3, 4, 5, 50];

  it('is healthy, waiting on it, while the subagent works (70 s in, 65 s after its Stop, a 60 s window)', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'claude'), { recursive: true });
    fileHooks(dir, firstTurn);
    writeWave(dir, EPIC, new Date(T0).toISOString(), [
      { task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', dispatched_at: new Date(T0).toISOString(), session_id: SESSION },
    ]);
    const lead = await judgeAt(dir, T0 + 70 * S);
    expect(lead.verdict).toBe('healthy');
    expect(lead.reason).toContain('waiting on background subagent abaa977f42daf9802');
  });

  it('stalls, naming it, once the subagent too has been silent past the window', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'claude'), { recursive: true });
    fileHooks(dir, firstTurn);
    writeWave(dir, EPIC, new Date(T0).toISOString(), [
      { task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', dispatched_at: new Date(T0).toISOString(), session_id: SESSION },
    ]);
    const lead = await judgeAt(dir, T0 + 115 * S);
    expect(lead.verdict).toBe('stalled');
    expect(lead.reason).toContain('waiting on background subagent abaa977f42daf9802, which stalled');
  });
});
