// Shared pieces of the scripted-lead tests (test/realagent/scripted-lead*.test.ts): an LLM lead
// scripted through model-server.ts that follows skills/dispatch-watchdog/SKILL.md with the real
// tools. The skill's CLI command, a state file written with Bash, and reading tool results back.
import path from 'node:path';
import { REPO_ROOT } from './cli.js';
import { contentText, toolUse, type Block, type LoggedRequest } from './model-server.js';

/** The skill's command, with ${CLAUDE_PLUGIN_ROOT} filled in as Claude Code fills it. */
export const SKILL_CLI = `node "${path.join(REPO_ROOT, 'bundle', 'cli.cjs')}"`;
export const bashCall = (command: string, extra: Record<string, unknown> = {}, id?: string): Block =>
  toolUse('Bash', { command, description: 'run a command', ...extra }, id);
/** `next` as the skill runs it, with a short window so the test does not wait minutes. */
export const nextCommand = (epic: string, extra = '') => `${SKILL_CLI} next --epic-id ${epic} --json --timeout 3 --check-interval 1${extra}`;

/** A state file as the lead writes it with Bash (JSON is YAML), replaced whole. */
export const writeStateCommand = (epic: string, rows: object[]) =>
  `mkdir -p .onex_state/epics/${epic} && cat > .onex_state/epics/${epic}/state.yaml.tmp <<'EOF'\n${JSON.stringify({ current_wave: { wave_id: 1, dispatched_at: new Date().toISOString(), tasks: rows } })}\nEOF\nmv .onex_state/epics/${epic}/state.yaml.tmp .onex_state/epics/${epic}/state.yaml`;

/** The text of the result of tool call `id`, wherever it is in the conversation (a notification may follow it). */
export function resultOf(r: LoggedRequest, id: string): string {
  for (const m of r.body?.messages ?? []) {
    if (!Array.isArray(m?.content)) continue;
    for (const b of m.content) if (b?.type === 'tool_result' && b.tool_use_id === id) return contentText(b.content);
  }
  return '';
}
export const agentIdOf = (r: LoggedRequest, id: string) => /agentId: (a[0-9a-f]+)/.exec(resultOf(r, id))?.[1];
/** The JSON document `next` printed, from a tool result's text (a non-zero exit is reported as an error, stdout kept). */
export function jsonDocOf(t: string): Record<string, any> {
  return JSON.parse(t.slice(t.indexOf('{'), t.lastIndexOf('}') + 1));
}
export const nextDocOf = (r: LoggedRequest, id: string) => jsonDocOf(resultOf(r, id));
/** A string as one single-quoted shell word. */
export const shellWord = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
