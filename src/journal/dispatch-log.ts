// The dispatch log (DESIGN §7): append-only NDJSON, one file per UTC day, all epics.
// Appends are one write() of a complete line; readers read every day, skip a torn last
// line and report (never crash on) a corrupt line with its file and line number.
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DispatchEventSchema, type DispatchEvent, type EventBody } from '../contracts/events.js';
import { formatPath, issueMessage, valueAt } from '../contracts/parse-yaml.js';
import { fillSeedLine } from '../contracts/seed-events.js';
import { msToIso, utcDate } from '../contracts/time.js';
import { appendLines } from '../files/atomic-write.js';
import type { StatePaths } from '../files/paths.js';
import { crashPoint } from '../sys/crash-point.js';

export interface LogDiagnostic {
  file: string;
  line: number;
  message: string;
}

export interface LogReadResult {
  events: DispatchEvent[];
  diagnostics: LogDiagnostic[];
}

/** Writes events for one epic and one run, stamping the envelope. */
export class DispatchLog {
  constructor(
    private readonly paths: StatePaths,
    private readonly epicId: string,
    readonly runId: string,
    private readonly nowMs: () => number,
    /** Told about every line after it is written (live output). */
    private readonly onAppend?: (e: DispatchEvent) => void,
  ) {}

  /**
   * Lines written in the same write() as each event (a notification's write-ahead line with the
   * event it is about, act/notify/), so a crash never leaves one without the other.
   */
  companionsOf?: (e: DispatchEvent) => readonly EventBody[];

  /** Append one event; returns the full line as written. */
  async append<E extends EventBody>(body: E): Promise<DispatchEvent> {
    return (await this.appendAll([body]))[0]!;
  }

  /** Append several events (one check's verdict lines) with one write and one fsync; all share one timestamp. Returns them (not their companions). */
  async appendAll(bodies: readonly EventBody[]): Promise<DispatchEvent[]> {
    if (bodies.length === 0) return [];
    const now = this.nowMs();
    const stamp = msToIso(now);
    const full = bodies.map((b) => this.stamp(b, stamp));
    const written = this.companionsOf ? full.flatMap((e) => [e, ...this.companionsOf!(e).map((c) => this.stamp(c, stamp))]) : full;
    for (const e of written) crashPoint('before', e.event);
    await appendLines(
      this.paths.dispatchLog(utcDate(now)),
      written.map((e) => JSON.stringify(e)),
    );
    for (const e of written) {
      crashPoint('after', e.event);
      this.onAppend?.(e);
    }
    return full;
  }

  private stamp(body: EventBody, stamp: string): DispatchEvent {
    const { event, ...rest } = body as { event: string };
    return { timestamp_utc: stamp, event, epic_id: this.epicId, run_id: this.runId, ...rest } as DispatchEvent;
  }
}

/** One line → an event we know; lines of other tools' events are skipped silently. */
export function parseLogLine(line: string): { ok: true; event: DispatchEvent } | { ok: false; message?: string } {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { ok: false, message: 'not valid JSON (corrupt line); skipped' };
  }
  const r = DispatchEventSchema.safeParse(json);
  if (r.success) return { ok: true, event: r.data };
  // The seed skill's own shape of its five events: read and counted (toward the cap), not rejected.
  const seed = fillSeedLine(json);
  const fromSeed = seed && DispatchEventSchema.safeParse(seed);
  if (fromSeed?.success) return { ok: true, event: fromSeed.data };
  const ev = (json as { event?: unknown } | null)?.event;
  const known = DispatchEventSchema.options.some((o) => o.shape.event.value === ev);
  if (!known) return { ok: false }; // a line from another writer (the seed skill, a newer version): not ours to judge
  const issue = r.error.issues[0]!;
  return { ok: false, message: `event "${String(ev)}": ${formatPath(issue.path)}: ${issueMessage(issue, valueAt(json, issue.path))}; skipped` };
}

/** Read every day's file under dispatch-log/, oldest first. */
export async function readDispatchLog(paths: StatePaths, filter?: (e: DispatchEvent) => boolean): Promise<LogReadResult> {
  const dir = paths.dispatchLogDir();
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => /^\d{4}-\d{2}-\d{2}\.ndjson$/.test(n)).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], diagnostics: [] };
    throw e;
  }
  const out: LogReadResult = { events: [], diagnostics: [] };
  for (const name of names) {
    const file = path.join(dir, name);
    const r = await readLogFile(file);
    for (const e of r.events) if (!filter || filter(e)) out.events.push(e);
    out.diagnostics.push(...r.diagnostics);
  }
  return out;
}

/** Stream one file line by line (bounded memory), with the same rules as parseLogText. */
async function readLogFile(file: string): Promise<LogReadResult> {
  const out: LogReadResult = { events: [], diagnostics: [] };
  const stat = await fs.stat(file);
  // Read only up to the size seen now; a line being appended meanwhile is the next reader's.
  const stream = createReadStream(file, { encoding: 'utf8', start: 0, end: Math.max(0, stat.size - 1) });
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  let pending: { line: string; n: number } | undefined;
  const take = (line: string, at: number) => {
    if (line.trim() === '') return;
    const parsed = parseLogLine(line);
    if (parsed.ok) out.events.push(parsed.event);
    else if (parsed.message) out.diagnostics.push({ file, line: at, message: parsed.message });
  };
  if (stat.size === 0) return out;
  for await (const line of rl) {
    n++;
    if (pending) take(pending.line, pending.n);
    pending = { line, n };
  }
  // readline cannot tell whether the last line ended with "\n": check the last byte.
  if (pending) {
    const h = await fs.open(file, 'r');
    try {
      const b = Buffer.alloc(1);
      await h.read(b, 0, 1, stat.size - 1);
      if (b[0] === 0x0a) take(pending.line, pending.n);
    } finally {
      await h.close();
    }
  }
  return out;
}
