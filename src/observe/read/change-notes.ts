// Change notification (inotify, through fs.watch) on the directories of tracked files, so a steady
// check need not stat a file nothing touched (issue 12). Only ever a hint that saves a stat: a
// file counts as untouched only while its directory is watched, no event named it since its last
// real stat (and no rename happened in the directory), that stat found it read to its end, and
// that stat is younger than its trust (shortened at random by up to half per stat, so the re-stats
// of a fleet spread over checks instead of coming all in one). Anything else falls back to a stat:
// no watch support, a watch error, a rename, a queue that overflowed (libuv drops the overflow
// event, so the trust window bounds what a lost event can hide). Callers stat before any verdict
// other than healthy. The trust is long (`longTrustMs`) while notification has missed nothing,
// and short (`trustMs`) for an hour after a stat found a change no event named (`missed`).
// Watching costs a wake-up of the process per write to a watched directory when the writes come one
// at a time (~28 µs of CPU each on this VM at 1,000 a second; the watch loop's sleep takes them in
// batches while a wave is busy: sys/batched-idle.ts), and pays only while checks come faster than
// the trust window: when they come slower, no directory is watched at all. And it pays only while a
// directory's files stay quiet: one whose writes raised more events between two checks than it had
// files to vouch for (a busy wave at a 30 s interval: ~18 events a file, none unwritten) is not
// watched for a few checks, its files stat'ed instead, and watched again once those stats find most
// of them unchanged (`PAUSE_EVENTS_PER_VOUCH`, `PAUSE_CHECKS`). That only ever trades an event for a stat.
import { watch as fsWatch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/**
 * How long a real stat vouches at most for a file that no event named, for an hour after
 * notification missed a change (`NOTE_LONG_TRUST_MS` before; each stat: between half of it and all
 * of it, at random). It bounds what an event libuv dropped (inotify's queue overflow)
 * can hide, and that is never a stall: a verdict other than healthy is concluded only after a
 * stat. At 10 s, ~13 % of a fleet's files were stat'ed every check (a sixth of a steady check's
 * CPU at 10,000 agents); at 30 s, ~4 %. @defaultValue 30000
 */
export const NOTE_TRUST_MS = 30_000;
/**
 * The trust while notification has missed nothing this process saw: a stat of a file that no event
 * named finds it unchanged, as it does on a local disk, where inotify loses an event only when its
 * queue overflows. At 30 s, ~9 % of a steady check's CPU at 1,000 agents was these re-stats.
 * @defaultValue 120000
 */
export const NOTE_LONG_TRUST_MS = 120_000;
/** After a missed change, the short trust holds this long since the last one. @defaultValue 3600000 */
const MISS_MEMORY_MS = 3_600_000;
/**
 * A change is a miss only when its mtime is this far before the check began (its event had a
 * whole poll to arrive) or this far in the wall clock's future (a clock that cannot be compared).
 * @defaultValue 1000
 */
const MISS_MARGIN_MS = 1000;
/** A directory whose watch failed is tried again after this long. @defaultValue 60000 */
const RETRY_MS = 60_000;
/**
 * A watched directory is dropped at a check when its events since the last check outnumber by this
 * much the files it could have vouched for then (noted, read to their end, and named by no event):
 * an event costs about what a stat does (5–28 µs on this VM), so the watch cost more than it saved.
 * @defaultValue 2
 */
export const PAUSE_EVENTS_PER_VOUCH = 2;
/**
 * Checks a dropped directory stays unwatched before its stats are weighed; doubled (up to
 * `PAUSE_CHECKS_MAX`) each time it is dropped again at the first check after being watched again.
 * @defaultValue 4
 */
export const PAUSE_CHECKS = 4;
/** @defaultValue 16 */
export const PAUSE_CHECKS_MAX = 16;
/** Files remembered before every note is forgotten (they are stat'ed again): memory follows the wave. @defaultValue 100000 */
const NOTES_MAX = 100_000;

interface Dir {
  watcher?: FSWatcher;
  /** Moves on every rename or error: every file's last stat is void. */
  epoch: number;
  /** The notes of this directory's files by name: an event marks its file's note touched. */
  byName: Map<string, Note>;
  failedAtMs?: number;
  /** Events since the last check (every event costs a wake-up, named file or not). */
  events: number;
  /** Not watched because events cost more than they saved: checks left before its stats are weighed (0: weighed at every check). */
  pausedFor?: number;
  /** The pause the next drop gives (`PAUSE_CHECKS`, doubled by a drop right after a resume). */
  pauseChecks: number;
  /** The check at which it was last watched again after a pause (a drop at the next one doubles the pause). */
  resumedAt: number;
  /** While paused: real stats of its files since the last check, and how many found a change. */
  stats: number;
  changes: number;
}

/**
 * What is known of one file since its last real stat. Held by callers as a handle (`noteOf`), so a
 * steady check asks `isUntouchedNote` with a few field reads instead of path lookups.
 */
export interface Note {
  dir: Dir;
  name: string;
  epoch: number;
  /** The notes generation it belongs to: every note is void once the notes are forgotten. */
  generation: number;
  /** An event named it since its last stat. */
  isTouched: boolean;
  /** When the last real stat was taken (the monotonic clock); -Infinity before any. */
  statAtMs: number;
  /** That stat's share of the trust window, in [0.5, 1]. */
  share: number;
  isAtEnd: boolean;
  /** The stat that followed `beforeStat` found no file: a file created since is a rename event. */
  isAbsent: boolean;
  /** The check whose stats of a dropped directory counted this file (once a check, however often stat'ed). */
  weighedAt: number;
  /** A change of it was counted at that check. */
  isChangeWeighed: boolean;
}

export interface ChangeNotesOptions {
  /** The trust after a missed change (and the only one when `longTrustMs` is not given with it). @defaultValue NOTE_TRUST_MS */
  trustMs?: number;
  /** The trust while nothing was missed. @defaultValue NOTE_LONG_TRUST_MS, or `trustMs` when only that is given */
  longTrustMs?: number;
  /** The wall clock in ms, to date a missed change by its mtime. @defaultValue Date.now */
  wallNow?: () => number;
  /** Wall clock in ms (monotonic). @defaultValue performance.now */
  now?: () => number;
  /** Each stat's share of the trust window, in [0.5, 1]. @defaultValue 0.5 + Math.random() / 2 */
  share?: () => number;
  /** fs.watch, replaceable in tests. */
  watch?: (dir: string, listener: (event: string, name: string | Buffer | null) => void) => FSWatcher;
}

let eventsSeen = 0;
/** Change events this process has been told of, by every ChangeNotes (a counter that only grows): how busy the wave is. */
export function changeEventsSeen(): number {
  return eventsSeen;
}

const defaultWatch = (dir: string, listener: (event: string, name: string | Buffer | null) => void) => fsWatch(dir, { persistent: false }, listener);

export class ChangeNotes {
  private dirs = new Map<string, Dir>();
  private notes = new Map<string, Note>();
  private readonly trustMs: number;
  private readonly longTrustMs: number;
  private readonly now: () => number;
  private readonly wallNow: () => number;
  /** When a stat last found a change no event named (the monotonic clock). */
  private missedAtMs?: number;
  /** The wall clock when the current check began (`beginCheck`). */
  private checkAtWallMs = -Infinity;
  /** Changes no event named, found by a stat (`missed`): a count for tests and docs. */
  missedChanges = 0;
  private readonly share: () => number;
  private readonly watch: NonNullable<ChangeNotesOptions['watch']>;
  private lastCheckAtMs?: number;
  /** Checks come faster than the trust window: directories are watched. */
  private isEnabled = false;
  /** Moves whenever every note is forgotten: a note handle of an older generation vouches for nothing. */
  private generation = 0;
  /** Checks begun (`beginCheck`). */
  private checks = 0;

  constructor(opts: ChangeNotesOptions = {}) {
    this.trustMs = opts.trustMs ?? NOTE_TRUST_MS;
    this.longTrustMs = opts.longTrustMs ?? (opts.trustMs !== undefined ? opts.trustMs : NOTE_LONG_TRUST_MS);
    this.now = opts.now ?? (() => performance.now());
    this.wallNow = opts.wallNow ?? Date.now;
    this.share = opts.share ?? (() => 0.5 + Math.random() / 2);
    this.watch = opts.watch ?? defaultWatch;
  }

  /**
   * A check begins. After a gap longer than the trust window every file would be stat'ed anyway:
   * watches are dropped (no CPU spent on events between slow checks) until checks come fast.
   */
  beginCheck(): void {
    this.checks++;
    const t = this.now();
    this.checkAtWallMs = this.wallNow();
    const isFrequent = this.lastCheckAtMs !== undefined && t - this.lastCheckAtMs < this.trust(t);
    this.lastCheckAtMs = t;
    if (this.notes.size > NOTES_MAX) {
      this.close();
      this.forget();
      this.dirs.clear();
    }
    if (isFrequent !== this.isEnabled) {
      this.isEnabled = isFrequent;
      if (!isFrequent) {
        this.close();
        this.forget();
      }
    }
    if (this.isEnabled) for (const d of this.dirs.values()) this.weigh(d);
  }

  /**
   * At a check: drop the watch of a directory whose events since the last check cost more than the
   * stats it could save, and watch a dropped one again once its stats (after its pause) find at most
   * a quarter of its files changed. A dropped directory vouches for nothing: its files are stat'ed.
   */
  private weigh(d: Dir): void {
    if (d.pausedFor !== undefined) {
      if (d.pausedFor > 0) d.pausedFor--;
      else if (d.stats > 0 && d.changes * 4 <= d.stats) {
        d.pausedFor = undefined;
        d.resumedAt = this.checks;
      }
    } else if (d.watcher !== undefined) {
      if (d.events > PAUSE_EVENTS_PER_VOUCH * Math.max(1, this.vouchable(d))) {
        d.pauseChecks = this.checks - d.resumedAt <= 1 ? Math.min(PAUSE_CHECKS_MAX, d.pauseChecks * 2) : PAUSE_CHECKS;
        d.pausedFor = d.pauseChecks;
        d.epoch++;
        this.drop(d);
      }
    }
    d.events = 0;
    d.stats = 0;
    d.changes = 0;
  }

  /** The files of `d` its watch vouches for now: noted, read to their end, named by no event. */
  private vouchable(d: Dir): number {
    let k = 0;
    for (const n of d.byName.values()) if (n.isAtEnd && this.isWatchedSince(n)) k++;
    return k;
  }

  /** Directories not watched now because their events cost more than they saved: a count for tests and docs. */
  pausedDirs(): number {
    let k = 0;
    for (const d of this.dirs.values()) if (d.pausedFor !== undefined) k++;
    return k;
  }

  private forget(): void {
    this.notes.clear();
    for (const d of this.dirs.values()) d.byName.clear();
    this.generation++;
  }

  /** How long a stat vouches now: long until notification missed a change, short for an hour after. */
  private trust(t: number): number {
    return this.missedAtMs !== undefined && t - this.missedAtMs < MISS_MEMORY_MS ? this.trustMs : this.longTrustMs;
  }

  /**
   * Call right before a real stat of `file`: an event from now on marks it touched again. True
   * when the note vouched, whatever its age, that nothing touched the file since a stat found it
   * read to its end: a stat now finding it changed is a change the notes missed (`missed`).
   */
  beforeStat(file: string): boolean {
    if (!this.isEnabled) return false;
    let n = this.notes.get(file);
    const hadVouched = n !== undefined && n.isAtEnd && this.isWatchedSince(n);
    if (!n) {
      n = {
        dir: this.dirOf(path.dirname(file)),
        name: path.basename(file),
        epoch: -1,
        generation: this.generation,
        isTouched: false,
        statAtMs: -Infinity,
        share: 1,
        isAtEnd: false,
        isAbsent: false,
        weighedAt: -1,
        isChangeWeighed: false,
      };
      this.notes.set(file, n);
      n.dir.byName.set(n.name, n);
    }
    if (n.dir.pausedFor !== undefined) {
      if (n.weighedAt !== this.checks) {
        n.weighedAt = this.checks;
        n.isChangeWeighed = false;
        n.dir.stats++;
      }
    } else this.ensureWatched(path.dirname(file), n.dir);
    n.isTouched = false;
    n.epoch = n.dir.epoch;
    n.statAtMs = this.now();
    n.share = this.share();
    n.isAtEnd = false;
    n.isAbsent = false;
    return hadVouched;
  }

  /**
   * The stat after a `beforeStat` that returned true found the file changed (`mtimeMs`: its
   * mtime, the wall clock). A change older than the check's start by a margin had its event
   * delivered before the check (`settle`), so none came: notification misses changes here (a
   * queue overflow, a filesystem whose writes raise no event), and the short trust holds. A
   * change during the check may have its event still queued: not a miss. An mtime in the future
   * cannot be dated: taken as a miss.
   */
  missed(mtimeMs: number): void {
    if (mtimeMs > this.checkAtWallMs - MISS_MARGIN_MS && mtimeMs <= this.wallNow() + MISS_MARGIN_MS) return;
    this.missedChanges++;
    this.missedAtMs = this.now();
  }

  /** The stat that followed `beforeStat` found `file` changed since the read before (weighs a dropped watch). */
  changed(file: string): void {
    const n = this.notes.get(file);
    if (n && n.weighedAt === this.checks && !n.isChangeWeighed) {
      n.isChangeWeighed = true;
      n.dir.changes++;
    }
  }

  /** The stat (or read) that followed `beforeStat` left `file` read to its end. */
  atEnd(file: string): void {
    const n = this.notes.get(file);
    if (n) n.isAtEnd = true;
  }

  /** The stat that followed `beforeStat` found no `file`. */
  absent(file: string): void {
    const n = this.notes.get(file);
    if (n) n.isAbsent = true;
  }

  /** True only when nothing can have created `file` since a recent real stat found none. */
  isStillAbsent(file: string): boolean {
    const n = this.notes.get(file);
    return n !== undefined && n.isAbsent && this.isQuiet(n);
  }

  /** True only when nothing can have changed `file` since a recent real stat found it read to its end. */
  isUntouched(file: string): boolean {
    const n = this.notes.get(file);
    return n !== undefined && this.isUntouchedNote(n);
  }

  /** The note of `file` (a handle for `isUntouchedNote`), once a stat of it was noted. */
  noteOf(file: string): Note | undefined {
    return this.notes.get(file);
  }

  /** `isUntouched` of the file a handle from `noteOf` notes: false once the notes were forgotten since. */
  isUntouchedNote(n: Note): boolean {
    return n.isAtEnd && this.isQuiet(n);
  }

  /**
   * An event named `file` since its last real stat, under the same watch, with no rename in its
   * directory since: it was written (or its attributes changed), and it is still the file that
   * stat found. Vouches for a change, never for its absence: its caller reads without a stat first.
   */
  isTouched(file: string): boolean {
    const n = this.notes.get(file);
    return n !== undefined && this.isTouchedNote(n);
  }

  /** `isTouched` of the file a handle from `noteOf` notes. */
  isTouchedNote(n: Note): boolean {
    return n.isTouched && !n.isAbsent && n.generation === this.generation && n.dir.watcher !== undefined && n.epoch === n.dir.epoch;
  }

  /** No event can have named the note's file since its last stat, which is recent enough to vouch. */
  private isQuiet(n: Note): boolean {
    if (!this.isWatchedSince(n)) return false;
    const t = this.now();
    return t < n.statAtMs + this.trust(t) * n.share;
  }

  /** No event named the note's file since its last stat, under the same watch, with no rename in its directory since. */
  private isWatchedSince(n: Note): boolean {
    return n.generation === this.generation && !n.isTouched && n.dir.watcher !== undefined && n.epoch === n.dir.epoch;
  }

  /** Let pending notifications arrive: after this, every change made before the call has been seen. */
  async settle(): Promise<void> {
    if (!this.isEnabled) return;
    // The first turn may run in the middle of a poll phase; the second follows a whole one,
    // whose poll reads every event the kernel queued before this call.
    await new Promise<void>((r) => setImmediate(r));
    await new Promise<void>((r) => setImmediate(r));
  }

  /** Stop watching (the process may exit without it: watches do not keep it alive). */
  close(): void {
    for (const d of this.dirs.values()) this.drop(d);
  }

  private dirOf(dir: string): Dir {
    let d = this.dirs.get(dir);
    if (!d) {
      d = { epoch: 0, byName: new Map(), events: 0, pauseChecks: PAUSE_CHECKS, resumedAt: -Infinity, stats: 0, changes: 0 };
      this.dirs.set(dir, d);
    }
    return d;
  }

  private ensureWatched(dir: string, d: Dir): void {
    if (d.watcher || (d.failedAtMs !== undefined && this.now() - d.failedAtMs < RETRY_MS)) return;
    try {
      d.epoch++;
      const w = this.watch(dir, (event, name) => {
        eventsSeen++;
        d.events++;
        if (event !== 'change' || name === null) {
          // A rename (a file created, replaced, removed; the directory itself moved) or an unnamed
          // event: every file here is stat'ed again, under a fresh watch.
          d.epoch++;
          this.drop(d);
          return;
        }
        const n = d.byName.get(String(name));
        if (n) n.isTouched = true;
      });
      w.on('error', () => {
        d.epoch++;
        this.drop(d);
        d.failedAtMs = this.now();
      });
      d.watcher = w;
      d.failedAtMs = undefined;
    } catch {
      d.failedAtMs = this.now();
    }
  }

  private drop(d: Dir): void {
    const w = d.watcher;
    d.watcher = undefined;
    try {
      w?.close();
    } catch {
      // already closed
    }
  }
}
