// Webhook notifications as side effects of the write-ahead protocol (docs/fleet.md "Notifications"):
// notify_started is written in the same write() as the event it is about, the POST runs in the
// background (a hung webhook never delays a check), a marker file says sending → sent/failed, and
// the outcome is journaled. At start-up an unfinished one is classified from its marker, never
// blindly sent again: no marker → sent now; sent/failed → its outcome appended; retrying (stopped
// between attempts: no POST in flight) → sent now; sending → orphan.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { DispatchEvent, EventBody, EventOf } from '../../contracts/events.js';
import { NotifyRecordSchema, parseMarker, type NotifyRecord } from '../../contracts/markers.js';
import { msToIso } from '../../contracts/time.js';
import { foldEvent, type History } from '../../core/history.js';
import { notificationFor, renderNotifyBody } from '../../core/notify.js';
import type { Clock } from '../../deps.js';
import { createFileExclusive, writeFileAtomic } from '../../files/atomic-write.js';
import type { StatePaths } from '../../files/paths.js';
import type { DispatchLog } from '../../journal/dispatch-log.js';
import { crashPoint } from '../../sys/crash-point.js';
import { packageVersion } from '../../version.js';
import { keyToFileName } from '../agents/step-file.js';
import type { NotifySettings } from './notify-config.js';
import { postWebhook, type WebhookRetryOptions } from './webhook.js';

export interface NotifierDeps {
  paths: StatePaths;
  epicId: string;
  log: DispatchLog;
  history: History;
  clock: Clock;
  settings: NotifySettings;
  /** The watchdog is stopping: POSTs in flight end at once (their send is left undecided). */
  signal?: AbortSignal;
  /** A notification that could not be handled (its marker could not be written): said, never thrown into a check. */
  onError?: (e: unknown) => void;
  /** Test knobs: backoff and sleep. */
  retry?: Partial<WebhookRetryOptions>;
}

type Started = EventOf<'notify_started'>;

const ORPHAN_TEXT =
  'the watchdog stopped after this POST began and before its answer was recorded: the receiver may have it; not sent again (notifications.idempotent_receiver: true sends it again with the same Idempotency-Key)';

export class Notifier {
  /** Keys journaled (this run or before): never started twice. */
  private readonly started = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly d: NotifierDeps) {
    for (const k of d.history.notifications.keys()) this.started.add(k);
  }

  /** The notify_started line to write with `e`, in the same write (DispatchLog.companionsOf). */
  readonly companionsOf = (e: DispatchEvent): EventBody[] => {
    if (e.epic_id !== this.d.epicId) return [];
    const n = notificationFor(e, this.d.settings.on);
    if (!n || this.started.has(n.key)) return [];
    this.started.add(n.key);
    return [n];
  };

  /** Told of every line the log wrote: a notify_started is sent in the background. */
  readonly onAppended = (e: DispatchEvent): void => {
    if (e.event === 'notify_started' || e.event === 'notify_sent' || e.event === 'notify_failed') foldEvent(this.d.history, e, this.d.epicId);
    if (e.event === 'notify_started' && e.epic_id === this.d.epicId) this.track(this.send(e, false));
  };

  /** Start-up: settle every notification a crash left without an outcome (in the background). */
  recover(): void {
    for (const rec of this.d.history.notifications.values()) if (!rec.outcome) this.track(this.settle(rec.started));
  }

  /** Wait for every send in flight (bounded by their retries; at once after the stop signal). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private track(p: Promise<void>): void {
    const done = p.catch((e) => this.d.onError?.(e)).finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
  }

  private markerFile(key: string): string {
    return path.join(this.d.paths.notifyDir(this.d.epicId), `${keyToFileName(key)}.json`);
  }

  private async readMarker(key: string): Promise<NotifyRecord | 'absent' | 'unreadable'> {
    try {
      return parseMarker(NotifyRecordSchema, await fs.readFile(this.markerFile(key), 'utf8')) ?? 'unreadable';
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
      throw e;
    }
  }

  private async append(body: EventBody): Promise<void> {
    await this.d.log.append(body);
  }

  /** A notification whose outcome is missing: done, safe to finish, or orphan, from its marker. */
  private async settle(n: Started): Promise<void> {
    const m = await this.readMarker(n.key);
    if (m === 'absent') return this.send(n, true);
    if (m !== 'unreadable' && m.status === 'sent')
      return this.append({ event: 'notify_sent', key: n.key, status: m.http_status ?? 200, attempts: Math.max(1, m.attempts), is_recovered: true });
    if (m !== 'unreadable' && m.status === 'failed')
      return this.append({ event: 'notify_failed', key: n.key, error: m.error ?? 'given up on before a restart', attempts: m.attempts });
    // Stopped while waiting to retry: every POST so far was answered with a refusal or given up on, none is in flight.
    if (m !== 'unreadable' && m.status === 'retrying') return this.send(n, true, true);
    if (this.d.settings.isReceiverIdempotent) return this.send(n, true, true);
    return this.append({ event: 'notify_failed', key: n.key, error: ORPHAN_TEXT, attempts: m === 'unreadable' ? 0 : m.attempts, is_orphan: true });
  }

  /** Marker `sending`, POST with retries, marker `sent`/`failed`, outcome line. */
  private async send(n: Started, isRecovered: boolean, isResend = false): Promise<void> {
    const file = this.markerFile(n.key);
    const marker: NotifyRecord = { key: n.key, status: 'sending', started_at: msToIso(this.d.clock.nowMs()), attempts: 0 };
    if (isResend) await writeFileAtomic(file, JSON.stringify(marker) + '\n');
    else if (!(await createFileExclusive(file, JSON.stringify(marker) + '\n'))) return this.settle(n); // someone began it: classify, never send twice
    const s = this.d.settings;
    const r = await postWebhook(s.url, renderNotifyBody(n, s.format), this.headers(n), {
      timeoutMs: s.timeoutMs,
      retries: s.retries,
      signal: this.d.signal,
      // Between attempts the marker says `retrying`: a stop (SIGTERM) or crash then keeps the notice for the next start.
      beforeRetryWait: (attempts, error) =>
        writeFileAtomic(file, JSON.stringify({ ...marker, status: 'retrying', attempts, error } satisfies NotifyRecord) + '\n'),
      beforeRetryPost: (attempt) => writeFileAtomic(file, JSON.stringify({ ...marker, attempts: attempt - 1 } satisfies NotifyRecord) + '\n'),
      ...this.d.retry,
    });
    if (r.ok) crashPoint('after', 'notify_post');
    // Stopped mid-POST: left `sending`, so the next start-up reports it undecided rather than guess;
    // stopped while waiting to retry: left `retrying`, and the next start-up sends it.
    if (!r.ok && r.wasStopped) return;
    const done: NotifyRecord = {
      ...marker,
      status: r.ok ? 'sent' : 'failed',
      attempts: r.attempts,
      ...(r.status ? { http_status: r.status } : {}),
      ...(r.ok ? {} : { error: r.error }),
    };
    await writeFileAtomic(file, JSON.stringify(done) + '\n');
    await this.append(
      r.ok
        ? { event: 'notify_sent', key: n.key, status: r.status, attempts: r.attempts, ...(isRecovered ? { is_recovered: true } : {}) }
        : { event: 'notify_failed', key: n.key, error: r.error, attempts: r.attempts },
    );
  }

  private headers(n: Started): Record<string, string> {
    return { 'content-type': 'application/json', 'user-agent': `dispatch-watchdog/${packageVersion()}`, 'idempotency-key': n.key };
  }
}
