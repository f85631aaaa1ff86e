// The process adapter's per-CLI acts (docs/architecture.md "How to add an agent CLI"): a CLI whose
// agent is not simply "the row's pid and its process group" says here how its live owner is found,
// how it is stopped and what environment its relaunch needs. A CLI with no entry (Claude Code) is
// stopped as a process group and relaunched in the watchdog's environment.
import type { Task } from '../../contracts/state-file.js';
import type { AgentCli } from '../../contracts/vocabulary.js';
import { agentCliOf } from '../../agents/harnesses.js';
import { codexProcessActs } from '../../agents/codex/act/process-acts.js';
import type { AgentProcessActs } from './process-acts.js';

export type { AgentProcessActs };

const ACTS: Readonly<Partial<Record<AgentCli, AgentProcessActs>>> = { codex: codexProcessActs };

/** The row's CLI's own acts, when it has any. */
export function processActsOf(task: Pick<Task, 'agent' | 'raw'>): AgentProcessActs | undefined {
  const cli = agentCliOf(task);
  return Object.hasOwn(ACTS, cli) ? ACTS[cli as AgentCli] : undefined;
}
