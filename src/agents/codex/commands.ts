// How a Codex agent is resumed, relaunched and stopped (Codex CLI 0.171.0; reference §8 f, §12.12–14):
// the argv templates the process adapter runs for a Codex row when `agents.codex` names none, and
// the words a request to an orchestrator uses. Never `--ephemeral`: it writes no rollout to watch.

/** The flags every watched `codex exec` needs: events on stdout, no approval prompts (exec never asks), any directory. */
export const CODEX_EXEC_FLAGS = ['--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox'] as const;

/** A fresh Codex agent with the narrowed prompt (a new thread). Run in the stalled agent's cwd. */
export const CODEX_REDISPATCH_ARGV: readonly string[] = ['codex', 'exec', ...CODEX_EXEC_FLAGS, '{prompt}'];

/** The agent's own thread continued (same thread id, same rollout, a new turn). Run in its own cwd: the resumed turn works where it is started. */
export const CODEX_RESUME_ARGV: readonly string[] = ['codex', 'exec', 'resume', '{session_id}', ...CODEX_EXEC_FLAGS, '{prompt}'];

/** The short form a request's answer instructions give (a Codex agent is stopped at its native binary, not the npm wrapper, and leaves its commands running). */
export const CODEX_STOP_HINT =
  'Codex: SIGINT to the native codex pid, SIGKILL after a grace, then the process groups of the commands it left; resume in its own cwd';
