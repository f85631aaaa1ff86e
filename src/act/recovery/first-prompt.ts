// The first prompt an agent was given, read from the head of its Claude Code transcript: what a
// replacement must know the work is for (the original task, before any narrowing). Reads at most
// FIRST_PROMPT_SCAN_BYTES from the start of the file; never throws (missing evidence is no prompt).
import { promises as fs } from 'node:fs';
import { isPseudoDevice } from '../../files/pseudo-files.js';

/** How far into a transcript the first prompt is looked for. @defaultValue 262144 */
export const FIRST_PROMPT_SCAN_BYTES = 256 * 1024;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The prompt a human (or the launching command) typed in one transcript record, if it is one. Pure. */
export function promptOfRecord(rec: unknown): string | undefined {
  if (!isRec(rec) || rec.type !== 'user' || rec.isMeta === true || rec.isCompactSummary === true || !isRec(rec.message)) return undefined;
  const content = rec.message.content;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content) && !content.some((b) => isRec(b) && b.type === 'tool_result')
        ? content.map((b) => (isRec(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('\n')
        : '';
  // A slash command's echo (<command-name>…, <local-command-stdout>…) is not the task.
  if (!text.trim() || /^\s*<(command-|local-command)/.test(text)) return undefined;
  return text.trim();
}

/** The first prompt in `file`'s first FIRST_PROMPT_SCAN_BYTES, or undefined. */
export async function readFirstPrompt(file: string | undefined): Promise<string | undefined> {
  if (!file) return undefined;
  const fh = await fs.open(file, 'r').catch(() => undefined);
  if (!fh) return undefined;
  try {
    const st = await fh.stat();
    if (!st.isFile() || isPseudoDevice(st.dev)) return undefined;
    const buf = Buffer.alloc(Math.min(FIRST_PROMPT_SCAN_BYTES, st.size));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    for (const line of buf.subarray(0, bytesRead).toString('utf8').split('\n')) {
      if (!line.includes('"user"')) continue;
      let rec: unknown;
      try {
        rec = JSON.parse(line);
      } catch {
        continue; // the last line may be cut at the scan limit
      }
      const prompt = promptOfRecord(rec);
      if (prompt) return prompt;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    await fh.close();
  }
}
