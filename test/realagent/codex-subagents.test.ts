// Codex's own subagents judged like Claude Code's (issue 35 item 3), on real `codex exec --json`
// 0.171.0 sessions: the lead's model calls `spawn_agent` (namespace multi_agent_v1, on by default)
// and waits in `wait_agent`; the child is a thread of the same process with a rollout of its own
// (`session_meta.parent_thread_id`). A lead waiting on a child that progresses is healthy; a child
// gone silent stalls the lead at the child's last record + the window (not at the wait's own
// 60 s); a child with a row of its own (`agent_id` = its thread id) is judged there and the lead is
// deferred to it: one action for one failure. Window 5 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatePaths } from '../../src/files/paths.js';
import { tempDir } from '../helpers/temp-dir.js';
import { codexHarness } from '../../src/agents/codex/harness.js';
import { createCodexObserver } from '../../src/agents/codex/read/codex-observer.js';
import { normalizeTask, type Task } from '../../src/contracts/state-file.js';
import { assess, type Verdict, type WaveContext } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import { codexSkip, findRollouts, jsonLines, startCodex, until, type CodexSession } from '../helpers/codex-session.js';
import {
  call,
  execCommand,
  lastCallOutput,
  runningSessionOf,
  say,
  startResponsesServer,
  writeStdin,
  type Item,
  type ResponsesServer,
  type TurnScript,
} from '../helpers/responses-server.js';

const WINDOW_MS = 5_000;
const policy = { ...DEFAULT_POLICY, baseTimeoutMs: WINDOW_MS };

const ns = (it: Item): Item => ({ ...it, namespace: 'multi_agent_v1' }) as Item;
/** The lead: spawn the child with `message`, wait on it (by the id spawn_agent returned), then answer. */
const leadScript = (message: string): TurnScript[] => [
  { items: [ns(call('spawn_agent', { message }))] },
  (r) => ({ items: [ns(call('wait_agent', { targets: [JSON.parse(lastCallOutput(r)?.output ?? '{}').agent_id], timeout_ms: 60_000 }))] }),
  { items: [say('lead done')] },
];

/** The child's thread: the rollout whose session_meta names the lead as parent. */
async function childOf(s: CodexSession, lead: string): Promise<{ thread: string; file: string }> {
  return until(() => {
    for (const file of findRollouts(s.codexHome)) {
      const meta = jsonLines(file)[0]?.payload;
      if (meta?.parent_thread_id === lead) return { thread: String(meta.id), file };
    }
    return undefined;
  }, "the child's rollout");
}

const row = (fields: Record<string, unknown>): Task => normalizeTask({ status: 'in_progress', agent: 'codex', ...fields } as never, Date.now());

async function judge(task: Task, observer = createCodexObserver({ env: {} }), nowMs = Date.now(), wave: WaveContext = {}): Promise<Verdict> {
  const parts = await observer.observe(task, nowMs);
  return assess(task, mergeObservations([{ source: 'row' }, ...parts]), policy, nowMs, wave);
}

describe.skipIf(codexSkip !== undefined)(`Codex subagents on real sessions (skipped: ${codexSkip ?? 'no'})`, () => {
  let server: ResponsesServer;
  beforeAll(async () => (server = await startResponsesServer()));
  afterAll(() => server.close());

  it('a child gone silent stalls its lead at the child’s window, or is judged on its own row with the lead deferred to it', async () => {
    server.script('CX-KID-FROZEN', [{ freeze: 'before_headers' }]);
    server.script('CX-LEAD-F', leadScript('CX-KID-FROZEN work'));
    const s = startCodex({ server, prompt: 'CX-LEAD-F delegate' });
    const lead = await s.threadId;
    await server.waitFor((r) => r.agent === 'CX-KID-FROZEN', 30_000, "the child's frozen request");
    const child = await childOf(s, lead);
    await until(() => s.rollout().some((r) => r.payload?.name === 'wait_agent') || undefined, 'the lead in wait_agent');
    const leadRow = row({ ticket_id: 'CX-1', session_id: lead, pid: s.pid, output_path: s.outputPath, codex_home: s.codexHome });

    const lastOf = (recs: Record<string, any>[]) => Math.max(...recs.map((r) => Date.parse(r.timestamp)));
    const newest = () => Math.max(lastOf(jsonLines(child.file)), lastOf(s.rollout()));
    // The lead may still append a record while it is judged (a loaded machine stretches that): a
    // judgment made between two reads of both rollouts that agree on their newest record.
    let v: Verdict;
    let seenNewest: number;
    for (let tries = 1; ; tries++) {
      const before = newest();
      v = await judge(leadRow);
      seenNewest = newest();
      if (seenNewest === before || tries === 50) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(v.kind).toBe('healthy');
    expect(v.reason).toContain(`waiting on subagent ${child.thread}`);
    // The silence counts from the newest record of lead and child; the lead's 60 s wait_agent does not hold it.
    const childLast = lastOf(jsonLines(child.file));
    expect(v.lastProgressMs).toBe(seenNewest);
    expect(v.deadlineMs).toBe(v.lastProgressMs! + WINDOW_MS);
    const late = await judge(leadRow, undefined, v.deadlineMs! + 1);
    expect(late).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
    expect(late.reason).toContain(`waiting on subagent ${child.thread}, which stalled`);

    // The child has a row of its own (agent_id = its thread id): it is judged there, on its own rollout,
    // and the lead is deferred to it.
    const childRow = row({ ticket_id: 'CX-1', task_id: 'CX-1-kid', session_id: lead, agent_id: child.thread, pid: s.pid, codex_home: s.codexHome });
    const wave: WaveContext = { rowOfAgent: new Map([[child.thread, 'CX-1-kid']]) };
    const deferred = await judge(leadRow, undefined, v.deadlineMs! + 1, wave);
    expect(deferred.kind).toBe('healthy');
    expect(deferred.reason).toContain(`${child.thread} is row CX-1-kid, judged and recovered on its own`);
    // Its files are the child's (a recovery reads its prompt and cwd there), not the lead's.
    expect(await codexHarness.connect({ env: {}, paths: new StatePaths(tempDir()) } as never).findFiles(childRow, Date.now())).toEqual({
      transcript: child.file,
    });
    const own = await judge(childRow, undefined, v.deadlineMs! + 1, wave);
    expect(own).toMatchObject({ kind: 'stalled', stallReason: 'inactivity', lastProgressMs: childLast });
  });

  it('a lead waiting on a child that runs a long command is healthy throughout, the child’s call holding the window', async () => {
    server.script('CX-KID-BUSY', [
      { items: [execCommand('sleep 9; echo kid', { yieldMs: 3000 })] },
      (r) => ({ items: [writeStdin(runningSessionOf(r) ?? 0, { yieldMs: 20_000 })] }),
      { items: [say('kid done')] },
    ]);
    server.script('CX-LEAD-B', leadScript('CX-KID-BUSY work'));
    const s = startCodex({ server, prompt: 'CX-LEAD-B delegate' });
    const lead = await s.threadId;
    const leadRow = row({ ticket_id: 'CX-2', session_id: lead, pid: s.pid, output_path: s.outputPath, codex_home: s.codexHome });
    const observer = createCodexObserver({ env: {} });
    const seen: Verdict[] = [];
    let done = false;
    void s.exited.then(() => (done = true));
    while (!done) {
      if (s.rolloutPath()) seen.push(await judge(leadRow, observer));
      await new Promise((r) => setTimeout(r, 250));
    }
    expect((await s.exited).code).toBe(0);
    const during = seen.filter((v) => v.kind !== 'inconsistent');
    expect(during.filter((v) => v.kind === 'stalled').map((v) => v.reason)).toEqual([]);
    const waiting = during.filter((v) => v.reason.includes('waiting on subagent'));
    expect(waiting.length).toBeGreaterThan(0);
    // The lead's own rollout was silent past the window while the child worked.
    const recs = s.rollout();
    const at = recs.findIndex((r) => r.payload?.name === 'wait_agent');
    expect(Date.parse(recs[at + 2]!.timestamp) - Date.parse(recs[at]!.timestamp)).toBeGreaterThan(WINDOW_MS);
    expect(waiting.some((v) => v.lastTool === 'write_stdin' && v.isLastToolOpen)).toBe(true);
  });
});
