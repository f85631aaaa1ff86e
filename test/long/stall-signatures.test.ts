// The stall signatures users report in Claude Code's tracker (../shared/reference/claude-code-surfaces.md
// §5), each made with the real Claude Code 2.1.197 and the scripted model server, watched by the
// real watchdog (a loop, --check-interval 1) from the skill's row shape, beside its healthy
// counterpart run at the same time:
// - a background subagent wedged before its first assistant turn (#86200): stalled at its window;
// - a subagent hung at its first tool call, 0 tool uses, its parent waiting (#78313): the call's
//   stream stops mid-tool_use; the subagent stalled at the window, its lead deferring to the
//   subagent's own row (one stall, one action);
// - a subagent whose work is on disk but whose Agent call never returns: its final answer freezes;
// - a session repeating one identical call: looping, not stalled.
// A tool result never delivered after its command finished cannot be made with 2.1.197: it
// delivered the result as soon as the shell exited, even with a background child holding its
// stdout (docs/claude-code.md).
import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeSkip, startClaude, type ClaudeSession } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { agent, bash, startModelServer, text, type ModelServer, type TurnScript } from '../helpers/model-server.js';
import { startWatchdog, type RunningWatchdog, type TaskView } from '../helpers/real-watchdog.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const WINDOW_S = 5;

interface Scene {
  w: RunningWatchdog;
  s: ClaudeSession;
  /** The subagent's id, once its transcript exists (scenes with a subagent). */
  agentId?: string;
}

/**
 * A real `claude -p` lead (row `lead`, by session_id), and when `sub` is given the subagent its
 * first turn launches (row `sub`, by agent_id alone, added once its transcript exists), watched by
 * a watchdog of its own with a `windowS` window.
 */
async function scene(name: string, lead: TurnScript[], sub?: TurnScript[], windowS = WINDOW_S): Promise<Scene> {
  const stateDir = tempDir();
  const home = tempDir('dw-home-');
  const epic = `E-${name}`;
  server.script(`LEAD-${name}`, lead);
  if (sub) server.script(`SUB-${name}`, sub);
  const s = startClaude({ server, prompt: `LEAD-${name}: run the wave`, home });
  // The row is written once the session has begun (Claude Code's start-up is not the signature:
  // on a loaded machine it can take longer than these short windows).
  await until(() => s.transcript().length > 0, 60_000, `the ${name} lead's transcript`);
  const leadRow = { task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', session_id: s.sessionId };
  writeWave(stateDir, epic, new Date().toISOString(), [leadRow]);
  const w = startWatchdog({ stateDir, epic, claudeDir: s.claudeDir, args: ['--timeout', String(windowS)] });
  if (!sub) return { w, s };
  const agentId = await until(() => s.subagentIds()[0], 60_000, `the ${name} subagent's transcript`);
  writeWave(stateDir, epic, new Date().toISOString(), [leadRow, { task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', agent_id: agentId }]);
  return { w, s, agentId };
}

const taskIn = (c: { tasks: TaskView[] }, id: string) => c.tasks.find((t) => t.task_id === id);

/**
 * The task is stalled at the first check past its deadline (last activity + window), within 1 s
 * of it at the load the suite is specified for (2 cores at load 8); the stall as that check said it.
 */
async function stalledAtWindow(w: RunningWatchdog, id: string, what: string, windowS = WINDOW_S): Promise<TaskView & { lateMs: number }> {
  await until(() => w.checks().some((c) => taskIn(c, id)?.verdict === 'stalled'), 60_000, `${what}: stalled (watchdog: ${w.output().slice(-600)})`);
  const checks = w.checks();
  const i = checks.findIndex((c) => taskIn(c, id)?.verdict === 'stalled');
  const stall = checks[i]!.stalls_detected.find((x) => x.task_id === id)!;
  const deadline = Date.parse(stall.last_activity) + windowS * 1000;
  const lateMs = Date.parse(checks[i]!.check_timestamp) - deadline;
  expect(lateMs, `${what}: flagged before its deadline`).toBeGreaterThanOrEqual(0);
  // A stall is idle strictly past the window: a check at the deadline's very millisecond rightly missed it.
  if (i > 0) expect(Date.parse(checks[i - 1]!.check_timestamp), `${what}: a check past the deadline that missed it`).toBeLessThanOrEqual(deadline);
  if (os.loadavg()[0]! <= 8) expect(lateMs, `${what}: flagged ${lateMs} ms after the deadline`).toBeLessThanOrEqual(1000);
  return { ...taskIn(checks[i]!, id)!, stall_reason: stall.stall_reason, lateMs };
}

/** Every check of the task so far, once one was made at least `windowS` + 1.5 s after `sinceMs`: none says stalled or looping. */
async function neverFlagged(w: RunningWatchdog, id: string, sinceMs: number, what: string, windowS = WINDOW_S): Promise<TaskView[]> {
  await until(
    () => w.checks().some((c) => taskIn(c, id) && Date.parse(c.check_timestamp) >= sinceMs + windowS * 1000 + 1500),
    60_000,
    `${what}: a check a window later`,
  );
  const seen = w.checks().flatMap((c) => taskIn(c, id) ?? []);
  expect(
    seen.filter((t) => t.verdict === 'stalled' || t.verdict === 'looping'),
    what,
  ).toEqual([]);
  return seen;
}

/**
 * The lead waiting on its subagent is not stalled with it: the subagent has a row of its own, judged
 * and recovered there (one stall, one action); the lead says so, and no check stalled it.
 */
async function leadDefers(sc: Scene, waitsOn: 'subagent' | 'background subagent'): Promise<void> {
  const lead = await sc.w.waitTask('lead', (t) => t.reason.includes('judged and recovered on its own'), "the lead waiting on its subagent's own row");
  expect(lead.verdict).toBe('healthy');
  expect(lead.reason).toContain(`waiting on ${waitsOn} ${sc.agentId}, idle`);
  expect(lead.reason).toContain(`${sc.agentId} is row sub`);
  expect(sc.w.checks().filter((c) => taskIn(c, 'lead')?.verdict === 'stalled')).toEqual([]);
}

/** A lead that launches its subagent in the background, ends its turn, then answers the notification. */
const bgLead = (name: string): TurnScript[] => [
  { blocks: [agent(`SUB-${name}: do the work`, { background: true })] },
  { blocks: [text('launched, waiting')] },
  { blocks: [text('lead done')] },
];
/** A lead that waits on its subagent in the foreground (an open Agent call). */
const fgLead = (name: string): TurnScript[] => [{ blocks: [agent(`SUB-${name}: do the work`)] }, { blocks: [text('lead done')] }];

const gateWait = (gate: string) => bash(`while [ ! -e ${gate}/go ]; do sleep 0.1; done; echo gate-open`);

/** A subagent's transcript records (its file under the lead's subagents/ dir). */
const subRecords = (sc: Scene) =>
  readFileSync(path.join(sc.s.subagentsDir, `agent-${sc.agentId}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
const toolUses = (recs: Record<string, any>[]) =>
  recs.filter((r) => r.type === 'assistant').flatMap((r) => (r.message?.content ?? []).filter((b: any) => b.type === 'tool_use'));

describe.skipIf(claudeSkip !== undefined)("stall signatures from Claude Code's tracker, on real sessions", { timeout: 120_000 }, () => {
  it('a background subagent wedged before its first assistant turn is stalled at its window, its lead deferring to that row; one that answers is not', async () => {
    const gate = tempDir();
    const [wedged, answers] = await Promise.all([
      scene('WEDGED', bgLead('WEDGED'), [{ freeze: 'before_bytes' }]),
      scene('ANSWERING', bgLead('ANSWERING'), [{ delayMs: 1000, blocks: [gateWait(gate)] }, { blocks: [text('sub done')] }]),
    ]);
    const startedMs = Date.now();
    const stalled = await stalledAtWindow(wedged.w, 'sub', 'the wedged subagent');
    expect(stalled.stall_reason).toBe('inactivity');
    // #86200's shape: user records, no assistant record.
    expect(subRecords(wedged).filter((r) => r.type === 'assistant')).toEqual([]);
    expect(subRecords(wedged).some((r) => r.type === 'user')).toBe(true);
    await leadDefers(wedged, 'background subagent');
    for (const id of ['sub', 'lead']) await neverFlagged(answers.w, id, startedMs, `the ${id} of the subagent that answered`);
    // Its Bash call (Claude Code's default 120 s timeout) holds it: the shell rule (docs/verdicts.md), not the open-call one.
    expect(answers.w.tasks().find((t) => t.task_id === 'sub')).toMatchObject({ verdict: 'healthy', exemptions: ['bash_long_timeout'] });
    mkdirSync(`${gate}/go`);
    expect(await answers.s.exited).toEqual({ code: 0, signal: null });
  });

  it('a subagent hung at its first tool call (its stream stops mid-tool_use, 0 tool uses) is stalled at its window, its waiting lead deferring to that row; one whose first call runs long is not', async () => {
    const gate = tempDir();
    const [hung, running] = await Promise.all([
      scene('FIRSTCALL', fgLead('FIRSTCALL'), [{ freeze: 'mid_message', blocks: [bash('npm run build')] }]),
      scene('LONGCALL', fgLead('LONGCALL'), [{ blocks: [gateWait(gate)] }, { blocks: [text('sub done')] }]),
    ]);
    const startedMs = Date.now();
    const stalled = await stalledAtWindow(hung.w, 'sub', 'the subagent hung at its first call');
    expect(stalled).toMatchObject({ stall_reason: 'inactivity', last_tool: null });
    expect(toolUses(subRecords(hung))).toEqual([]);
    await leadDefers(hung, 'subagent');
    for (const id of ['sub', 'lead']) await neverFlagged(running.w, id, startedMs, `the ${id} of the subagent whose first call runs long`);
    expect(running.w.tasks().find((t) => t.task_id === 'sub')).toMatchObject({ verdict: 'healthy', last_tool: 'Bash', exemptions: ['bash_long_timeout'] });
    mkdirSync(`${gate}/go`);
    expect(await running.s.exited).toEqual({ code: 0, signal: null });
  });

  it('a subagent whose work is on disk but whose Agent call never returns (its final answer freezes) is stalled at its window, its lead deferring to that row; one that answers returns', async () => {
    const dir = tempDir();
    const [frozen, returns] = await Promise.all([
      scene('NORETURN', fgLead('NORETURN'), [
        { blocks: [bash(`echo built > ${dir}/frozen.txt`)] },
        { freeze: 'mid_message', blocks: [text('Work done: frozen.txt written.')] },
      ]),
      scene('RETURNS', fgLead('RETURNS'), [{ blocks: [bash(`echo built > ${dir}/returns.txt`)] }, { blocks: [text('Work done: returns.txt written.')] }]),
    ]);
    const startedMs = Date.now();
    const stalled = await stalledAtWindow(frozen.w, 'sub', 'the subagent whose Agent call never returns');
    expect(stalled).toMatchObject({ stall_reason: 'inactivity', last_tool: 'Bash' });
    expect(readFileSync(path.join(dir, 'frozen.txt'), 'utf8')).toBe('built\n');
    expect(JSON.stringify(frozen.s.transcript().filter((r) => r.type === 'user'))).not.toContain('tool_result');
    await leadDefers(frozen, 'subagent');
    expect(await returns.s.exited).toEqual({ code: 0, signal: null });
    expect(returns.s.stream().at(-1)).toMatchObject({ type: 'result', is_error: false, result: 'lead done' });
    for (const id of ['sub', 'lead']) await neverFlagged(returns.w, id, startedMs, `the ${id} of the subagent that returned`);
  });

  it('a session repeating one identical call is looping (not stalled) once the repeats are on disk; one making different calls is healthy', async () => {
    const same = Array.from({ length: 40 }, () => ({ blocks: [bash('sleep 0.3; ls -a')] }));
    const different = Array.from({ length: 8 }, (_, i) => ({ blocks: [bash(`sleep 0.3; echo step-${i}`)] }));
    const windowS = 10;
    const [loops, works] = await Promise.all([
      scene('LOOPING', same, undefined, windowS),
      scene('PROGRESS', [...different, { blocks: [text('all steps done')] }], undefined, windowS),
    ]);
    const startedMs = Date.now();
    await until(() => loops.w.checks().some((c) => taskIn(c, 'lead')?.verdict === 'looping'), 60_000, 'looping');
    const checks = loops.w.checks();
    const looping = checks.find((c) => taskIn(c, 'lead')?.verdict === 'looping')!;
    // How many repeats are on disk by the first check that says so depends on the machine's load
    // (10 at load 28); never fewer than the rule's 4.
    const repeats = Number(/^same Bash call repeated (\d+) times in a row/.exec(taskIn(looping, 'lead')!.reason)?.[1]);
    expect(repeats, taskIn(looping, 'lead')!.reason).toBeGreaterThanOrEqual(4);
    expect(checks.filter((c) => taskIn(c, 'lead')?.verdict === 'stalled')).toEqual([]);
    // Flagged at the first or second check (one a second) after the 4th identical call is read. A
    // healthy agent's transcript is read at most every healthy_read_seconds and at most half a
    // base window past the progress its last read saw (5 s here): a loop is news that waits.
    const fourth = loops.s.transcript().filter((r) => r.type === 'assistant' && JSON.stringify(r.message?.content).includes('tool_use'))[3]!;
    const lateMs = Date.parse(looping.check_timestamp) - Date.parse(fourth.timestamp);
    // A check takes its moment first and reads the files after: a record written in between is
    // read by that check though stamped a few ms after its moment (-9 ms once in a clean-clone CI run).
    expect(lateMs).toBeGreaterThanOrEqual(-1000);
    if (os.loadavg()[0]! <= 8) expect(lateMs, `looping flagged ${lateMs} ms after the 4th identical call`).toBeLessThanOrEqual((windowS / 2) * 1000 + 2000);
    expect(await works.s.exited).toEqual({ code: 0, signal: null });
    await neverFlagged(works.w, 'lead', startedMs, 'the session making different calls', 0);
  });
});
