// The subagent transcripts an agent waits on while its foreground Task/Agent call is open:
// `<dir>/<session-id>/subagents/agent-<id>.jsonl`, read through the same tail tracker. I/O.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ChildTranscript } from '../parse/observe-transcript.js';
import { isSubagentTool } from '../parse/parse-transcript-record.js';
import type { TranscriptState } from '../parse/transcript-state.js';
import type { TailTracker } from './tail-tracker.js';

/** Child transcripts read at most per agent and check. @defaultValue 8 */
const CHILDREN_MAX = 8;
/** A child file last written this long before the call began is not its child. @defaultValue 5000 */
const SLACK_MS = 5_000;

const isHelper = (name: string) => name.startsWith('agent-acompact') || name.startsWith('agent-aprompt_suggestion');

/** Read the children an open foreground Task/Agent call of `state` (the transcript at `file`) may be waiting on. */
export async function readWaitedChildren(transcripts: TailTracker<TranscriptState>, file: string, state: TranscriptState, nowMs: number): Promise<ChildTranscript[]> {
  const calls = state.open.filter((c) => isSubagentTool(c.name) && !c.isBackground);
  if (calls.length === 0) return [];
  const dir = path.join(path.dirname(file), state.sessionId ?? path.basename(file, '.jsonl'), 'subagents');
  let files: string[];
  const named = calls.map((c) => c.childAgentId);
  if (named.every((id): id is string => id !== undefined)) {
    files = named.map((id) => path.join(dir, `agent-${id}.jsonl`));
  } else {
    const since = Math.min(...calls.map((c) => c.startedAtMs ?? nowMs)) - SLACK_MS;
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    const fresh: { file: string; mtimeMs: number }[] = [];
    for (const n of names) {
      if (!n.startsWith('agent-') || !n.endsWith('.jsonl') || isHelper(n)) continue;
      const st = await fs.stat(path.join(dir, n)).catch(() => undefined);
      if (st?.isFile() && st.mtimeMs >= since) fresh.push({ file: path.join(dir, n), mtimeMs: st.mtimeMs });
    }
    files = fresh.sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, CHILDREN_MAX).map((f) => f.file);
  }
  const out: ChildTranscript[] = [];
  for (const f of files) {
    const r = await transcripts.read(f, nowMs);
    if (r.ok) out.push({ agentId: path.basename(f, '.jsonl').slice('agent-'.length), state: r.state });
  }
  return out;
}
