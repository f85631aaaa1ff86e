// Facts the demo's summary takes from the agents' transcripts after the run: tool-call counts,
// the long Bash call's open and close times, and when a transcript's last record was written.
// Pure over the text; reading the file is the caller's job.

export interface TranscriptFacts {
  toolCalls: number;
  /** The first Bash call with a `timeout`, and when its result arrived. */
  bashCall?: { openedAtMs: number; closedAtMs?: number; timeoutMs: number };
  lastRecordMs?: number;
}

type Rec = { type?: unknown; timestamp?: unknown; message?: { content?: unknown } };
type Block = { type?: unknown; id?: unknown; name?: unknown; input?: { timeout?: unknown }; tool_use_id?: unknown };

/** Scan JSONL text; lines that are not JSON records are skipped. */
export function transcriptFacts(text: string): TranscriptFacts {
  const facts: TranscriptFacts = { toolCalls: 0 };
  let bashId: string | undefined;
  for (const line of text.split('\n')) {
    let rec: Rec;
    try {
      rec = JSON.parse(line) as Rec;
    } catch {
      continue;
    }
    const atMs = typeof rec.timestamp === 'string' ? Date.parse(rec.timestamp) : NaN;
    if (Number.isFinite(atMs)) facts.lastRecordMs = atMs;
    const content = Array.isArray(rec.message?.content) ? (rec.message.content as Block[]) : [];
    for (const b of content) {
      if (b?.type === 'tool_use') {
        facts.toolCalls++;
        if (b.name === 'Bash' && typeof b.input?.timeout === 'number' && !facts.bashCall && Number.isFinite(atMs)) {
          facts.bashCall = { openedAtMs: atMs, timeoutMs: b.input.timeout };
          bashId = typeof b.id === 'string' ? b.id : undefined;
        }
      } else if (b?.type === 'tool_result' && bashId !== undefined && b.tool_use_id === bashId && facts.bashCall && Number.isFinite(atMs)) {
        facts.bashCall.closedAtMs = atMs;
      }
    }
  }
  return facts;
}
