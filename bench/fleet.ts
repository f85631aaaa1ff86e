// A wave of Claude Code agents at fleet scale (issue 12): `agents` subagents in sessions of 20
// (each session's parent transcript reports its children), transcripts of `fileBytes` each, a
// state file listing them all, hook activity for one agent in ten. Generated into a temp dir.
// `measureFleet` runs in a child process (bench/fleet-child.ts) so its peak RSS is its own.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

export interface Fleet {
  stateDir: string;
  claudeDir: string;
  agents: number;
  nowMs: number;
  transcripts: string[];
  bytes: number;
}

export const FLEET_NOW = Date.parse('2026-04-02T12:00:00Z');
const PER_SESSION = 20;

/** One tool call and its result by `agent`, about 1 KB; each call is its own message, with its `message.id` as Claude Code writes it. */
export function transcriptLines(agent: string, session: string, i: number, t: number): string {
  const id = `u${i}`;
  return (
    JSON.stringify({
      type: 'assistant',
      timestamp: new Date(t).toISOString(),
      agentId: agent,
      sessionId: session,
      isSidechain: true,
      message: { id: `msg_${i}`, role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `/src/${i}.ts` } }] },
    }) +
    '\n' +
    JSON.stringify({
      type: 'user',
      timestamp: new Date(t + 200).toISOString(),
      agentId: agent,
      sessionId: session,
      isSidechain: true,
      message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: 'y'.repeat(700) }] },
    }) +
    '\n'
  );
}

/** Row `k` of the fleet's state file: an agent in session `sess-<k / 20>`, active 30 s before `now`. */
export function fleetRow(k: number, now = FLEET_NOW): Record<string, unknown> {
  return {
    task_id: `t${k}`,
    ticket_id: `PROJ-${10_000 + k}`,
    status: 'in_progress',
    agent_id: `a${k}`,
    session_id: `sess-${Math.floor(k / PER_SESSION)}`,
    team_name: 'epic-team',
    dispatched_at: new Date(now - 3600_000).toISOString(),
    last_activity_ts: new Date(now - 30_000).toISOString(),
    last_tool_name: 'Read',
    last_output: `working on PROJ-${10_000 + k}: reading the module and its tests before the change`,
    agent_name: `worker-${k}`,
    redispatch_count: 0,
  };
}

/** The fleet's state file listing `tasks`, as `yaml` writes it. */
export function fleetStateYaml(tasks: Record<string, unknown>[], now = FLEET_NOW): string {
  return stringify({ epic_id: 'E-1', current_wave: { wave_id: 1, dispatched_at: new Date(now - 3600_000).toISOString(), tasks } });
}

/** `now`: the moment the fleet is 30 s quiet at (FLEET_NOW for the in-process benches; the real clock for a real loop). */
export function generateFleet(
  root: string,
  agents: number,
  fileBytes: number,
  now = FLEET_NOW,
  lines: (agent: string, session: string, i: number, t: number) => string = transcriptLines,
): Fleet {
  const stateDir = path.join(root, 'state');
  const claudeDir = path.join(root, 'claude');
  const project = path.join(claudeDir, 'projects', '-work-repo');
  const block = Array.from({ length: 100 }, (_, i) => lines('AGENT', 'SESSION', i, now - 30_000)).join('');
  const body = block.repeat(Math.max(1, Math.ceil(fileBytes / block.length)));
  const transcripts: string[] = [];
  const tasks: Record<string, unknown>[] = [];
  let bytes = 0;
  for (let k = 0; k < agents; k++) {
    const session = `sess-${Math.floor(k / PER_SESSION)}`;
    const sessionDir = path.join(project, session, 'subagents');
    if (k % PER_SESSION === 0) {
      mkdirSync(sessionDir, { recursive: true });
      const parent = body.replaceAll('AGENT', 'lead').replaceAll('SESSION', session).replaceAll('"isSidechain":true', '"isSidechain":false');
      writeFileSync(path.join(project, `${session}.jsonl`), parent);
      bytes += parent.length;
    }
    const file = path.join(sessionDir, `agent-a${k}.jsonl`);
    const text = body.replaceAll('AGENT', `a${k}`).replaceAll('SESSION', session);
    writeFileSync(file, text);
    bytes += text.length;
    transcripts.push(file);
    tasks.push(fleetRow(k, now));
  }
  const epicDir = path.join(stateDir, 'epics', 'E-1');
  mkdirSync(epicDir, { recursive: true });
  writeFileSync(path.join(epicDir, 'state.yaml'), fleetStateYaml(tasks, now));
  const activity = path.join(stateDir, 'activity');
  mkdirSync(activity, { recursive: true });
  for (let k = 0; k < agents; k += 10) {
    writeFileSync(
      path.join(activity, `a${k}.ndjson`),
      JSON.stringify({
        ts: new Date(now - 30_000).toISOString(),
        event: 'PostToolUse',
        session_id: `sess-${Math.floor(k / PER_SESSION)}`,
        agent_id: `a${k}`,
        tool_name: 'Read',
        tool_use_id: 'h1',
      }) + '\n',
    );
  }
  return { stateDir, claudeDir, agents, nowMs: now, transcripts, bytes };
}
