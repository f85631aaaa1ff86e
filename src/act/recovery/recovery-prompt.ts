// The narrow-scope prompt for a replacement agent (seed "Targeted Redispatch"): only the remaining
// work, a summary of what was done, targeted reads, and a stop with a diagnosis if stuck again. Pure.
import path from 'node:path';
import type { Checkpoint, RecoveredSubagent } from '../../contracts/checkpoint.js';

const list = (items: readonly string[], numbered: boolean) => items.map((s, i) => (numbered ? `${i + 1}. ${s}` : `- ${s}`)).join('\n');

/** Where the replacement writes its diagnosis when it gets stuck: next to the checkpoint. */
export function diagnosisPath(checkpointPath: string, attempt: number): string {
  return path.join(path.dirname(checkpointPath), `diagnosis-${attempt}.md`);
}

/** The last tool call, as one short line for the prompt. */
function describeTool(cp: Checkpoint): string | undefined {
  const t = cp.last_tool;
  if (!t) return undefined;
  const what = (t.command ?? t.input_summary ?? '').split('\n')[0]!.slice(0, 160);
  return `${t.name}${what ? ` (${what})` : ''}${t.is_open ? ', which never returned' : t.error ? ', which failed' : ''}`;
}

/** The full recovery prompt; `checkpointPath` is absolute, so the agent can read it from any directory. */
export function renderRecoveryPrompt(cp: Checkpoint, where: { checkpointPath: string }): string {
  const tool = describeTool(cp);
  const done =
    cp.completed_work.length > 0
      ? `Already done (do NOT redo it; check it only if the remaining work depends on it):\n${list(cp.completed_work, false)}`
      : 'Already done: the evidence does not list finished items. Check `git status`, `git log` and `git diff` before changing anything, and keep what is there.';
  const remaining =
    cp.remaining_work.length > 0
      ? `Remaining work (ONLY do these):\n${list(cp.remaining_work, true)}`
      : `Remaining work: not recorded. Work out what is still missing for ${cp.ticket_id} from the ticket and the repository, and do only that.`;
  const isOutOfContext = cp.stall_reason === 'context_exhausted';
  const why = isOutOfContext
    ? `The previous agent ran out of context ("Prompt is too long") and stopped${tool ? `; its last tool call was ${tool}` : ''}. Its approach read too much: yours must not.`
    : cp.stall_reason === 'api_gave_up'
      ? `The previous agent stopped on an API error it gave up on${tool ? `; its last tool call was ${tool}` : ''}.`
      : cp.stall_reason === 'runtime_killed'
        ? `The previous agent was stopped by its agent CLI's own stall watchdog (no progress from the model)${tool ? `; its last tool call was ${tool}` : ''}.`
        : cp.stall_reason === 'run_ended'
          ? `The previous agent's run ended before it finished (its agent CLI's session exited)${tool ? `; its last tool call was ${tool}` : ''}.`
          : cp.stall_reason === 'wake_lost'
            ? 'The previous agent waited on background subagents that finished, and was never told (a lost completion wake): their work is done; read their results before redoing any of it.'
            : `The previous agent stalled (${cp.stall_reason}) after ${cp.idle_seconds} s without progress${tool ? `; its last tool call was ${tool}` : ''}.`;
  // Context exhaustion is what the narrow scope exists for: narrow it harder.
  const contextRules = isOutOfContext
    ? [
        '- CONTEXT IS THE CONSTRAINT: take the remaining items one at a time, and commit after each one.',
        '- Never print a whole file, log or test run: pipe output through `tail -n 50` or `grep`, and Read at most 200 lines at a time.',
        '- Do not explore beyond the files the remaining items name.',
      ]
    : [];
  // The task as first given: what the work is for. The narrowing below says which part of it is left.
  const original = cp.original_prompt
    ? [
        'The original task, as the first agent was given it (for context: do only the remaining work below):',
        '<original-task>',
        cp.original_prompt,
        '</original-task>',
        '',
      ]
    : [];
  // Its subagents recovered on their own rows: their tickets have agents already, or wait on a
  // person (escalated): either way not this agent's (one ticket, one agent).
  const subagents = cp.recovered_subagents ?? [];
  const named = (x: RecoveredSubagent) =>
    `${x.ticket_id} (row ${x.task_id}, subagent ${x.agent_id}${x.recovered_by === 'escalate' ? ': escalated, it waits on a person' : ''})`;
  const delegated =
    subagents.length > 0
      ? [
          `Subagents the previous agent had dispatched were recovered on rows of their own, and their tickets are taken care of: ${subagents.map(named).join(', ')}. Their work is not yours, whatever the original task says.`,
          '',
        ]
      : [];
  const delegatedRules =
    subagents.length > 0 ? [`- Do NOT dispatch, start or redo the work of ${subagents.map((x) => x.ticket_id).join(', ')}: it is not yours.`] : [];
  return [
    `Recovery redispatch #${cp.attempt} for ${cp.ticket_id} (you are ${cp.recovery_task_id}; you replace ${cp.task_id}).`,
    '',
    why,
    `Checkpoint: ${where.checkpointPath}`,
    'Read the checkpoint first: it records what was done and what remains.',
    '',
    ...original,
    ...delegated,
    done,
    '',
    remaining,
    '',
    'RULES:',
    '- Do NOT re-do completed work; read the checkpoint for details.',
    '- Do only the remaining work above; nothing else from the original ticket.',
    ...delegatedRules,
    '- Use targeted reads: Read with offset/limit and grep for the lines you need; never read large files or logs whole, to avoid exhausting your context.',
    ...contextRules,
    '- Give long commands an explicit timeout, and do not wait on output that may never come.',
    `- If you get stuck on the same step${tool ? ` (${tool.split(' (')[0]})` : ''}, do not keep retrying: write a diagnosis doc to ${diagnosisPath(where.checkpointPath, cp.attempt)} (what you tried, what failed, what you suspect) and stop.`,
  ].join('\n');
}
