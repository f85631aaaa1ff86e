// The port of the process adapter's per-CLI acts (agent-process-acts.ts keeps the registry): what a
// CLI whose agent is not simply "the row's pid and its process group" tells the adapter.
import type { Task } from '../../contracts/state-file.js';
import type { ActionOutcome, AdapterDeps } from './adapter.js';

export interface AgentProcessActs {
  /** The pid of the process that owns the row's session now, as the CLI records it (a lock holder), if any. */
  liveOwner(task: Task): number | undefined;
  /** Stop the agent: `pid` is the row's verified pid (undefined when it is gone), `owner` its live owner. */
  stop(pid: number | undefined, owner: number | undefined, graceMs: number, deps: AdapterDeps): Promise<ActionOutcome>;
  /** Variables its resumed or relaunched run needs in its environment. */
  launchEnv(task: Task): Record<string, string>;
}
