// telemetry/hosts.json as the receiver keeps it (docs/fleet.md): when each host was last heard
// from, for the partition rule. Bounded (issue 36 item 1): at most HOSTS_MAX hosts, the least
// recently heard let go first, each name at most HOST_MAX characters (the decoder cuts them);
// kept in a Map (a host named `__proto__` is a host, not a prototype) and written one host a line,
// never as one string of the whole file. A file too large to be ours is not read.
import { promises as fs } from 'node:fs';
import { TELEMETRY_HOST_MAX as HOST_MAX, TelemetryHostsSchema } from '../contracts/telemetry.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import type { StatePaths } from '../files/paths.js';

/** Hosts remembered; the least recently heard goes when a new one comes. @defaultValue 1000 */
export const HOSTS_MAX = 1000;
/** Largest hosts.json read back (HOSTS_MAX entries of HOST_MAX characters fit well within it). @defaultValue 2 MiB */
export const HOSTS_FILE_MAX_BYTES = 2 * 1024 * 1024;

export interface HostEntry {
  first_ms: number;
  last_ms: number;
  requests: number;
  records: number;
}

export class HostsBook {
  /** Insertion order is recency: a host heard again moves to the end; the first is the stalest. */
  private readonly hosts = new Map<string, HostEntry>();
  updatedMs = 0;

  constructor(private readonly max = HOSTS_MAX) {}

  get size(): number {
    return this.hosts.size;
  }

  /** `host` sent `records` records in one request at `nowMs`. */
  heard(host: string, records: number, nowMs: number): void {
    const h = this.hosts.get(host);
    if (h) this.hosts.delete(host);
    else if (this.hosts.size >= this.max) this.hosts.delete(this.hosts.keys().next().value!);
    const e = h ?? { first_ms: nowMs, last_ms: nowMs, requests: 0, records: 0 };
    e.last_ms = Math.max(e.last_ms, nowMs);
    e.requests++;
    e.records += records;
    this.hosts.set(host, e);
  }

  /** The file's lines: a valid JSON document, one host a line. */
  *lines(): Generator<string> {
    yield `{"version":1,"updated_ms":${JSON.stringify(this.updatedMs)},"hosts":{`;
    let left = this.hosts.size;
    for (const [host, e] of this.hosts) {
      left--;
      yield `${JSON.stringify(host)}:${JSON.stringify({ first_ms: e.first_ms, last_ms: e.last_ms, requests: e.requests, records: e.records })}${left > 0 ? ',' : ''}`;
    }
    yield '}}';
  }

  async write(file: string): Promise<void> {
    await writeFileAtomic(file, { lines: this.lines() });
  }

  /** hosts.json as the last receiver left it (a restart keeps when each host was last heard); a bad or oversized file starts empty. */
  static async load(paths: StatePaths, max = HOSTS_MAX): Promise<HostsBook> {
    const book = new HostsBook(max);
    try {
      const file = paths.telemetryHosts();
      if ((await fs.stat(file)).size > HOSTS_FILE_MAX_BYTES) return book;
      const raw = JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
      const parsed = TelemetryHostsSchema.safeParse(raw);
      if (!parsed.success) return book;
      book.updatedMs = parsed.data.updated_ms;
      // Oldest first, so the newest are kept and are last (most recent).
      const entries = Object.entries((raw as { hosts: Record<string, HostEntry> }).hosts)
        .filter(
          ([host, e]) =>
            host.length <= HOST_MAX && e !== null && typeof e === 'object' && [e.first_ms, e.last_ms, e.requests, e.records].every(Number.isFinite),
        )
        .sort((a, b) => a[1].last_ms - b[1].last_ms);
      for (const [host, e] of entries.slice(-max)) book.hosts.set(host, { first_ms: e.first_ms, last_ms: e.last_ms, requests: e.requests, records: e.records });
    } catch {
      /* none yet, or not ours */
    }
    return book;
  }
}
