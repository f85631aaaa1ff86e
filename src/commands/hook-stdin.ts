// Reading a hook's stdin within bounds: all of it up to a cap, else its head and tail, from
// which the payload's top-level ids are salvaged. Node built-ins only (the hook must start fast).

/** Stdin read at most, in bytes; a larger payload keeps only its head and tail. @defaultValue 8 MB */
export const HOOK_STDIN_MAX_BYTES = 8 * 1024 * 1024;
const SALVAGE_BYTES = 64 * 1024;

/** Read stdin to its end (or `timeoutMs`), keeping all of it up to the cap, else head + tail. */
export function readStdin(stdin: NodeJS.ReadableStream, timeoutMs: number, maxBytes = HOOK_STDIN_MAX_BYTES): Promise<{ text: string; isCut: boolean; tail: string }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    let tail = Buffer.alloc(0);
    let isCut = false;
    let isEnded = false;
    const finish = () => {
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      stdin.removeAllListeners('end');
      stdin.removeAllListeners('error');
      // Timed out on a stdin that never closed: let go of it, so the process can exit.
      if (!isEnded) (stdin as { destroy?: () => void }).destroy?.();
      resolve({ text: Buffer.concat(parts).toString('utf8'), isCut, tail: tail.toString('utf8') });
    };
    const timer = setTimeout(finish, timeoutMs);
    stdin.on('data', (chunk: Buffer | string) => {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (!isCut && size + b.length <= maxBytes) {
        parts.push(b);
        size += b.length;
        return;
      }
      if (!isCut) {
        isCut = true;
        const all = Buffer.concat([...parts, b]);
        parts.length = 0;
        parts.push(all.subarray(0, SALVAGE_BYTES));
        tail = all.subarray(all.length - SALVAGE_BYTES);
        return;
      }
      // Keep draining, so the writer never sees a broken pipe; remember only the last bytes.
      tail = Buffer.concat([tail, b]).subarray(-SALVAGE_BYTES);
    });
    stdin.on('end', () => {
      isEnded = true;
      finish();
    });
    stdin.on('error', finish);
  });
}

const FIELDS = ['hook_event_name', 'session_id', 'agent_id', 'agent_type', 'tool_name', 'tool_use_id', 'notification_type', 'transcript_path', 'agent_transcript_path'];

/** The top-level string fields of a payload too big to keep whole, found in its head and tail. */
export function salvagePayload(head: string, tail: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of FIELDS) {
    const re = new RegExp(`"${field}"\\s*:\\s*"((?:[^"\\\\]|\\\\.){0,1000})"`);
    const m = re.exec(head) ?? re.exec(tail);
    if (m) {
      try {
        out[field] = JSON.parse(`"${m[1]}"`) as string;
      } catch {
        // a cut escape sequence: leave the field out
      }
    }
  }
  return out;
}

