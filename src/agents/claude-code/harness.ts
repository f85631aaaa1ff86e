// Claude Code behind the agent harness port (agents/harness.ts): its tools by kind, its transcripts
// and hook activity (one observer), its session registry (which pid runs a session), its resume,
// nudge and redispatch commands, its words in reasons, its defaults and its replay fold.
import { TELEMETRY_DIALECTS } from '../../contracts/telemetry-dialects.js';
import path from 'node:path';
import type { Task } from '../../contracts/state-file.js';
import { DEFAULTS } from '../../contracts/defaults.js';
import { DEFAULT_AGENT_CLI } from '../../contracts/vocabulary.js';
import { onlyRows, type AgentHarness, type HarnessContext, type HarnessSession } from '../harness.js';
import { CLAUDE_WORDS, classifyClaudeTool } from './parse/tool-kinds.js';
import { replayTranscript } from './parse/replay-transcript.js';
import { scoreReplays } from './parse/replay-score.js';
import { createClaudeObserver } from './read/claude-observer.js';
import { resolveProjectsDir, TranscriptFinder } from './read/find-transcript.js';
import { createRunObserver } from './read/run-observer.js';
import { createSessionRegistry } from './read/session-registry.js';
import { findChildTranscripts } from './read/replay-files.js';

const readsRow = (task: Task) => (task.agent ?? DEFAULT_AGENT_CLI) === 'claude-code';

/** Claude Code's config dir (config `claude.config_dir`, else $CLAUDE_CONFIG_DIR, else ~/.claude). */
export function claudeConfigDirOf(ctx: Pick<HarnessContext, 'config' | 'env'>): string {
  return path.dirname(resolveProjectsDir({ configDir: ctx.config.claude?.config_dir, env: ctx.env }));
}

function connect(ctx: HarnessContext): HarnessSession {
  const configDir = ctx.config.claude?.config_dir;
  const observer = createClaudeObserver({
    paths: ctx.paths,
    claudeConfigDir: configDir,
    env: ctx.env,
    isPersistent: ctx.isPersistent,
    baseTimeoutMs: ctx.baseTimeoutMs,
    healthyReadMs: (ctx.config.healthy_read_seconds ?? DEFAULTS.healthy_read_seconds) * 1000,
  });
  const finder = new TranscriptFinder(resolveProjectsDir({ configDir, env: ctx.env }));
  const registry = createSessionRegistry(path.join(claudeConfigDirOf(ctx), 'sessions'));
  return {
    observers: [onlyRows(observer, readsRow)],
    // A run whose process is gone though no SessionEnd said so (kill -9, or no hook installed).
    liveObservers: [onlyRows(createRunObserver({ registry, sessionOf: (t) => observer.sessionOf(t) }), readsRow)],
    async findFiles(task, nowMs) {
      if (!task.transcriptPath && !task.agentId && !task.sessionId) return { reason: 'the row names no transcript_path, agent_id or session_id to look by' };
      try {
        const found = await finder.find({ transcriptPath: task.transcriptPath, sessionId: task.sessionId, agentId: task.agentId }, nowMs);
        return found.ok ? { transcript: found.location.path } : { reason: found.reason };
      } catch (e) {
        return { reason: `the transcript search failed: ${(e as Error).message}` };
      }
    },
    sessionPid: registry.sessionPid,
  };
}

export const claudeCodeHarness: AgentHarness = {
  name: 'claude-code',
  readsRow,
  classifyTool: classifyClaudeTool,
  editTools: new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']),
  commands: {
    resume: ['claude', '--resume', '{session_id}', '-p', '{prompt}'],
    nudge: ['claude', '--resume', '{session_id}', '-p', '{prompt}'],
    redispatch: ['claude', '-p', '{prompt}'],
  },
  wording: {
    ...CLAUDE_WORDS,
    resumeHint: 'claude --resume <session_id> -p "<prompt>"',
  },
  defaults: { shellTimeoutMs: DEFAULTS.fixed.claude_bash_timeout_ms },
  telemetry: TELEMETRY_DIALECTS['claude-code'],
  replay: {
    // The fallback of `replay`: any file another harness does not claim is read as a transcript.
    isOwnFile: (_file, head) => !/^\s*\{[^\n]*"type"\s*:\s*"session_meta"/.test(head),
    childFiles: findChildTranscripts,
    replay: replayTranscript,
    score: scoreReplays,
  },
  connect,
};
