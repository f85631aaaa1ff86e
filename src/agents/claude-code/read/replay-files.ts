// Which files a replay of a Claude Code session reads with it (`replay`, HarnessReplay.childFiles):
// its subagents' transcripts, nested (2.1.x) or flat beside it (older), and how to tell a Claude
// Code transcript from another CLI's file by its first lines.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isChildName, readHead } from './child-transcripts.js';

/**
 * Subagent transcripts of a session transcript: `<dir>/<session-id>/subagents/agent-*.jsonl`
 * (2.1.x), and the older flat `<dir>/agent-*.jsonl` next to it whose records name its session.
 */
export async function findChildTranscripts(file: string): Promise<string[]> {
  const session = path.basename(file, '.jsonl');
  const nested = path.join(path.dirname(file), session, 'subagents');
  const names = await fs.readdir(nested).catch(() => [] as string[]);
  const out = names
    .filter(isChildName)
    .sort()
    .map((n) => path.join(nested, n));
  if (session.startsWith('agent-')) return out;
  const flat = (await fs.readdir(path.dirname(file)).catch(() => [] as string[])).filter(isChildName).sort();
  for (const n of flat) {
    const child = path.join(path.dirname(file), n);
    if ((await readHead(child)).sessionId === session) out.push(child);
  }
  return out;
}
