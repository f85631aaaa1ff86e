// An LLM lead that follows skills/dispatch-watchdog/SKILL.md literally, on the real Claude Code
// 2.1.197 with its real tools, scripted through the model server: a `claude -p` lead (so `next`
// runs in the FOREGROUND, as the skill says) dispatches a background subagent, records its row,
// runs `next`; the subagent's stream freezes, `next` exits 10 with a redispatch request; the lead
// stops it with TaskStop(task_id=<agent_id>), relaunches with Agent(prompt=<the request's prompt>),
// records the replacement row, runs `next` again; the replacement finishes while its row still says
// in_progress, `next` exits 13 (attention) with a reconcile request; the lead makes the row say the
// truth; `next` exits 0, wave_complete.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALL_VERSIONS, describeVersions, OLDEST, startClaude } from '../helpers/claude-session.js';
import { contentText, startModelServer, text, toolUse, type LoggedRequest, type ModelServer } from '../helpers/model-server.js';
import { agentIdOf, bashCall, nextCommand, nextDocOf, resultOf, writeStateCommand } from '../helpers/scripted-lead.js';
import { readEvents } from '../helpers/state.js';
import { spawnCli, until } from '../helpers/cli.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const EPIC = 'E-LEAD';
const bash = bashCall;
const NEXT = nextCommand(EPIC);
const writeState = (rows: object[]) => writeStateCommand(EPIC, rows);

/** Tool call ids of the lead, so each turn finds the result of the one before. */
const ID = {
  worker: 'toolu_lead_worker',
  next1: 'toolu_lead_next1',
  stop: 'toolu_lead_stop',
  relaunch: 'toolu_lead_relaunch',
  next2: 'toolu_lead_next2',
  next3: 'toolu_lead_next3',
};

describeVersions(
  ALL_VERSIONS,
  'a scripted lead following SKILL.md on the real Claude Code',
  (version) => {
    it('-p lead: next in the foreground → redispatch → TaskStop → Agent → replacement row → reconcile → wave_complete', async () => {
      const seen: Record<string, any> = {};
      const now = () => new Date().toISOString();
      // The replacement's prompt quotes the original task (WORKER-A's prompt) before its remaining work: its marker is tried first.
      server.script(`REPL-MARK-${version}`, [{ blocks: [text('P-1 finished: the rest is done.')] }]);
      server.script(`WORKER-A-${version}`, [{ freeze: 'before_bytes' }]);
      server.script(`LEAD-SKILL-1-${version}`, [
        {
          blocks: [
            toolUse(
              'Agent',
              { description: 'impl P-1', prompt: `WORKER-A-${version}: implement P-1`, subagent_type: 'general-purpose', run_in_background: true },
              ID.worker,
            ),
          ],
        },
        (r) => {
          seen.worker = agentIdOf(r, ID.worker);
          return {
            blocks: [
              bash(
                writeState([
                  {
                    task_id: 't1',
                    ticket_id: 'P-1',
                    status: 'in_progress',
                    dispatched_at: now(),
                    agent_id: seen.worker,
                    remaining_work: [`REPL-MARK-${version}: finish P-1`],
                  },
                ]),
              ),
            ],
          };
        },
        { blocks: [bash(NEXT, { timeout: 600000 }, ID.next1)] },
        (r) => {
          seen.first = nextDocOf(r, ID.next1);
          return { blocks: [toolUse('TaskStop', { task_id: seen.worker }, ID.stop)] };
        },
        (r) => {
          seen.stopped = resultOf(r, ID.stop);
          return {
            blocks: [
              toolUse(
                'Agent',
                { description: 'Recovery P-1 #1', prompt: seen.first.requests[0].prompt, subagent_type: 'general-purpose', run_in_background: true },
                ID.relaunch,
              ),
            ],
          };
        },
        (r) => {
          seen.replacement = agentIdOf(r, ID.relaunch);
          const req = seen.first.requests[0];
          return {
            blocks: [
              bash(
                writeState([
                  { task_id: 't1', ticket_id: 'P-1', status: 'cancelled', agent_id: seen.worker },
                  { task_id: req.recovery_task_id, ticket_id: 'P-1', status: 'in_progress', dispatched_at: now(), agent_id: seen.replacement },
                ]),
              ),
            ],
          };
        },
        { blocks: [bash(NEXT, { timeout: 600000 }, ID.next2)] },
        (r) => {
          seen.second = nextDocOf(r, ID.next2);
          // reconcile: make the row say the truth (the replacement reported it finished).
          return {
            blocks: [
              bash(
                writeState([
                  { task_id: 't1', ticket_id: 'P-1', status: 'cancelled', agent_id: seen.worker },
                  { task_id: 't1-r1', ticket_id: 'P-1', status: 'completed', dispatched_at: now(), agent_id: seen.replacement },
                ]),
              ),
            ],
          };
        },
        { blocks: [bash(NEXT, { timeout: 600000 }, ID.next3)] },
        (r) => {
          seen.third = nextDocOf(r, ID.next3);
          return { blocks: [text('Wave complete.')] };
        },
      ]);
      const cwd = (await import('../helpers/temp-dir.js')).tempDir();
      const s = startClaude({
        server,
        version,
        prompt: `LEAD-SKILL-1-${version}: dispatch the wave for epic E-LEAD and supervise it with the dispatch-watchdog skill`,
        cwd,
      });
      expect(await s.exited, s.stderr()).toEqual({ code: 0, signal: null });

      expect(seen.worker).toMatch(/^a[0-9a-f]+$/);
      expect(seen.first).toMatchObject({ reason: 'requests', exit_code: 10 });
      expect(seen.first.requests[0]).toMatchObject({ kind: 'redispatch', task_id: 't1', agent_id: seen.worker, recovery_task_id: 't1-r1' });
      // TaskStop on the background subagent worked as the skill says.
      expect(seen.stopped).toContain(`Successfully stopped task: ${seen.worker}`);
      expect(seen.replacement).toMatch(/^a[0-9a-f]+$/);
      expect(seen.second).toMatchObject({ reason: 'attention', exit_code: 13 });
      expect(seen.second.requests).toEqual([
        expect.objectContaining({ kind: 'reconcile', task_id: 't1-r1', disagreement: 'agent_finished', row_status: 'in_progress' }),
      ]);
      expect(seen.third).toMatchObject({ reason: 'wave_complete', exit_code: 0 });
      const state = path.join(cwd, '.onex_state');
      expect(existsSync(state)).toBe(true);
      const answered = readEvents(state)
        .filter((e) => e.event === 'request_answered')
        .map((e) => [e.kind, e.how]);
      expect(answered).toEqual(
        expect.arrayContaining([
          ['redispatch', 'row'],
          ['reconcile', 'resolved'],
        ]),
      );
    });

    it('interactive-style lead: next in the background; its exit 10 comes as a "failed" notification, which is news, not a failure', async () => {
      const seen: Record<string, any> = {};
      const now = () => new Date().toISOString();
      const epic = 'E-LEAD2';
      const next = NEXT.replaceAll(EPIC, epic);
      const state = (rows: object[]) => writeState(rows).replaceAll(EPIC, epic);
      server.script(`REPL-MARK-B-${version}`, [{ blocks: [text('P-2 finished.')] }]); // before WORKER-B: the replacement's prompt quotes both
      server.script(`WORKER-B-${version}`, [{ freeze: 'before_bytes' }]);
      const lastText = (r: LoggedRequest) => contentText(r.body?.messages?.at(-1)?.content);
      server.script(`LEAD-SKILL-2-${version}`, [
        {
          blocks: [
            toolUse(
              'Agent',
              { description: 'impl P-2', prompt: `WORKER-B-${version}: implement P-2`, subagent_type: 'general-purpose', run_in_background: true },
              'toolu_b_worker',
            ),
          ],
        },
        (r) => {
          seen.worker = agentIdOf(r, 'toolu_b_worker');
          return {
            blocks: [
              bash(
                state([
                  {
                    task_id: 't1',
                    ticket_id: 'P-2',
                    status: 'in_progress',
                    dispatched_at: now(),
                    agent_id: seen.worker,
                    remaining_work: [`REPL-MARK-B-${version}: finish P-2`],
                  },
                ]),
              ),
            ],
          };
        },
        { blocks: [bash(next, { run_in_background: true }, 'toolu_b_next1')] },
        { blocks: [text('The watchdog runs in the background; I will act when it exits.')] },
        (r) => {
          // Woken by the notification of the background `next`: read its output (SKILL.md section 2).
          const t = lastText(r);
          seen.notification = t;
          return { blocks: [toolUse('Read', { file_path: /<output-file>([^<]+)<\/output-file>/.exec(t)?.[1] ?? '' }, 'toolu_b_read')] };
        },
        (r) => {
          const t = resultOf(r, 'toolu_b_read');
          seen.first = JSON.parse(t.slice(t.indexOf('{'), t.lastIndexOf('}') + 1));
          return { blocks: [toolUse('TaskStop', { task_id: seen.worker }, 'toolu_b_stop')] };
        },
        (r) => {
          seen.stopped = resultOf(r, 'toolu_b_stop');
          return {
            blocks: [
              toolUse(
                'Agent',
                { description: 'Recovery P-2 #1', prompt: seen.first.requests[0].prompt, subagent_type: 'general-purpose', run_in_background: true },
                'toolu_b_relaunch',
              ),
            ],
          };
        },
        (r) => {
          seen.replacement = agentIdOf(r, 'toolu_b_relaunch');
          return {
            blocks: [
              bash(
                state([
                  { task_id: 't1', ticket_id: 'P-2', status: 'cancelled', agent_id: seen.worker },
                  { task_id: 't1-r1', ticket_id: 'P-2', status: 'in_progress', dispatched_at: now(), agent_id: seen.replacement },
                ]),
              ),
            ],
          };
        },
        // No background agent of its own will be left running: from here `next` runs in the foreground.
        { blocks: [bash(next, { timeout: 600000 }, 'toolu_b_next2')] },
        (r) => {
          seen.second = nextDocOf(r, 'toolu_b_next2');
          return {
            blocks: [
              bash(
                state([
                  { task_id: 't1', ticket_id: 'P-2', status: 'cancelled', agent_id: seen.worker },
                  { task_id: 't1-r1', ticket_id: 'P-2', status: 'completed', dispatched_at: now(), agent_id: seen.replacement },
                ]),
              ),
            ],
          };
        },
        { blocks: [bash(next, { timeout: 600000 }, 'toolu_b_next3')] },
        (r) => {
          seen.third = nextDocOf(r, 'toolu_b_next3');
          return { blocks: [text('Wave complete.')] };
        },
      ]);
      const cwd = (await import('../helpers/temp-dir.js')).tempDir();
      const s = startClaude({
        server,
        version,
        prompt: `LEAD-SKILL-2-${version}: dispatch the wave for epic E-LEAD2 and supervise it with the dispatch-watchdog skill`,
        cwd,
      });
      expect(await s.exited, s.stderr()).toEqual({ code: 0, signal: null });
      expect(seen.notification).toContain('<status>failed</status>');
      expect(seen.first).toMatchObject({ reason: 'requests', exit_code: 10 });
      expect(seen.first.requests[0]).toMatchObject({ kind: 'redispatch', agent_id: seen.worker, recovery_task_id: 't1-r1' });
      expect(seen.stopped).toContain(`Successfully stopped task: ${seen.worker}`);
      expect(seen.second).toMatchObject({ reason: 'attention', exit_code: 13 });
      expect(seen.third).toMatchObject({ reason: 'wave_complete', exit_code: 0 });
    });

    // On the oldest version only: the newest -p lead waits for its background agents before it exits (docs/claude-code.md).
    if (version === OLDEST)
      it("-p lead beside serve: serve watches the epic, the lead's next follows it (exit 10 with serve's request), the lead carries it out", async () => {
        const seen: Record<string, any> = {};
        const now = () => new Date().toISOString();
        const epic = 'E-LEAD3';
        const next = NEXT.replaceAll(EPIC, epic);
        const state = (rows: object[]) => writeState(rows).replaceAll(EPIC, epic);
        const cwd = (await import('../helpers/temp-dir.js')).tempDir();
        const stateDir = path.join(cwd, '.onex_state');
        mkdirSync(stateDir, { recursive: true });
        const serve = spawnCli(['serve', '--state-dir', stateDir, '--timeout', '3', '--check-interval', '1']);
        const lockPid = () => {
          try {
            return (JSON.parse(readFileSync(path.join(stateDir, 'epics', epic, 'watchdog.lock'), 'utf8')) as { pid: number }).pid;
          } catch {
            return undefined;
          }
        };
        try {
          server.script('REPL-MARK-C', [{ blocks: [text('P-3 finished.')] }]);
          server.script('WORKER-C', [{ freeze: 'before_bytes' }]);
          server.script('LEAD-SKILL-3', [
            {
              blocks: [
                toolUse(
                  'Agent',
                  { description: 'impl P-3', prompt: 'WORKER-C: implement P-3', subagent_type: 'general-purpose', run_in_background: true },
                  'toolu_c_worker',
                ),
              ],
            },
            (r) => {
              seen.worker = agentIdOf(r, 'toolu_c_worker');
              return {
                blocks: [
                  bash(
                    state([
                      {
                        task_id: 't1',
                        ticket_id: 'P-3',
                        status: 'in_progress',
                        dispatched_at: now(),
                        agent_id: seen.worker,
                        remaining_work: ['REPL-MARK-C: finish P-3'],
                      },
                    ]),
                  ),
                ],
              };
            },
            // The lead runs next once serve watches the epic (serve looks every 2 s).
            { hold: until(() => lockPid() === serve.pid, 60_000, 'serve watches the epic'), blocks: [bash(next, { timeout: 600000 }, 'toolu_c_next1')] },
            (r) => {
              seen.nextText = resultOf(r, 'toolu_c_next1');
              seen.first = nextDocOf(r, 'toolu_c_next1');
              return { blocks: [toolUse('TaskStop', { task_id: seen.worker }, 'toolu_c_stop')] };
            },
            (r) => {
              seen.stopped = resultOf(r, 'toolu_c_stop');
              return { blocks: [text('Stopped the stalled worker; the replacement is next.')] };
            },
          ]);
          const s = startClaude({ server, prompt: 'LEAD-SKILL-3: dispatch the wave for epic E-LEAD3 and supervise it with the dispatch-watchdog skill', cwd });
          expect(await s.exited, s.stderr()).toEqual({ code: 0, signal: null });
          expect(seen.nextText).toContain(`is watched by pid ${serve.pid}`);
          expect(seen.first).toMatchObject({ reason: 'requests', exit_code: 10 });
          expect(seen.first.requests[0]).toMatchObject({ kind: 'redispatch', task_id: 't1', agent_id: seen.worker, recovery_task_id: 't1-r1' });
          expect(seen.stopped).toContain(`Successfully stopped task: ${seen.worker}`);
          // One watchdog judged the epic: serve's. The lead's next only relayed.
          expect(lockPid()).toBe(serve.pid);
          expect(readEvents(stateDir).filter((e) => e.event === 'watchdog_started' && e.epic_id === epic)).toHaveLength(1);
        } finally {
          serve.kill('SIGKILL');
        }
      });
  },
  { timeout: 120_000 },
);
