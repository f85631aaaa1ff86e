// How a Codex agent is resumed, relaunched and stopped (Codex CLI 0.171.0; reference §8 f, §12.12–14):
// the argv templates the process adapter runs for a Codex row when `agents.codex` names none, and
// the words a request to an orchestrator uses. Never `--ephemeral`: it writes no rollout to watch.

/** The flags every watched `codex exec` needs: events on stdout, no approval prompts (exec never asks), any directory. */
export const CODEX_EXEC_FLAGS = ['--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox'] as const;

/** A fresh Codex agent with the narrowed prompt (a new thread). Run in the stalled agent's cwd. */
export const CODEX_REDISPATCH_ARGV: readonly string[] = ['codex', 'exec', ...CODEX_EXEC_FLAGS, '{prompt}'];

/** The agent's own thread continued (same thread id, same rollout, a new turn). Run in its own cwd: the resumed turn works where it is started. */
export const CODEX_RESUME_ARGV: readonly string[] = ['codex', 'exec', 'resume', '{session_id}', ...CODEX_EXEC_FLAGS, '{prompt}'];

/** How to stop a Codex agent, in words for a request. */
export const CODEX_STOP_WORDS =
  'SIGINT to the native codex pid (the holder of $CODEX_HOME/thread-writer-locks/<session_id>.lock, a child of the node wrapper on Node < 22.15), SIGKILL after a grace, then kill the process group of each command it left (bash -lc children)';

/** How to resume a Codex agent, in words for a request. */
export const CODEX_RESUME_WORDS =
  'codex exec resume <session_id> --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox "<resume_prompt>", run in the agent\'s own cwd with the same CODEX_HOME';
