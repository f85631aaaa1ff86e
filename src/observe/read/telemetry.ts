// Reads telemetry/<session>.ndjson (written by the OTLP receiver) incrementally, like hook
// activity, and telemetry/hosts.json (when each host was last heard from) at most once a check.
// Positions persist in <stateDir>/observe/telemetry.json.
import { promises as fs } from 'node:fs';
import { TelemetryHostsSchema, type TelemetryHosts } from '../../contracts/telemetry.js';
import type { StatePaths } from '../../files/paths.js';
import type { PartialObservation } from '../parse/observation.js';
import { emptyTelemetryState, isTelemetryState, parseTelemetryLine, summarizeTelemetry, type TelemetryState } from '../parse/parse-telemetry.js';
import { createIdFileReader, type IdHandle } from './id-files.js';
import type { TailReader } from './tail-file.js';

/** Largest hosts.json read (the receiver writes at most 1,000 hosts of at most 255 characters: well under). @defaultValue 2 MiB */
const HOSTS_FILE_MAX_BYTES = 2 * 1024 * 1024;

/** The telemetry of one state dir, read through `reader`. */
export function createTelemetryReader(paths: StatePaths, reader: TailReader, opts: { isPersistent: boolean }) {
  const files = createIdFileReader<TelemetryState>({
    dir: paths.telemetryDir(),
    fileOf: (id) => paths.telemetryFile(id),
    parser: { empty: emptyTelemetryState, line: parseTelemetryLine },
    reader,
    storeFile: opts.isPersistent ? paths.observeFile('telemetry.json') : undefined,
    isState: isTelemetryState,
  });
  let hosts: { key: string; doc?: TelemetryHosts } | undefined;
  let hostsRead: Promise<TelemetryHosts | undefined> | undefined;
  /** hosts.json as of this check (read again only when its mtime moved). */
  const readHosts = async (): Promise<TelemetryHosts | undefined> => {
    const file = paths.telemetryHosts();
    const st = await fs.stat(file).catch(() => undefined);
    const key = st ? `${st.ino}:${st.mtimeMs}:${st.size}` : '';
    if (hosts?.key === key) return hosts.doc;
    let doc: TelemetryHosts | undefined;
    // The receiver keeps it far smaller (receive/hosts-book.ts); a larger one is not its, and is not read.
    if (st && st.size <= HOSTS_FILE_MAX_BYTES) {
      try {
        const parsed = TelemetryHostsSchema.safeParse(JSON.parse(await fs.readFile(file, 'utf8')));
        doc = parsed.success ? parsed.data : undefined;
      } catch {
        doc = undefined; // replaced while read, or torn: no host is known this check (never a stall from it)
      }
    }
    hosts = { key, doc };
    return doc;
  };
  return {
    beginCheck() {
      files.beginCheck();
      hostsRead = undefined;
    },
    peekVersion: files.peekVersion,
    peekHandle: files.peekHandle,
    flush: files.flush,
    drainDiagnostics: files.drainDiagnostics,
    /**
     * The evidence of session `id` as of now, with when its host was last heard from; version 0
     * when no telemetry was ever received for it.
     */
    async read(id: string | undefined, nowMs: number): Promise<{ part?: PartialObservation; version?: number; handle?: IdHandle<TelemetryState> }> {
      const r = await files.read(id, nowMs);
      if (r.unreadable) return { part: { source: 'telemetry', missing: [{ source: 'telemetry', reason: r.unreadable }] }, version: r.version };
      const s = r.state;
      if (!s || s.lines === 0 || s.host === undefined || s.lastReceivedMs === undefined) return { version: r.version, handle: r.handle };
      const doc = await (hostsRead ??= readHosts());
      const part = summarizeTelemetry(s);
      const heard = doc && Object.hasOwn(doc.hosts, s.host) ? doc.hosts[s.host]?.last_ms : undefined;
      part.telemetry = { host: s.host, sessionReceivedMs: s.lastReceivedMs, hostHeardMs: heard };
      return { part, version: r.version };
    },
  };
}
