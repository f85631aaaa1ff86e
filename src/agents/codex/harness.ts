// The Codex CLI harness (agents/harness.ts; docs/codex.md): which rows are Codex's, what its calls
// are and how long Codex lets them run, how it is resumed and relaunched, its words, its readers.
import { TELEMETRY_DIALECTS } from '../../contracts/telemetry-dialects.js';
import { onlyRows, type AgentHarness, type HarnessContext, type HarnessSession } from '../harness.js';
import { CODEX_REDISPATCH_ARGV, CODEX_RESUME_ARGV, CODEX_STOP_HINT } from './commands.js';
import { codexCallBudget, EXEC_DEFAULT_YIELD_MS } from './parse/call-budget.js';
import { replayRollout, scoreRollouts } from './parse/replay.js';
import { codexHomeOf, findRollout, isRolloutPath } from './read/codex-home.js';
import { createCodexObserver } from './read/codex-observer.js';
import { createCodexHookObserver } from './read/codex-hooks.js';
import { combineObservers } from '../../observe/read/observer.js';
import { isCodexRow, threadOfRow } from './row.js';

export const codexHarness: AgentHarness = {
  name: 'codex',
  readsRow: isCodexRow,
  classifyTool: (call) => {
    const b = codexCallBudget(call.name, {});
    return {
      kind: b.kind,
      ...(b.timeoutMs !== undefined ? { defaultTimeoutMs: b.timeoutMs } : {}),
      ...(call.name === 'write_stdin' || call.name === 'wait' ? { isStatusPoll: true } : {}),
    };
  },
  editTools: new Set(['apply_patch']),
  commands: { resume: CODEX_RESUME_ARGV, nudge: CODEX_RESUME_ARGV, redispatch: CODEX_REDISPATCH_ARGV },
  wording: {
    displayName: 'Codex',
    hiddenPromptHint: 'codex exec never waits for a person (approvals are never asked), so this is an overrun',
    resumeHint: `codex exec resume <session_id> --json "<prompt>" (run in the agent's own cwd, with its CODEX_HOME)`,
    stopHint: CODEX_STOP_HINT,
  },
  // Codex's shell has no timeout: a call's budget is its yield (default 10 s), then polls.
  defaults: { shellTimeoutMs: EXEC_DEFAULT_YIELD_MS },
  telemetry: TELEMETRY_DIALECTS.codex,
  replay: {
    // A rollout by its name, or by its first record (a copy renamed): `session_meta` opens every rollout.
    isOwnFile: (file, head) => isRolloutPath(file) || /^\s*\{[^\n]*"type"\s*:\s*"session_meta"/.test(head),
    childFiles: async () => [],
    replay: replayRollout,
    score: scoreRollouts,
  },
  connect(ctx: HarnessContext): HarnessSession {
    return {
      // Its rollout, stdout and owner, then the hook lines Codex sends (hook install --codex), as one observer.
      observers: [combineObservers('codex', [createCodexObserver({ env: ctx.env }), onlyRows(createCodexHookObserver(ctx.paths), isCodexRow)])],
      async findFiles(task) {
        if (isRolloutPath(task.transcriptPath)) return { transcript: task.transcriptPath };
        const thread = threadOfRow(task);
        if (!thread) return { reason: 'the row names no session_id (the thread id from thread.started) and no transcript_path' };
        const home = codexHomeOf(undefined, task.raw?.codex_home, ctx.env);
        const hit = findRollout(home, thread);
        return hit ? { transcript: hit } : { reason: `no rollout-*-${thread}.jsonl under ${home}/sessions` };
      },
    };
  },
};
