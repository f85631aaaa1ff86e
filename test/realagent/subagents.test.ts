// Real foreground and background subagents found from the skill's row shape (the lead's
// session_id; a subagent's agent_id alone, as the Agent result gives it), with the watchdog
// started before Claude Code has made its project dir (a fresh worktree: issue 17 item 2).
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeSkip, startClaude } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { agent, bash, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { startWatchdog } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const gateWait = (gate: string) => bash(`while [ ! -e ${gate}/go ]; do sleep 0.1; done; echo sub-work-done`);

describe.skipIf(claudeSkip !== undefined)('real subagents, found from the skill row shape', { timeout: 120_000 }, () => {
  it.each([
    ['foreground', false],
    ['background', true],
  ] as const)('a %s subagent: the watchdog, started first, finds the new project dir, the lead and the subagent', async (kind, background) => {
    const lead = `LEAD-${kind}`;
    const sub = `SUB-${kind}-work`;
    const gate = tempDir();
    server.script(lead, background ? [{ blocks: [agent(`${sub}: do the work`, { background: true })] }, { blocks: [text('launched, waiting')] }, { blocks: [text('lead done')] }] : [{ blocks: [agent(`${sub}: do the work`)] }, { blocks: [text('lead done')] }]);
    server.script(sub, [{ blocks: [gateWait(gate)] }, { blocks: [text('sub done')] }]);
    const stateDir = tempDir();
    const home = tempDir('dw-home-');
    const sessionId = crypto.randomUUID();
    const epic = `E-${kind}`;
    const leadRow = { task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', session_id: sessionId };
    writeWave(stateDir, epic, new Date().toISOString(), [leadRow]);
    const claudeDir = `${home}/.claude`;
    const w = startWatchdog({ stateDir, epic, claudeDir, args: ['--timeout', '30'] });
    await w.waitTask('lead', (t) => t.verdict !== undefined, 'a first check');
    expect(existsSync(claudeDir)).toBe(false);
    const s = startClaude({ server, prompt: `${lead}: run the wave`, home, sessionId });
    await w.waitTask('lead', (t) => t.sources.includes('transcript'), 'the lead found in its new project dir');
    const agentId = await until(() => (existsSync(s.subagentsDir) ? readdirSync(s.subagentsDir).find((f) => f.endsWith('.jsonl'))?.slice('agent-'.length, -'.jsonl'.length) : undefined), 60_000, 'the subagent transcript');
    writeWave(stateDir, epic, new Date().toISOString(), [leadRow, { task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', agent_id: agentId, agent_name: `impl-${kind}` }]);
    const seen = await w.waitTask('sub', (t) => t.sources.includes('transcript'), 'the subagent found by agent_id alone');
    expect(seen).toMatchObject({ verdict: 'healthy' });
    expect(w.tasks().find((t) => t.task_id === 'lead')).toMatchObject({ verdict: 'healthy' });
    mkdirSync(`${gate}/go`);
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.stream().at(-1)).toMatchObject({ type: 'result', is_error: false, result: 'lead done' });
  });
});
