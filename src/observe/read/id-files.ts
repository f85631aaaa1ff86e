// The per-id NDJSON files of one state-dir folder (hook activity's activity/<id>.ndjson, telemetry's
// telemetry/<session>.ndjson), read incrementally through one TailTracker: a file per id, looked
// up without a failing open for the many ids that have none (the folder is listed at most once a
// check), positions saved in a TailStore across restarts. I/O.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TailReader } from './tail-file.js';
import { TailStore } from './tail-store.js';
import type { TailHandle, TailParser } from './tail-tracker-types.js';
import { TailTracker } from './tail-tracker.js';

/** What one id's file of an NDJSON evidence dir says (hook activity, telemetry). */
export interface IdFileRead<S> {
  state?: S;
  /** Why an existing file could not be read. */
  unreadable?: string;
  /** 0: there is no such file; else the file's read version (TrackResult.version). Unset: neither is known. */
  version?: number;
  /** With a version: what `peekHandle` asks to tell whether it still holds, with no lookup by id or path. */
  handle?: IdHandle<S>;
}

/**
 * One id's file as last read: its tracked entry, or (no entry) the listing generation that showed
 * no such file (-1: the id can name no file at all).
 */
export interface IdHandle<S> {
  entry?: TailHandle<S>;
  absentIn: number;
  /** The file's name in the directory (for a file absent when read). */
  name?: string;
}

/**
 * The per-id NDJSON files of one directory (`fileOf(id)` → its path; throws for an id that cannot
 * be one), read incrementally through `reader`, positions saved in `storeFile` when given.
 */
export function createIdFileReader<S>(o: {
  dir: string;
  fileOf: (id: string) => string;
  parser: TailParser<S>;
  reader: TailReader;
  storeFile?: string;
  isState: (v: unknown) => v is S;
}) {
  const store = o.storeFile ? new TailStore(o.storeFile, o.isState) : undefined;
  const tracker = new TailTracker<S>(o.reader, o.parser, store);
  const listing = new DirListing(o.dir);
  /** Validated file paths by id (no path building per task per check); null: not a valid id. */
  const files = new Map<string, { file: string; name: string } | null>();
  /** The file of `id` when the directory may hold it; null when there is none. */
  const fileOf = (id: string | undefined): string | null => {
    if (!id) return null;
    let f = files.get(id);
    if (f === undefined) {
      try {
        const file = o.fileOf(id);
        f = { file, name: path.basename(file) };
      } catch {
        f = null;
      }
      if (files.size > 100_000) files.clear();
      files.set(id, f);
    }
    // Most agents have no such file (hooks and telemetry are optional): no failing open for each of them.
    return f !== null && listing.mayExist(f.name) ? f.file : null;
  };
  return {
    /** A check begins: files are read at most once in it, and the directory is listed at most once. */
    beginCheck() {
      tracker.beginCheck();
      listing.beginCheck();
    },
    /** What the file of `id` says as of now (reads only what was appended). */
    async read(id: string | undefined, nowMs: number): Promise<IdFileRead<S>> {
      const file = fileOf(id);
      if (file === null) {
        const f = id ? files.get(id) : undefined;
        // One shape for every handle (a steady check asks each of them).
        return {
          version: 0,
          handle: f ? { entry: undefined, absentIn: listing.generationNow(), name: f.name } : { entry: undefined, absentIn: -1, name: undefined },
        };
      }
      const r = await tracker.read(file, nowMs);
      if (r.ok) return { state: r.state, version: r.version, handle: { entry: r.handle, absentIn: -1, name: undefined } };
      return r.code === 'ENOENT' ? {} : { unreadable: r.reason };
    },
    /** A file of the directory by its path (one already known to be a safe name). */
    readPath: (file: string, nowMs: number) => tracker.read(file, nowMs),
    /** What `read` would return now as its `version`, if nothing changed since (no promise); undefined: ask `read`. */
    peekVersion(id: string | undefined, nowMs: number, isStatRequired = false): number | undefined {
      const file = fileOf(id);
      return file === null ? 0 : tracker.peekVersion(file, nowMs, isStatRequired);
    },
    /** `peekVersion` of what a handle from `read` names, with no lookup by id or path. */
    peekHandle(h: IdHandle<S>, nowMs: number, isStatRequired = false): number | undefined {
      if (h.entry) return tracker.peekHandle(h.entry, nowMs, isStatRequired);
      if (h.absentIn === -1) return 0;
      const g = listing.generationNow();
      if (g === h.absentIn) return 0;
      // Listed again (another file came or went): still absent, by name.
      if (h.name === undefined || listing.mayExist(h.name)) return undefined;
      h.absentIn = g;
      return 0;
    },
    flush: (nowMs: number) => tracker.flush(nowMs),
    drainDiagnostics: () => tracker.drainDiagnostics(),
  };
}

/** A file created this recently may be missing from a listing that stat says is current (same timestamp tick). */
const RACY_MS = 1000;

/**
 * The names in one directory, listed again only when its mtime moved (a file was created or
 * removed), at most once per check. A listing taken within RACY_MS of the directory's last
 * change is not trusted for the next check, since a create in the same timestamp tick would
 * leave the mtime unchanged. Outside checks (checkId 0) the directory is stat'ed on every ask.
 */
class DirListing {
  private names?: Set<string>;
  private key?: string;
  private isRacy = true;
  private checkId = 0;
  private seenInCheck = -1;
  /** Moves whenever the names are listed again (or become unknown). */
  private generation = 0;

  constructor(private readonly dir: string) {}

  beginCheck(): void {
    this.checkId++;
  }

  /** False only when the directory is known not to hold `name`. */
  mayExist(name: string): boolean {
    this.current();
    return this.names === undefined || this.names.has(name);
  }

  /** The listing's generation as of now: a name it lacked is still absent while this is the same. */
  generationNow(): number {
    this.current();
    return this.generation;
  }

  private current(): void {
    if (this.checkId === 0 || this.seenInCheck !== this.checkId) {
      this.seenInCheck = this.checkId;
      this.refresh();
    }
  }

  private refresh(): void {
    try {
      const st = statSync(this.dir, { throwIfNoEntry: false });
      if (!st) {
        // No directory, as at the last look too: the same (empty) listing.
        if (this.key === 'none') return;
        this.generation++;
        this.names = new Set();
        this.key = 'none';
        this.isRacy = true;
        return;
      }
      const key = `${st.dev}:${st.ino}:${st.mtimeMs}:${st.ctimeMs}`;
      if (key === this.key && !this.isRacy && this.names) return;
      this.generation++;
      this.isRacy = Date.now() - st.mtimeMs <= RACY_MS;
      this.names = new Set(readdirSync(this.dir));
      this.key = key;
    } catch {
      this.generation++;
      this.names = undefined; // cannot tell: let the read itself find out
      this.key = undefined;
    }
  }
}
