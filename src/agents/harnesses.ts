// The agent CLIs the watchdog has a harness for (agents/harness.ts), one row each: the watch builds
// each one's readers, and a row is read and judged through the harness its `agent:` names.
import type { Task } from '../contracts/state-file.js';
import { DEFAULT_AGENT_CLI, type AgentCli } from '../contracts/vocabulary.js';
import { claudeCodeHarness } from './claude-code/harness.js';
import { codexHarness } from './codex/harness.js';
import type { AgentHarness } from './harness.js';

/** Every harness, by the name a row gives (`agent:`). A CLI without one yet: its rows are read by none (their own row only). */
export const HARNESSES: Readonly<Partial<Record<AgentCli, AgentHarness>>> = {
  'claude-code': claudeCodeHarness,
  codex: codexHarness,
};

/** The CLI a row names: its normalized `agent`, else the row as written (a task built before normalization), else claude-code. */
export function agentCliOf(task: Pick<Task, 'agent'> & { raw?: Task['raw'] }): string {
  const cli = task.agent ?? task.raw?.agent;
  return typeof cli === 'string' ? cli : DEFAULT_AGENT_CLI;
}

/** The harness that reads `task` (its `agent`, default claude-code), or undefined when there is none for that CLI. */
export function harnessOf(task: Pick<Task, 'agent'> & { raw?: Task['raw'] }): AgentHarness | undefined {
  const cli = agentCliOf(task);
  return Object.hasOwn(HARNESSES, cli) ? HARNESSES[cli as AgentCli] : undefined;
}

/** The harnesses, in a stable order. */
export function allHarnesses(): AgentHarness[] {
  return Object.values(HARNESSES).filter((h): h is AgentHarness => h !== undefined);
}
