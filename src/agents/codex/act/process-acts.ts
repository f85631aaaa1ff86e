// What the process adapter (act/agents/process.ts) does differently for a Codex row: the live
// owner of its thread (the holder of its writer lock, the native agent that outlives a killed
// node wrapper), how it is stopped (stop.ts), and the environment its resumed or fresh run
// needs (the CODEX_HOME its rollout lies in). I/O: /proc, flock probes, signals.
import type { AgentProcessActs } from '../../../act/agents/process-acts.js';
import { codexHomeOf, lockPathOf } from '../read/codex-home.js';
import { lockHolder } from '../read/owner.js';
import { stopCodex } from './stop.js';

export const codexProcessActs: AgentProcessActs = {
  liveOwner(task) {
    if (!task.sessionId) return undefined;
    const holder = lockHolder(lockPathOf(codexHomeOf(task.transcriptPath, task.raw?.codex_home, process.env), task.sessionId));
    return typeof holder === 'number' ? holder : undefined;
  },
  stop: stopCodex,
  launchEnv: (task) => ({ CODEX_HOME: codexHomeOf(task.transcriptPath, task.raw?.codex_home, process.env) }),
};
