// Issue 10, agent teams: a lead that ended its turn while the teammates it spawned (`Task` with
// `team_name` + `run_in_background`, answered `teammate_spawned`) still work waits on its team;
// it is neither finished nor stalled until they are done. Built from the real 2.1.37 lead
// (test/fixtures/real/agentping-2.1.37-team-lead.jsonl, records 1–54, unchanged) followed by the
// records that excerpt does not reach, written in the shapes Claude Code uses for them: a
// `system/turn_duration` turn end (as in the real 2.1.39 record, shared fixtures), and teammate
// messages delivered to the lead as user text `<teammate-message teammate_id="…">{json}</…>`
// (shapes in shared/reference/claude-code-surfaces.md §3.5–3.6). Their field values (session,
// cwd, team) are the real lead's.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { replayTranscript } from '../../src/agents/claude-code/parse/replay-transcript.js';
import type { Task } from '../../src/contracts/state-file.js';
import { assess } from '../../src/core/assess.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { parseTranscriptText, summarizeTranscript } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { runningTeammates } from '../../src/agents/claude-code/parse/transcript-state.js';
import { expectColdAgreesWithLoop, replayInputOf } from '../helpers/replay-agreement.js';
import { tempDir } from '../helpers/temp-dir.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const REAL = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/real/agentping-2.1.37-team-lead.jsonl'), 'utf8')
  .trim()
  .split('\n');
const last = JSON.parse(REAL.at(-1)!) as Record<string, unknown>;
const common = Object.fromEntries(['isSidechain', 'teamName', 'userType', 'cwd', 'sessionId', 'version', 'gitBranch', 'slug'].map((k) => [k, last[k]]));
const TEAM = ['scaffolder', 'hook-builder', 'component-builder', 'shell-builder'];
const at = (hms: string) => `2026-02-08T${hms}Z`;
let n = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
const turnEnd = (ts: string) =>
  JSON.stringify({ parentUuid: null, ...common, type: 'system', subtype: 'turn_duration', durationMs: 1000, timestamp: at(ts), uuid: uuid(), isMeta: false });
const teammateMessage = (ts: string, from: string, body: object, color = 'blue') =>
  JSON.stringify({
    parentUuid: null,
    ...common,
    type: 'user',
    message: { role: 'user', content: `<teammate-message teammate_id="${from}" color="${color}">\n${JSON.stringify(body)}\n</teammate-message>` },
    uuid: uuid(),
    timestamp: at(ts),
  });
const leadText = (ts: string, text: string) =>
  JSON.stringify({
    parentUuid: null,
    ...common,
    message: { model: 'claude-opus-4-6', id: `msg_${uuid()}`, type: 'message', role: 'assistant', content: [{ type: 'text', text }], stop_reason: null },
    type: 'assistant',
    uuid: uuid(),
    timestamp: at(ts),
  });
const approvals = TEAM.map((name, i) =>
  teammateMessage(`23:17:4${6 + (i >> 1)}.${i}00`, name, {
    type: 'shutdown_approved',
    requestId: `shutdown-17705926${60284 + i}@${name}`,
    from: name,
    timestamp: at('23:17:46.000'),
    paneId: 'in-process',
    backendType: 'in-process',
  }),
);

/** The verdict on the lead at `nowMs`, from its whole transcript. */
function judge(lines: string[], nowMs: number) {
  const { state } = parseTranscriptText(lines.join('\n') + '\n');
  const task: Task = { taskId: 't', ticketId: 'T-1', status: 'in_progress', statusClass: 'in_flight' };
  return assess(task, mergeObservations([observeRow(task), summarizeTranscript(state)]), DEFAULT_POLICY, nowMs);
}

async function replayOf(lines: string[]) {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'lead.jsonl'), lines.join('\n') + '\n');
  return { dir, r: replayTranscript(await replayInputOf(dir, 'lead.jsonl'), DEFAULT_POLICY) };
}

describe('a team lead waits on the teammates it spawned (real 2.1.37 records)', () => {
  it('the real spawns are tracked: four teammates <name>@canvas-build running, the team known from TeamCreate', () => {
    const { state } = parseTranscriptText(REAL.join('\n') + '\n');
    expect(runningTeammates(state)).toEqual(TEAM.map((t) => `${t}@canvas-build`));
    expect(state).toMatchObject({ teamName: 'canvas-build', isTeamKnown: true });
  });

  it('its turn ends after the shutdown requests, before any teammate answered: waiting on its team, not finished, never stalled', async () => {
    const { dir, r } = await replayOf([...REAL, turnEnd('23:17:45.000')]);
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy']);
    expect(r.summary.stalls).toBe(0);
    // An hour later: still waiting, and the reason names the team and what is not seen.
    const v = judge([...REAL, turnEnd('23:17:45.000')], Date.parse(at('23:17:45.000')) + 3_600_000);
    expect(v).toMatchObject({ kind: 'healthy' });
    expect(v.reason).toContain(
      'waiting on teammates scaffolder@canvas-build, hook-builder@canvas-build, component-builder@canvas-build, shell-builder@canvas-build',
    );
    expect(v.reason).toContain('their transcripts are not read');
    expect(await expectColdAgreesWithLoop(dir, 'lead.jsonl')).toBeGreaterThan(0);
  });

  it('every teammate approves its shutdown: the lead, woken, answers and ends its turn: finished (inconsistent with the in-progress row)', async () => {
    const { dir, r } = await replayOf([
      ...REAL,
      turnEnd('23:17:45.000'),
      ...approvals,
      leadText('23:17:52.000', 'All four teammates shut down. The Canvas app is built.'),
      turnEnd('23:17:53.000'),
    ]);
    expect(r.changes.map((c) => [c.verdict.kind, c.atMs])).toEqual([
      ['healthy', Date.parse(at('23:15:04.630'))],
      ['inconsistent', Date.parse(at('23:17:53.000'))],
    ]);
    expect(r.summary.stalls).toBe(0);
    expect(await expectColdAgreesWithLoop(dir, 'lead.jsonl')).toBeGreaterThan(0);
  });

  it('a team that is gone does not hide a lead that stopped: woken by the last approval and silent, it stalls one window later', async () => {
    const { r } = await replayOf([...REAL, turnEnd('23:17:45.000'), ...approvals]);
    expect(r.changes.map((c) => c.verdict.kind)).toEqual(['healthy', 'stalled']);
    expect(r.changes[1]!.atMs).toBe(Date.parse(at('23:17:47.300')) + 120_001);
  });

  it("idle teammates (idle_notification) do not hold the lead; one still at work does; the system's teammate_terminated ends one", async () => {
    const idle = (name: string, ts: string) => teammateMessage(ts, name, { type: 'idle_notification', from: name, timestamp: at(ts), idleReason: 'available' });
    const terminated = teammateMessage('23:18:10.000', 'system', { type: 'teammate_terminated', message: 'component-builder has shut down.' });
    const lines = [
      ...REAL.slice(0, 22),
      turnEnd('23:16:50.000'),
      idle('scaffolder', '23:17:00.000'),
      idle('hook-builder', '23:17:00.100'),
      leadText('23:17:03.000', 'Two done, waiting on the others.'),
      turnEnd('23:17:04.000'),
      terminated,
      idle('shell-builder', '23:18:11.000'),
      leadText('23:18:14.000', 'All done.'),
      turnEnd('23:18:15.000'),
    ];
    const { dir, r } = await replayOf(lines);
    const { state } = parseTranscriptText(lines.slice(0, 27).join('\n') + '\n');
    expect(runningTeammates(state)).toEqual(['component-builder@canvas-build', 'shell-builder@canvas-build']);
    expect(r.changes.map((c) => [c.verdict.kind, c.atMs])).toEqual([
      ['healthy', Date.parse(at('23:15:04.630'))],
      ['inconsistent', Date.parse(at('23:18:15.000'))],
    ]);
    expect(await expectColdAgreesWithLoop(dir, 'lead.jsonl')).toBeGreaterThan(0);
  });
});
