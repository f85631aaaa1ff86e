// Claude Code's tools by kind (agents/harness.ts classifyTool): what the core judges a call by,
// never its name; and its words in reasons (the lens `replay` merges through, as the check does). Tool names: shared/reference/claude-code-surfaces.md. Pure.
import type { AgentWords, EvidenceLens, ToolClass, ToolClassifier } from '../../../observe/parse/observation.js';
import { DEFAULTS } from '../../../contracts/defaults.js';
import { isSubagentTool } from './records/tasks.js';

const FILE_TOOLS = new Set(['Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'NotebookRead', 'Glob', 'Grep', 'LS']);
const WEB_TOOLS = new Set(['WebFetch', 'WebSearch']);
/** Tools that only ask how background work is going (a team's task list, a background shell or task's output). */
const STATUS_POLL_TOOLS = new Set(['TaskList', 'TaskGet', 'TaskOutput', 'BashOutput']);

/** Bash: the CLI's own limit when the call names no `timeout` (claude-code-surfaces.md: 2 minutes). */
const SHELL: ToolClass = { kind: 'shell', defaultTimeoutMs: DEFAULTS.fixed.claude_bash_timeout_ms };
const SUBAGENT: ToolClass = { kind: 'subagent' };
const FILE: ToolClass = { kind: 'file' };
const WEB: ToolClass = { kind: 'web' };
const MCP: ToolClass = { kind: 'mcp' };
const POLL: ToolClass = { kind: 'other', isStatusPoll: true };
const OTHER: ToolClass = { kind: 'other' };

/**
 * Bash is `shell`; Task/Agent `subagent`; the file tools `file`; WebFetch/WebSearch `web`;
 * `mcp__<server>__<tool>` `mcp`; the rest `other` (BashOutput and KillShell only read or stop a
 * background shell: no command runs in them).
 */
export const classifyClaudeTool: ToolClassifier = ({ name }) => {
  if (name === 'Bash') return SHELL;
  if (isSubagentTool(name)) return SUBAGENT;
  if (FILE_TOOLS.has(name)) return FILE;
  if (WEB_TOOLS.has(name)) return WEB;
  if (name.startsWith('mcp__')) return MCP;
  return STATUS_POLL_TOOLS.has(name) ? POLL : OTHER;
};

/** Claude Code's words in a verdict reason. */
export const CLAUDE_WORDS: AgentWords = {
  displayName: 'Claude Code',
  hiddenPromptHint: 'install the Notification hook to see it',
};

/** What a merge of a Claude Code row's evidence reads (the check's harnessOf, replay). */
export const CLAUDE_LENS: EvidenceLens = { classifyTool: classifyClaudeTool, wording: CLAUDE_WORDS };
