// The scripted lead (skills/dispatch-watchdog/SKILL.md followed literally, on the real Claude Code
// 2.1.197 with its real tools) carrying out the request kinds that need `claude -p` workers of its
// own; test/realagent/scripted-lead.test.ts carries out the redispatch, the stop and the reconcile.
// The lead launches two workers with Bash in the background (`claude -p … --session-id <uuid>`),
// records them by session_id, and runs `next` in the foreground until the wave is complete, acting
// on whatever each run prints, as the skill says:
//  - resume (t1's first request froze: a transport stall): TaskStop its shell, Bash `claude --resume
//    <session_id> -p "<resume_prompt>"` in the background as it was started, the same row reused with
//    redispatch_count; the resumed run's first request carries the prior conversation;
//  - nudge (t2 ended its turn while its row says in progress): `claude --resume <session_id> -p
//    "<message>"` once, then `ack`;
//  - cancel (a second epic, watched with `--action cancel`): TaskStop, then the row `cancelled`;
// and a row is set `completed` when its agent reports back (a shell's completion notification, or
// the final message a foreground run printed). Each phase ends at `wave_complete`.
// The lead records a worker's row once the worker's transcript holds its prompt: `next` runs with a
// 3 s window, shorter than a `claude -p` start-up on a loaded machine (3.15 s at load 3: 2.1.197
// writes its transcript only after its first request), and a row whose agent shows nothing within
// its window never started (a fresh agent: nothing to resume; test/integration/resume.test.ts). A
// real lead's window is minutes. Cost: ~1 min of real sessions, so it lives in test/long/.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_BIN, claudeSkip, startClaude, type ClaudeSession } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { contentText, startModelServer, text, toolUse, type Block, type LoggedRequest, type ModelServer, type Reply } from '../helpers/model-server.js';
import { bashCall, jsonDocOf, nextCommand, resultOf, shellWord, SKILL_CLI, writeStateCommand } from '../helpers/scripted-lead.js';
import { runMain } from '../helpers/in-process-cli.js';
import { readEvents } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const EPIC = 'E-LEAD3';
const CANCEL_EPIC = 'E-LEAD3C';
const FLAGS = '--output-format stream-json --verbose --dangerously-skip-permissions';
const worker = (marker: string, sessionId: string, out: string) =>
  `${CLAUDE_BIN} -p ${shellWord(`${marker}: implement it`)} --session-id ${sessionId} ${FLAGS} > ${out} 2>&1`;
const resumeCmd = (sessionId: string, prompt: string, out: string) => `${CLAUDE_BIN} --resume ${sessionId} -p ${shellWord(prompt)} ${FLAGS} > ${out} 2>&1`;
const shellIdOf = (t: string) => /with ID: ([A-Za-z0-9_-]+)/.exec(t)?.[1];
/** The background shells a request told of as completed (`<task-notification>`), anywhere in the conversation. */
const completedShells = (r: LoggedRequest) =>
  [...JSON.stringify(r.body?.messages ?? []).matchAll(/<task-id>([A-Za-z0-9_-]+)<\/task-id>[\s\S]{0,400}?<status>completed<\/status>/g)].map((m) => m[1]!);

describe.skipIf(claudeSkip !== undefined)('a scripted lead following SKILL.md with claude -p workers of its own', () => {
  it('carries out a resume, a nudge and a cancel: next → request → action → answer → wave_complete', { timeout: 400_000 }, async () => {
    const S: Record<string, string> = { t1: randomUUID(), t2: randomUUID(), c1: randomUUID() };
    const rows: Record<string, Record<string, Record<string, unknown>>> = { [EPIC]: {}, [CANCEL_EPIC]: {} };
    const shells: Record<string, string> = {}; // task id → its live background shell
    const outs: Record<string, string> = {}; // background shell → the file its run writes
    const docs: { epic: string; doc: Record<string, any> }[] = [];
    const carried: string[] = [];
    const now = () => new Date().toISOString();
    const row = (epic: string, id: string, fields: Record<string, unknown>) => (rows[epic]![id] = { ...rows[epic]![id], ...fields });
    const write = (epic: string) => bashCall(writeStateCommand(epic, Object.values(rows[epic]!)));
    const cwd = tempDir();
    let session: ClaudeSession | undefined;
    /** A worker's transcript holds its prompt record (the lead's cwd is the worker's: one project dir). */
    const started = (id: string) =>
      until(
        () => {
          try {
            return readFileSync(path.join(session!.projectDir, `${S[id]}.jsonl`), 'utf8').includes('"type":"user"');
          } catch {
            return false;
          }
        },
        120_000,
        `${id}'s transcript`,
      );

    // t1's first request freezes until it is resumed; t2 ends its first turn unfinished; c1 freezes.
    server.script('WORKER-C1', [[{ freeze: 'before_bytes' }, { blocks: [text('P-t1 done after the resume.')] }]]);
    server.script('WORKER-C2', [{ blocks: [text('I looked at P-t2.')] }, { blocks: [text('P-t2 done.')] }]);
    server.script('WORKER-C3', [{ freeze: 'before_bytes' }]);

    // The lead: a queue of steps; each turn reads the result of the step before, then takes the next.
    type Step = { block: () => Block; then?: (result: string) => void; hold?: () => Promise<unknown> };
    let n = 0;
    const queue: Step[] = [];
    const call = (make: (id: string) => Block, then?: (result: string) => void): Step => {
      const id = `toolu_lead3_${++n}`;
      return { block: () => make(id), then };
    };
    const runNext = (epic: string, extra = ''): Step =>
      call(
        (id) => bashCall(nextCommand(epic, extra), { timeout: 600000 }, id),
        (t) => {
          const doc = jsonDocOf(t);
          docs.push({ epic, doc });
          for (const q of doc.requests ?? []) queue.push(...carryOut(epic, q));
          if (doc.reason !== 'wave_complete') queue.push(runNext(epic, extra));
          else if (epic === EPIC) queue.push(...launch(CANCEL_EPIC, 'c1', 'WORKER-C3'), runNext(CANCEL_EPIC, ' --action cancel'));
        },
      );
    // A foreground run's final message is the agent reporting back: the row says how it ended.
    const finish = (epic: string, id: string) => ({ block: () => (row(epic, id, { status: 'completed' }), write(epic)) });
    const learn = (id: string, out: string) => (t: string) => {
      shells[id] = shellIdOf(t)!;
      outs[shells[id]] = out;
    };
    const carryOut = (epic: string, q: Record<string, any>): Step[] => {
      carried.push(q.kind);
      // The row to act on: a row reused for a resume carries a new instance (`task_id` t1-r1, `row_task_id` t1).
      const id = (q.row_task_id ?? q.task_id) as string;
      if (q.kind === 'resume') {
        return [
          call((i) => toolUse('TaskStop', { task_id: shells[id] }, i)),
          call(
            (i) => bashCall(resumeCmd(q.session_id, q.resume_prompt, `${id}-resumed.jsonl`), { run_in_background: true }, i),
            learn(id, `${id}-resumed.jsonl`),
          ),
          { block: () => (row(epic, id, { status: 'in_progress', dispatched_at: now(), redispatch_count: q.redispatch_attempt }), write(epic)) },
        ];
      }
      if (q.kind === 'nudge') {
        return [
          call((i) => bashCall(`${resumeCmd(q.session_id, q.message, `${id}-nudged.jsonl`)}; tail -c 300 ${id}-nudged.jsonl`, { timeout: 600000 }, i)),
          call((i) => bashCall(`${SKILL_CLI} ack ${q.key}`, {}, i)),
          finish(epic, id),
        ];
      }
      if (q.kind === 'cancel') {
        return [call((i) => toolUse('TaskStop', { task_id: shells[id] }, i)), { block: () => (row(epic, id, { status: 'cancelled' }), write(epic)) }];
      }
      if (q.kind === 'redispatch') {
        // Not expected here (the assertions say so), but carried out as the skill says, so the lead ends.
        const next = q.recovery_task_id as string;
        S[next] = randomUUID();
        return [
          call((i) => toolUse('TaskStop', { task_id: shells[id] }, i)),
          call(
            (i) => bashCall(`${CLAUDE_BIN} -p ${shellWord(q.prompt)} --session-id ${S[next]} ${FLAGS} > ${next}.jsonl 2>&1`, { run_in_background: true }, i),
            learn(next, `${next}.jsonl`),
          ),
          {
            block: () => (
              row(epic, id, { status: 'cancelled' }),
              row(epic, next, { task_id: next, ticket_id: q.ticket_id, status: 'in_progress', dispatched_at: now(), session_id: S[next] }),
              write(epic)
            ),
          },
        ];
      }
      // reconcile: make the row say the truth (the agent reported it finished).
      return [finish(epic, id)];
    };
    const launch = (epic: string, id: string, marker: string): Step[] => [
      call((i) => bashCall(worker(marker, S[id]!, `${id}.jsonl`), { run_in_background: true }, i), learn(id, `${id}.jsonl`)),
      {
        hold: () => started(id),
        block: () => (row(epic, id, { task_id: id, ticket_id: `P-${id}`, status: 'in_progress', dispatched_at: now(), session_id: S[id] }), write(epic)),
      },
    ];
    queue.push(...launch(EPIC, 't1', 'WORKER-C1'), ...launch(EPIC, 't2', 'WORKER-C2'), runNext(EPIC));

    let isDone = false;
    let last: { id: string; then?: (result: string) => void } | undefined;
    const reported = new Set<string>();
    const lead = (r: LoggedRequest): Reply => {
      if (last?.then) last.then(resultOf(r, last.id));
      // A background run that completed reported back: read its final message first; a row whose
      // agent says it is done says so (t2's first turn ends without it: its row stays in progress).
      for (const shell of completedShells(r)) {
        if (reported.has(shell) || !outs[shell]) continue;
        reported.add(shell);
        const id = Object.keys(shells).find((k) => shells[k] === shell)!;
        queue.unshift(
          call(
            (i) => toolUse('Read', { file_path: path.join(cwd, outs[shell]!) }, i),
            (t) => {
              const epic = Object.keys(rows).find((e) => rows[e]![id]?.status === 'in_progress');
              if (epic && /"result":"[^"]*done/.test(t)) queue.unshift(finish(epic, id));
            },
          ),
        );
      }
      const step = queue.shift();
      if (!step) {
        isDone = true;
        last = undefined;
        return { blocks: [text('Both waves are complete.')] };
      }
      last = { id: '', then: step.then };
      const reply: Reply = {};
      const fill = () => {
        const block = step.block();
        last!.id = block.type === 'tool_use' ? block.id : '';
        reply.blocks = [block];
      };
      if (step.hold) reply.hold = step.hold().then(fill);
      else fill();
      return reply;
    };
    server.script(
      'LEAD-SKILL-3',
      Array.from({ length: 120 }, () => lead),
    );

    session = startClaude({
      server,
      prompt: `LEAD-SKILL-3: dispatch the waves for ${EPIC} and ${CANCEL_EPIC} and supervise them with the dispatch-watchdog skill`,
      cwd,
    });
    expect(await session.exited, session.stderr()).toEqual({ code: 0, signal: null });
    const reasons = JSON.stringify(docs.map((d) => [d.epic, d.doc.reason, (d.doc.requests ?? []).map((q: any) => `${q.kind}:${q.task_id}:${q.reason}`)]));
    expect(isDone, reasons).toBe(true);

    // One of each kind, carried out as the skill says; each phase ended at wave_complete.
    expect(carried, reasons).toEqual(expect.arrayContaining(['resume', 'nudge', 'cancel']));
    expect(carried, reasons).not.toContain('redispatch');
    expect(docs.filter((d) => d.doc.reason === 'wave_complete').map((d) => d.epic)).toEqual([EPIC, CANCEL_EPIC]);
    const all = docs.flatMap((d) => d.doc.requests ?? []);
    expect(all.find((q) => q.kind === 'resume')).toMatchObject({
      task_id: 't1',
      session_id: S.t1,
      transport_cause: 'frozen_stream',
      recovery_task_id: 't1-r1',
    });
    expect(all.find((q) => q.kind === 'nudge' && q.task_id === 't2')).toMatchObject({ route: 'resume', session_id: S.t2 });
    expect(all.find((q) => q.kind === 'cancel')).toMatchObject({ epic_id: CANCEL_EPIC, task_id: 'c1', session_id: S.c1 });
    // The resumed run's first request carries the prior conversation, then the resume prompt.
    const resumed = server.of('WORKER-C1').find((q) => contentText(q.body?.messages?.at(-1)?.content).includes('Continue where you left off'));
    expect(resumed, 'the resumed run').toBeDefined();
    expect(contentText(resumed!.body.messages[0].content)).toContain('WORKER-C1: implement it');
    const nudged = server.of('WORKER-C2').find((q) => contentText(q.body?.messages?.at(-1)?.content).includes('Your turn ended, but P-t2'));
    expect(nudged, 'the nudged run').toBeDefined();
    expect(contentText(nudged!.body.messages[0].content)).toContain('WORKER-C2: implement it');
    const events = readEvents(path.join(cwd, '.onex_state'));
    const answered = events.filter((e) => e.event === 'request_answered').map((e) => [e.epic_id, e.kind, e.task_id, e.how]);
    expect(answered).toEqual(
      expect.arrayContaining([
        [EPIC, 'resume', 't1', 'row_reused'],
        [CANCEL_EPIC, 'cancel', 'c1', 'terminal'],
      ]),
    );
    // The lead acked the nudge, then recorded how the nudged run ended (completed): the row answers it.
    expect(answered, JSON.stringify(answered)).toContainEqual([EPIC, 'nudge', 't2', 'terminal']);
    expect(events.filter((e) => e.event === 'action_started').map((e) => e.action)).not.toContain('escalate');
    // Each nudge was followed by a run that said it was done, recorded by the lead: friction counts it as worked.
    const friction = JSON.parse((await runMain(['friction', '--state-dir', path.join(cwd, '.onex_state'), '--json'])).stdout);
    expect(friction.nudges.sent).toBeGreaterThanOrEqual(1);
    expect(friction.nudges).toEqual({ sent: friction.nudges.sent, worked: friction.nudges.sent });
  });
});
