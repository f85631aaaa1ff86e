// Reading a hook's stdin within bounds: all of it up to a cap, else its head and tail, from
// which the payload's top-level ids are salvaged. Node built-ins only (the hook must start fast).
import { read } from 'node:fs';

/** Stdin read at most, in bytes; a larger payload keeps only its head and tail. @defaultValue 8 MB */
export const HOOK_STDIN_MAX_BYTES = 8 * 1024 * 1024;
const SALVAGE_BYTES = 64 * 1024;

export interface StdinText {
  text: string;
  isCut: boolean;
  tail: string;
  /** Nothing is left to read: stdin reached its end (or held one whole JSON object). False: the timeout came first. */
  isEnded: boolean;
}

/** The bytes kept of a stdin: all of them up to `maxBytes`, else the head and the last bytes. */
class StdinBytes {
  private readonly parts: Buffer[] = [];
  private size = 0;
  private tail = Buffer.alloc(0);
  private isCut = false;

  constructor(private readonly maxBytes: number) {}

  add(b: Buffer): void {
    if (!this.isCut && this.size + b.length <= this.maxBytes) {
      this.parts.push(b);
      this.size += b.length;
      return;
    }
    if (!this.isCut) {
      this.isCut = true;
      const all = Buffer.concat([...this.parts, b]);
      this.parts.length = 0;
      this.parts.push(all.subarray(0, SALVAGE_BYTES));
      this.tail = all.subarray(all.length - SALVAGE_BYTES);
      return;
    }
    // Keep draining, so the writer never sees a broken pipe; remember only the last bytes.
    this.tail = Buffer.concat([this.tail, b]).subarray(-SALVAGE_BYTES);
  }

  /** The bytes so far parsed, when they are one whole JSON object (they end in "}" and parse). */
  wholeObject(): unknown {
    // Past 1 MB, wait for the end instead: parsing a growing prefix again and again would cost more.
    if (this.isCut || this.size > 1024 * 1024) return undefined;
    const last = this.parts[this.parts.length - 1];
    let i = last ? last.length - 1 : -1;
    while (i >= 0 && (last![i] === 0x20 || last![i] === 0x0a || last![i] === 0x0d || last![i] === 0x09)) i--;
    if (i < 0 || last![i] !== 0x7d) return undefined;
    try {
      const value: unknown = JSON.parse(Buffer.concat(this.parts).toString('utf8'));
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  result(isEnded: boolean): StdinText {
    return { text: Buffer.concat(this.parts).toString('utf8'), isCut: this.isCut, tail: this.tail.toString('utf8'), isEnded };
  }
}

/** Read stdin to its end (or `timeoutMs`), keeping all of it up to the cap, else head + tail. */
export function readStdin(stdin: NodeJS.ReadableStream, timeoutMs: number, maxBytes = HOOK_STDIN_MAX_BYTES): Promise<StdinText> {
  return readStream(stdin, timeoutMs, new StdinBytes(maxBytes));
}

function readStream(stdin: NodeJS.ReadableStream, timeoutMs: number, bytes: StdinBytes): Promise<StdinText> {
  return new Promise((resolve) => {
    let isEnded = false;
    const finish = () => {
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      stdin.removeAllListeners('end');
      stdin.removeAllListeners('error');
      // Timed out on a stdin that never closed: let go of it, so the process can exit.
      if (!isEnded) (stdin as { destroy?: () => void }).destroy?.();
      resolve(bytes.result(isEnded));
    };
    const timer = setTimeout(finish, timeoutMs);
    stdin.on('data', (chunk: Buffer | string) => bytes.add(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stdin.on('end', () => {
      isEnded = true;
      finish();
    });
    stdin.on('error', finish);
  });
}

/**
 * Read file descriptor `fd` (the hook's stdin, 0) like readStdin, with plain read() calls:
 * `process.stdin` on a pipe or socket loads node's net and stream modules, several milliseconds
 * on every tool call. Stops as soon as the text read is one whole JSON object (`payload`), so a
 * writer that never closes costs nothing. A non-blocking descriptor (EAGAIN) is handed over to
 * `stream()` for the rest. After a timeout a read may still be pending in libuv's thread pool
 * (`isEnded` false), which keeps the process from exiting until stdin closes: the caller decides.
 */
export function readStdinFd(
  fd: number,
  timeoutMs: number,
  stream: () => NodeJS.ReadableStream,
  maxBytes = HOOK_STDIN_MAX_BYTES,
): Promise<StdinText & { payload?: unknown }> {
  return new Promise((resolve) => {
    const bytes = new StdinBytes(maxBytes);
    const startMs = Date.now();
    let isDone = false;
    const finish = (isEnded: boolean, payload?: unknown) => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      resolve(payload === undefined ? bytes.result(isEnded) : { ...bytes.result(isEnded), payload });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    const next = () => {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      read(fd, chunk, 0, chunk.length, null, (err, n) => {
        if (isDone) return;
        if (err?.code === 'EAGAIN') {
          isDone = true;
          clearTimeout(timer);
          void readStream(stream(), Math.max(0, timeoutMs - (Date.now() - startMs)), bytes).then(resolve);
          return;
        }
        // The end, or a descriptor that cannot be read (a directory, a closed one): nothing is pending.
        if (err || n === 0) return finish(true);
        bytes.add(chunk.subarray(0, n));
        const payload = bytes.wholeObject();
        if (payload !== undefined) return finish(true, payload);
        next();
      });
    };
    next();
  });
}

const FIELDS = [
  'hook_event_name',
  'session_id',
  'agent_id',
  'agent_type',
  'tool_name',
  'tool_use_id',
  'notification_type',
  'transcript_path',
  'agent_transcript_path',
];

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
