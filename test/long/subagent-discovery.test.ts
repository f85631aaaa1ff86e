// Real foreground and background subagents found from the skill's row shape (the lead by its
// session_id, a subagent by its agent_id alone) whatever the order in which Claude Code makes the
// project dir (a fresh worktree: the session starts), the rows are written and the watchdog
// starts: all six orders. A subagent's agent_id exists only once it runs, so a wave written before
// that holds the lead's row, and the subagent's row is added as soon as its id is known (as a lead
// records the id the Agent result gives it); a watchdog started before any wave waits for the file (--wait-for-state).
// Each is found within a few checks of the last of the three, never after the old 30-90 s of
// cached listings.
import { existsSync, mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeSkip, startClaude, type ClaudeSession } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { agent, bash, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { startWatchdog, type RunningWatchdog } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

type Step = 'project_dir' | 'rows' | 'watchdog';
const ORDERS: Step[][] = [
  ['project_dir', 'rows', 'watchdog'],
  ['project_dir', 'watchdog', 'rows'],
  ['rows', 'project_dir', 'watchdog'],
  ['rows', 'watchdog', 'project_dir'],
  ['watchdog', 'project_dir', 'rows'],
  ['watchdog', 'rows', 'project_dir'],
];
/** Found within this long of the last step: a few checks at --check-interval 1 (idle: 1-2 s), with room for a loaded machine and a cold binary. */
const FOUND_WITHIN_MS = 25_000;

/** One lead and its subagent (which waits on a gate), the steps taken in `order`; resolves once both rows are found healthy. */
async function discover(order: Step[], background: boolean) {
  const name = `${order.map((s) => s[0]).join('')}-${background ? 'bg' : 'fg'}`.toUpperCase();
  const lead = `LEAD-${name}`;
  const sub = `SUB-${name}-WORK`;
  const gate = tempDir();
  const launch = agent(`${sub}: do the work`, { background });
  server.script(
    lead,
    background
      ? [{ blocks: [launch] }, { blocks: [text('launched, waiting')] }, { blocks: [text('lead done')] }]
      : [{ blocks: [launch] }, { blocks: [text('lead done')] }],
  );
  server.script(sub, [{ blocks: [bash(`while [ ! -e ${gate}/go ]; do sleep 0.1; done; echo sub-work-done`)] }, { blocks: [text('sub done')] }]);
  const stateDir = tempDir();
  const home = tempDir('dw-home-');
  const sessionId = crypto.randomUUID();
  const epic = `E-${name}`;
  const claudeDir = `${home}/.claude`;
  const leadRow = { task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', session_id: sessionId };
  const subRow = (agentId: string) => ({
    task_id: 'sub',
    ticket_id: 'P-1',
    status: 'in_progress',
    agent_id: agentId,
    agent_name: `impl-${name.toLowerCase()}`,
  });
  let s: ClaudeSession | undefined;
  let w: RunningWatchdog | undefined;
  let agentId: string | undefined;
  let rowsWritten = false;
  for (const step of order) {
    if (step === 'project_dir') {
      expect(existsSync(claudeDir), 'no Claude config dir before the session').toBe(false);
      s = startClaude({ server, prompt: `${lead}: run the wave`, home, sessionId });
      // The project dir is there, and the subagent has run: its id is known from now on.
      agentId = await until(() => s!.subagentIds()[0], 60_000, `the ${name} subagent's transcript`);
      if (rowsWritten) writeWave(stateDir, epic, new Date().toISOString(), [leadRow, subRow(agentId)]);
    } else if (step === 'rows') {
      writeWave(stateDir, epic, new Date().toISOString(), agentId ? [leadRow, subRow(agentId)] : [leadRow]);
      rowsWritten = true;
    } else {
      // Started before the rows, it waits for the state file (the default 5 s settle is shorter than a session's start on a loaded machine).
      w = startWatchdog({ stateDir, epic, claudeDir, args: ['--timeout', '30', '--wait-for-state', '2m'] });
    }
  }
  const lastStepMs = Date.now();
  // The lead is seen waiting on its subagent (a background one once the lead's turn has ended).
  const waiting = `waiting on ${background ? 'background ' : ''}subagent ${agentId}`;
  const found = (id: string) =>
    w!.waitTask(
      id,
      (t) => t.sources.includes('transcript') && t.verdict === 'healthy' && (id === 'sub' ? t.last_tool === 'Bash' : t.reason.includes(waiting)),
      `${name}: ${id} found from its ${id === 'lead' ? 'session_id' : 'agent_id'}`,
      FOUND_WITHIN_MS,
    );
  const [leadSeen, subSeen] = await Promise.all([found('lead'), found('sub')]);
  expect(Date.now() - lastStepMs).toBeLessThan(FOUND_WITHIN_MS);
  // A Bash call inside Claude Code's default 120 s timeout: the shell rule's window (120 s + 5 s), docs/verdicts.md.
  expect(subSeen).toMatchObject({ verdict: 'healthy', last_tool: 'Bash', exemptions: ['bash_long_timeout'] });
  expect(leadSeen.reason).toContain(waiting);
  mkdirSync(`${gate}/go`);
  expect(await s!.exited).toEqual({ code: 0, signal: null });
  expect(s!.stream().at(-1)).toMatchObject({ type: 'result', is_error: false, result: 'lead done' });
}

describe.skipIf(claudeSkip !== undefined)(
  'real subagents found from the skill row shape, in every order of project dir, rows and watchdog',
  { timeout: 120_000 },
  () => {
    // Two orders at a time, each with a foreground and a background subagent (one server; no two sessions share a HOME).
    const pairs = [0, 2, 4].map((i) => [ORDERS[i]!, ORDERS[i + 1]!] as const);
    it.each(pairs.map((p) => [p.map((o) => o.join(' → ')).join(', and '), p] as const))(
      '%s: the lead and its foreground and background subagents',
      async (_name, pair) => {
        await Promise.all(pair.flatMap((order) => [discover(order, false), discover(order, true)]));
      },
    );
  },
);
